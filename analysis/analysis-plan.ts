/**
 * The analysis plan a study froze when it opened (docs/analysis-plan.md), as study.json carries it:
 * its settings, their content hash and every change recorded after the first vote. The analysis
 * runs under a plan only when the hash is that of the settings and study.json's own settings are
 * the plan's — a bundle edited by hand is refused, never silently re-analysed — and the report
 * lists every departure: the recorded changes, and each flag of `npm run analyze` that overrides it.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { BundleError } from './bundle-error';

export const PlanChange = z.object({
  at: z.string().min(1),
  reason: z.string().min(1),
  fromHash: z.string().min(1),
  toHash: z.string().min(1),
  changed: z.array(z.string()),
}).strict();
export type PlanChange = z.infer<typeof PlanChange>;

/** study.json's `plan`: the settings are kept whole (the hash covers every one of them). */
export const AnalysisPlan = z.object({
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256: and 64 hex digits'),
  frozenAt: z.string().min(1),
  settings: z.looseObject({
    minAttention: z.number(),
    splitThreshold: z.number(),
    rules: z.record(z.string(), z.unknown()),
    buckets: z.number().int(),
    btPrior: z.number(),
    bootstrap: z.number().int(),
    bootstrapSeed: z.number().int(),
  }),
  changes: z.array(PlanChange),
}).strict();
export type AnalysisPlan = z.infer<typeof AnalysisPlan>;

/** JSON with every object's keys sorted: the same settings give the same text whatever order they were written in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The plan's hash: `sha256:` and 64 hex digits of the canonical JSON of its settings. */
export const planHash = (settings: unknown): string => `sha256:${createHash('sha256').update(canonicalJson(settings)).digest('hex')}`;

/** Each setting that differs between two plans, as `path: before → after` (paths in dotted form). */
export function planDifferences(before: unknown, after: unknown, path = ''): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => planDifferences(before[k], after[k], path ? `${path}.${k}` : k));
  }
  if (canonicalJson(before) === canonicalJson(after)) return [];
  const show = (v: unknown) => (v === undefined ? '(none)' : canonicalJson(v));
  return [`${path}: ${show(before)} → ${show(after)}`];
}

/** The settings of study.json that the plan must equal (the rest of the plan is the analysis's own options). */
const STUDY_JSON_SETTINGS = ['minAttention', 'splitThreshold', 'rules', 'orientation', 'ratingScale', 'trial'] as const;

/**
 * Refuses a plan whose hash is not that of its settings, or a study.json whose settings are not its
 * plan's (the file, the field and what would be accepted). O(size of the settings).
 */
export function checkPlan(study: Record<string, unknown> & { plan?: AnalysisPlan }): void {
  const { plan } = study;
  if (plan === undefined) return;
  const actual = planHash(plan.settings);
  if (actual !== plan.hash) {
    throw new BundleError('study.json', 0, 'plan.hash', `is ${plan.hash}, but plan.settings hash to ${actual}: the plan was edited after it was frozen; restore the exported study.json (a change of plan is recorded by the app, with its reason)`, 'plan hash mismatch');
  }
  for (const key of STUDY_JSON_SETTINGS) {
    if (study[key] === undefined && key === 'trial') continue;
    const differences = planDifferences(plan.settings[key], study[key], key);
    if (differences.length > 0) {
      throw new BundleError('study.json', 0, key, `differs from the frozen plan (${plan.hash}): ${differences.join('; ')} (plan → study.json); restore the exported study.json, or analyse with flags, which the report lists as deviations`, 'plan mismatch');
    }
  }
}

/** What `npm run analyze` may override of a plan: the report options, by flag. */
export interface PlanFlags {
  buckets?: number;
  btPrior?: number;
  bootstrap?: number;
  seed?: number;
}

/** The report options: each flag given, else the plan's setting, else the analysis's default. */
export function planOptions(plan: AnalysisPlan | undefined, flags: PlanFlags): { buckets: number; btPrior: number; bootstrap: { n: number; seed: number } | null } {
  const s = plan?.settings;
  const n = flags.bootstrap ?? s?.bootstrap ?? 0;
  return {
    buckets: flags.buckets ?? s?.buckets ?? 5,
    btPrior: flags.btPrior ?? s?.btPrior ?? 0,
    bootstrap: n > 0 ? { n, seed: flags.seed ?? s?.bootstrapSeed ?? 1 } : null,
  };
}

/** What the report says of the plan: its hash, when it was frozen, its recorded changes and where this analysis departs from it. */
export interface PlanReport {
  hash: string;
  frozenAt: string;
  changes: PlanChange[];
  /** each setting this analysis applies that is not the plan's (a flag of `npm run analyze`), `setting: plan → applied` */
  deviations: string[];
}

/** The plan as the report shows it, comparing what this analysis applies with what the plan says. */
export function planReport(
  plan: AnalysisPlan | undefined,
  applied: { minAttention: number; splitThreshold: number; rules: Record<string, unknown>; buckets?: number; btPrior?: number; bootstrap?: { n: number; seed: number } | null },
): PlanReport | null {
  if (plan === undefined) return null;
  const s = plan.settings;
  const n = applied.bootstrap?.n ?? 0;
  const deviations = [
    ...planDifferences(s.minAttention, applied.minAttention, 'minAttention'),
    ...planDifferences(s.splitThreshold, applied.splitThreshold, 'splitThreshold'),
    ...planDifferences(s.rules, applied.rules, 'rules'),
    // The analysis's own defaults where the options leave one out (report.ts).
    ...planDifferences(s.buckets, applied.buckets ?? 5, 'buckets'),
    ...planDifferences(s.btPrior, applied.btPrior ?? 0, 'btPrior'),
    ...planDifferences(s.bootstrap, n, 'bootstrap'),
    ...(n > 0 ? planDifferences(s.bootstrapSeed, applied.bootstrap!.seed, 'bootstrapSeed') : []),
  ];
  return { hash: plan.hash, frozenAt: plan.frozenAt, changes: plan.changes, deviations };
}

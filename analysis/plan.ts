/**
 * The frozen analysis plan (issue 26 item 1), as the analysis reads it from study.json's `plan`:
 * the settings fixed when the study opened, their content hash, and the changes recorded since
 * (each with its time and reason). The report checks the hash against the settings it was
 * written for — a plan whose hash does not match is reported as such, never silently taken — and
 * lists every deviation: each recorded change, and each difference between the plan and what
 * this analysis applied (a flag, a changed study.json) that no recorded change explains.
 *
 * hash = "sha256:" + hex SHA-256 of the settings' canonical JSON: keys sorted at every level, no
 * whitespace, numbers as JSON.stringify writes them (what a writer of the plan must compute).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** The settings a plan freezes; a writer may freeze more (kept in the hash, not compared). */
export const PlanSettings = z.looseObject({
  kind: z.string().optional(),
  minAttention: z.number().optional(),
  splitThreshold: z.number().optional(),
  rules: z.record(z.string(), z.unknown()).optional(),
  buckets: z.number().int().optional(),
  btPrior: z.number().optional(),
  bootstrap: z.object({ n: z.number().int(), seed: z.number().int() }).nullable().optional(),
  orientation: z.string().optional(),
  ratingScale: z.tuple([z.number(), z.number()]).optional(),
});
export type PlanSettings = z.infer<typeof PlanSettings>;

export const PlanDeviation = z.object({
  /** ISO 8601 UTC */
  at: z.string().min(1),
  reason: z.string().min(1),
  /** a key of the plan's settings */
  field: z.string().min(1),
  from: z.unknown(),
  to: z.unknown(),
});

export const StudyPlan = z.object({
  hash: z.string().min(1),
  /** ISO 8601 UTC */
  frozenAt: z.string().min(1),
  settings: PlanSettings,
  deviations: z.array(PlanDeviation).default([]),
});
export type StudyPlan = z.infer<typeof StudyPlan>;

/** The settings this analysis applied, in the plan's terms. */
export type AppliedSettings = Required<Pick<PlanSettings, 'minAttention' | 'splitThreshold' | 'rules' | 'buckets' | 'btPrior' | 'bootstrap'>> & Pick<PlanSettings, 'kind' | 'orientation' | 'ratingScale'>;

export interface PlanDeviationReport {
  field: string;
  /** the plan's value, or a recorded change's `from` */
  planned: unknown;
  /** what was applied, or a recorded change's `to` */
  applied: unknown;
  /** true: recorded in the plan with its time and reason; false: found by this analysis only */
  recorded: boolean;
  at: string | null;
  reason: string | null;
}

export interface PlanReport {
  hash: string;
  computed_hash: string;
  hash_matches: boolean;
  frozen_at: string;
  deviations: PlanDeviationReport[];
}

/** JSON with keys sorted at every level (undefined fields left out, as JSON.stringify does). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const planHash = (settings: PlanSettings): string => `sha256:${createHash('sha256').update(canonicalJson(settings)).digest('hex')}`;

const COMPARED = ['kind', 'minAttention', 'splitThreshold', 'rules', 'buckets', 'btPrior', 'bootstrap', 'orientation', 'ratingScale'] as const;

export function planReport(plan: StudyPlan, applied: AppliedSettings): PlanReport {
  const computed = planHash(plan.settings);
  const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);
  const deviations: PlanDeviationReport[] = plan.deviations.map((d) => ({ field: d.field, planned: d.from, applied: d.to, recorded: true, at: d.at, reason: d.reason }));
  for (const field of COMPARED) {
    if (!(field in plan.settings) || (field === 'kind' && applied.kind === undefined)) continue;
    const now = applied[field];
    if (same(plan.settings[field], now)) continue;
    // The last recorded change of the field explains it when it changed the field to what was applied.
    const last = plan.deviations.filter((d) => d.field === field).at(-1);
    if (last && same(last.to, now)) continue;
    deviations.push({ field, planned: last ? last.to : plan.settings[field], applied: now ?? null, recorded: false, at: null, reason: null });
  }
  return { hash: plan.hash, computed_hash: computed, hash_matches: computed === plan.hash, frozen_at: plan.frozenAt, deviations };
}

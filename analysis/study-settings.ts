/**
 * `study.json` of the export bundle (analysis-spec §1): the study's id, the settings the analysis
 * needs and the export time. The analysis runs the rules it names with their thresholds; flags
 * of `npm run analyze` override it; a bundle without it runs the attention rule at its default.
 * The live report in the app reads the same object, so both apply the same rules.
 */
import { z } from 'zod';
import { AnalysisPlan, planOptions, planReport, type PlanReport } from './analysis-plan';
import type { Bundle } from './bundle';
import { describeRules, exclusionRules, listenerFacts } from './exclusion';
import { analyze, type AnalyzeOptions, type Report } from './report';

/** What "heard the clip" means for the `listening` rule (as the study's `listening`). */
export const ListeningRequirement = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('whole') }).strict(),
  z.object({ mode: z.literal('seconds'), seconds: z.number().positive() }).strict(),
]);
export type ListeningRequirement = z.infer<typeof ListeningRequirement>;

/** The exclusion rules beyond attention; a rule that is absent is off (spec §2 names). */
export const ExclusionRuleSettings = z
  .object({
    /** excluded if the median response_ms over the listener's votes is below this */
    fast: z.object({ minMedianResponseMs: z.number().nonnegative() }).strict().optional(),
    /** excluded if more votes than this broke the listening requirement */
    listening: z.object({ maxListeningViolations: z.number().int().nonnegative(), requirement: ListeningRequirement }).strict().optional(),
    /** excluded if the tab was hidden for more than this many ms in total during the listener's trials */
    hidden: z.object({ maxHiddenMs: z.number().nonnegative() }).strict().optional(),
    /** excluded if listeners.csv says the headphone screening failed */
    screening: z.object({ excludeFailedScreening: z.literal(true) }).strict().optional(),
    /** excluded if the listener's ratings correlate with the other listeners' mean below this (Pearson r; rating studies) */
    correlation: z.object({ minListenerCorrelation: z.number().min(-1).max(1) }).strict().optional(),
  })
  .strict();
export type ExclusionRuleSettings = z.infer<typeof ExclusionRuleSettings>;

/** The integer scores a rating study offers, [lowest, highest] (e.g. [1, 5] for ACR). */
export const RatingScale = z
  .tuple([z.number().int(), z.number().int()])
  .refine(([lo, hi]) => lo < hi, 'the lowest score must be below the highest');
export type RatingScale = z.infer<typeof RatingScale>;

/**
 * What the paper bundle's methods.md quotes from the study as it was run (issue 26; BS.1534-3
 * and P.800.2 list what a paper must report): all optional, a bundle without them gets methods.md
 * saying so. Texts are quoted verbatim.
 */
export const StudyMethods = z.object({
  /** the design in words (items, how they were chosen, crossing) */
  design: z.string().optional(),
  /** the instructions the listeners read, verbatim (Markdown) */
  instructions: z.string().optional(),
  /** the question asked on every trial, verbatim */
  question: z.string().optional(),
  /** the answer scale: its labels (value → label, in order) and the increment between values */
  scale: z.object({ labels: z.array(z.object({ value: z.number(), label: z.string() })), increment: z.number().positive().optional() }).optional(),
  /** the headphone screening: its kind and whether passing it was required */
  screening: z.looseObject({ kind: z.string() }).optional(),
  /** the loudness normalisation of the served copies (measure, target, …) */
  loudness: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  /** how the served copies were made from the source audio, in words */
  processing: z.string().optional(),
});
export type StudyMethods = z.infer<typeof StudyMethods>;

export const StudySettings = z.object({
  study: z.string().min(1),
  /** ISO 8601 UTC */
  exportedAt: z.string().min(1),
  minAttention: z.number().min(0).max(1),
  splitThreshold: z.number().gt(0.5, 'must be above 0.5 (a majority share)').max(1),
  rules: ExclusionRuleSettings,
  /** the link parameters listeners.csv has a column for, in order */
  linkParameters: z.array(z.string()),
  /** how items.csv's a/b were assigned (the coding of α and Fleiss' κ) */
  orientation: z.string().optional(),
  /** a rating study's scale [lowest, highest]; ratings.csv's scores outside it are refused */
  ratingScale: RatingScale.optional(),
  /** the study's title, for the report's header */
  title: z.string().optional(),
  /** the study's `trial:` settings as its definition gives them (kind first), for a kind's analysis */
  trial: z.looseObject({ kind: z.string().min(1) }).optional(),
  /** an adaptive study's design: its rule (bt-uncertainty, widest-ci) and settings (spec §5.7); the analysis does not read it */
  design: z.looseObject({ kind: z.literal('adaptive'), rule: z.string().min(1) }).optional(),
  /** what the paper's methods quote (analysis/paper/methods.ts) */
  methods: StudyMethods.optional(),
  /** the analysis plan frozen when the study opened, with its recorded changes (analysis-plan.ts) */
  plan: AnalysisPlan.optional(),
});
export type StudySettings = z.infer<typeof StudySettings>;

/** What the analysis applies: study.json, or the defaults, with any flags laid over. */
export interface AnalysisSettings {
  minAttention: number;
  splitThreshold: number;
  rules: ExclusionRuleSettings;
}

export const DEFAULT_MIN_ATTENTION = 0.75;
export const DEFAULT_SPLIT_THRESHOLD = 0.75;

/** Flags override study.json; a rule's flag switches that rule on with the flag's threshold. */
export function resolveSettings(study: StudySettings | null, flags: Partial<AnalysisSettings> & { rules?: ExclusionRuleSettings } = {}): AnalysisSettings {
  return {
    minAttention: flags.minAttention ?? study?.minAttention ?? DEFAULT_MIN_ATTENTION,
    splitThreshold: flags.splitThreshold ?? study?.splitThreshold ?? DEFAULT_SPLIT_THRESHOLD,
    rules: { ...study?.rules, ...flags.rules },
  };
}

/** The report's own options: the plan's (analysis-plan.ts planOptions), or flags over it. */
export type ReportOptions = Pick<AnalyzeOptions, 'buckets' | 'btPrior' | 'bootstrap'>;

/** The one analysis of a study, for `npm run analyze` and the live report alike. */
export function analyzeStudy(bundle: Bundle, settings: AnalysisSettings, options: ReportOptions = planOptions(bundle.study?.plan, {})): Report {
  // One pass over the answers for the rules and the quality view's response times alike.
  const facts = listenerFacts(bundle, settings.rules.listening?.requirement);
  return analyze(bundle, {
    ...options,
    minAttention: settings.minAttention,
    splitThreshold: settings.splitThreshold,
    rules: exclusionRules(bundle, settings.rules, facts),
    facts,
  });
}

/** What a report's header names: the study, the moment of its data, and every rule in force with its threshold. */
export interface ReportHeader {
  study: string | null;
  title: string | null;
  exportedAt: string | null;
  rules: { reason: string; description: string }[];
  /** listener id → platform id, given only when the viewer's role may see them (the live report for a researcher) */
  platformIds?: Readonly<Record<string, string>>;
  /** the study's frozen analysis plan, its recorded changes and this analysis's deviations; absent: the bundle has none */
  plan?: PlanReport;
}

export function reportHeader(bundle: Bundle, settings: AnalysisSettings, options: ReportOptions = planOptions(bundle.study?.plan, {})): ReportHeader {
  const plan = planReport(bundle.study?.plan, { ...settings, ...options });
  return {
    study: bundle.study?.study ?? null,
    title: bundle.study?.title ?? null,
    exportedAt: bundle.study?.exportedAt ?? null,
    rules: describeRules(settings.minAttention, settings.rules, bundle),
    ...(plan && { plan }),
  };
}

/** The report as JSON carries it (`npm run analyze --format json` and the live report alike): with the plan's hash, changes and deviations when the bundle has a plan. */
export const reportWithPlan = (report: Report, header: ReportHeader): Report & { plan?: PlanReport } => (header.plan ? { ...report, plan: header.plan } : report);

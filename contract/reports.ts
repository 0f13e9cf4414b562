/**
 * The analyst's API: the export bundle, the live dashboard, the participants table and report links.
 */
import { z } from 'zod';
import { ITEM_KINDS } from './constants';
import { StudyId, StudyStatus } from './common';

/** The study export bundle (analysis-spec §1): each file's CSV text under its file name. */
export const ExportBundle = z.object({
  'items.csv': z.string(),
  'votes.csv': z.string(),
  'judge_scores.csv': z.string(),
  'listeners.csv': z.string(),
  'study.json': z.string(),
  /** a rating study's ratings (analysis-spec §4); absent for a caption pair study */
  'ratings.csv': z.string().optional(),
});
export type ExportBundle = z.infer<typeof ExportBundle>;


const Interval = z.tuple([z.number(), z.number()]);

/** A rating study's MOS figures: the report's `ratings` section (analysis-spec §4) in the dashboard's words. */
const RatingsSection = z.object({
  /** the study's scale [lowest, highest] */
  scale: Interval.nullable(),
  /** ratings of retained listeners on ordinary (non-attention) items */
  votes: z.number().int(),
  listeners: z.number().int(),
  /** best first: MOS with its t-interval, rank and the rank interval's width */
  systems: z.array(
    z.object({
      system: z.string(),
      n: z.number().int(),
      mos: z.number(),
      sd: z.number().nullable(),
      ci95: Interval.nullable(),
      rank: z.number().int(),
      rankCi: z.number().nullable(),
    }),
  ),
  krippendorffAlphaInterval: z.number().nullable(),
  krippendorffAlphaOrdinal: z.number().nullable(),
  /** the study's exclusion threshold on a listener's correlation with the panel; null when the rule is off */
  minListenerCorrelation: z.number().nullable(),
  /** listeners whose ratings correlate with the panel's mean below the threshold (Pearson r), lowest first */
  lowCorrelation: z.array(z.object({
    listener: z.string(),
    /** the platform id (PROLIFIC_PID, workerId) when the viewer is a researcher; null otherwise or without one */
    participant: z.string().nullable(),
    pearsonR: z.number(),
    n: z.number().int(),
  })),
});

/** Live figures of a running study, computed from the database by analysis/ on each request. */
export const Dashboard = z.object({
  study: StudyId,
  status: StudyStatus,
  generatedAt: z.string(),
  targetListeners: z.number().int(),
  listeners: z.object({
    started: z.number().int(),
    completed: z.number().int(),
    /** the headphone check failed and they did not finish */
    screenedOut: z.number().int(),
    /** started, neither finished nor screened out */
    inProgress: z.number().int(),
    /** listeners with at least one vote: the ones the analysis sees */
    voted: z.number().int(),
    retained: z.number().int(),
    excluded: z.number().int(),
    excludedByReason: z.record(z.string(), z.number().int()),
    /** per rule, listeners for whom its check could not run (reported, neither pass nor fail) */
    notRunByReason: z.record(z.string(), z.number().int()),
    /** the rules in force, e.g. attention ≥ 75% */
    rules: z.array(z.object({ reason: z.string(), description: z.string() })),
  }),
  /** Minutes from session start to the last vote, one entry per completed listener (sorted). */
  completionMinutes: z.array(z.number()),
  votes: z.object({
    /** answers on the study's trials, practice left out (practice teaches the task and is not data) */
    total: z.number().int(),
    /** answers on practice trials */
    practice: z.number().int(),
    /** per item (practice included), in study order */
    perItem: z.array(z.object({ seq: z.number().int(), kind: z.enum(ITEM_KINDS), votes: z.number().int() })),
    /** Scored items against the design's votes-per-item target (incomplete design); null: no target. */
    progress: z
      .object({ target: z.number().int(), complete: z.number().int(), started: z.number().int(), waiting: z.number().int() })
      .nullable(),
  }),
  attention: z.object({
    answered: z.number().int(),
    correct: z.number().int(),
    /** correct attention answers / all attention answers, over all listeners (the report's attention_pass_rate) */
    passRate: z.number().nullable(),
  }),
  screening: z.object({ kind: z.string(), passed: z.number().int(), failed: z.number().int(), notRun: z.number().int() }),
  /** The caption pairs' agreement (empty for a rating study, whose figures are under `ratings`). */
  reliability: z.object({
    items: z.number().int(),
    votes: z.number().int(),
    krippendorffAlpha: z.number().nullable(),
    fleissKappa: z.number().nullable(),
    brennanPredigerKappa: z.number().nullable(),
    meanPairwiseAgreement: z.number().nullable(),
    /** the a/b labelling α and Fleiss' κ are computed on */
    coding: z.string(),
  }),
  judges: z.array(
    z.object({
      judge: z.string(),
      items: z.number().int(),
      agreement: z.number().nullable(),
      ci95: z.tuple([z.number(), z.number()]).nullable(),
      cohenKappa: z.number().nullable(),
    }),
  ),
  /** A rating study's MOS section; null for a caption pair study. */
  ratings: RatingsSection.nullable(),
});
export type Dashboard = z.infer<typeof Dashboard>;

/**
 * One row of the studio's per-listener table: who the listener is on the recruiting platform,
 * how far they got, and the analysis' verdict. `excludedFor` comes from the live report's
 * exclusion list (analysis/report.ts), never from rules of the studio's own.
 */
export const ParticipantRow = z.object({
  listener: z.string(),
  /** PROLIFIC_PID, else MTurk's workerId, else null (a plain link) */
  participant: z.string().nullable(),
  /** every recorded link parameter */
  external: z.record(z.string(), z.string()),
  startedAt: z.string(),
  completedAt: z.string().nullable(),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  attention: z.object({ correct: z.number().int(), answered: z.number().int() }).nullable(),
  screening: z.enum(['passed', 'failed']).nullable(),
  /** exclusion reasons, the first being the one the report counts it under */
  excludedFor: z.array(z.string()),
  /** the completion code this listener was shown; null until they finished */
  completionCode: z.string().nullable(),
  /**
   * finished: shown the completion code; screened_out: the headphone check failed and they did not
   * finish; left: chose "Leave the study" on its page part-way; unfinished: stopped part-way without
   * saying; opened: opened the link only (no check taken, no trial answered)
   */
  status: z.enum(['finished', 'unfinished', 'left', 'screened_out', 'opened']),
  /** whether the analysis uses this listener's answers (answered, and excluded by no rule) */
  inAnalysis: z.boolean(),
  /**
   * What to do on the platform: APPROVE; REJECT only on a ground the study's approvals.rejectFor
   * names; RETURN for the screened out (Prolific's screen-out), for those who left from the page
   * and, unless the study rejects for it, for the unfinished; NONE for those who only opened the link (nothing was submitted).
   */
  decision: z.enum(['APPROVE', 'REJECT', 'RETURN', 'NONE']),
  /** Prolific's rejection_category of a REJECT (FAILED_CHECK, TOO_QUICKLY, …); null otherwise */
  rejectionCategory: z.string().nullable(),
  /** what was measured against what, e.g. "r = -0.13 < 0.25 over 15 items" */
  reason: z.string(),
});
export type ParticipantRow = z.infer<typeof ParticipantRow>;
export const ParticipantTable = z.object({ study: StudyId, participants: z.array(ParticipantRow) });
export type ParticipantTable = z.infer<typeof ParticipantTable>;

export const ReportLink = z.object({ url: z.string(), expiresAt: z.string() });
export type ReportLink = z.infer<typeof ReportLink>;

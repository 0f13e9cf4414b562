/**
 * The study's analysis plan (docs/analysis-plan.md): every setting the analysis of its votes
 * depends on, frozen when the study opens, with a content hash. Before the first vote an edit
 * simply freezes the plan again; after it, a change is refused or — when the study says
 * `analysis.planChanges: record` — applied and recorded with its time and the researcher's reason.
 * The export's study.json carries the plan, and the analysis checks the hash and lists every change.
 */
import type { StudyDefinition } from '../contract/study-definition';
import type { Db } from '../db/open';
import { planDifferences, planHash } from '../analysis/analysis-plan';
import { studyStore } from './store';

/** What the analysis applies, as study.json states it (the analysis reads these names: analysis/study-settings.ts). */
export type AnalysisPlanSettings = {
  kind: string;
  minAttention: number;
  splitThreshold: number;
  rules: Record<string, Record<string, unknown>>;
  /** how items.csv's a/b were assigned (the coding of α and Fleiss' κ) */
  orientation: string;
  ratingScale?: [number, number];
  trial: StudyDefinition['trial'];
  buckets: number;
  btPrior: number;
  bootstrap: number;
  bootstrapSeed: number;
};

export interface PlanChange {
  at: string;
  reason: string;
  fromHash: string;
  toHash: string;
  /** each changed setting: `path: before → after` */
  changed: string[];
}

/** The plan as the export writes it in study.json. */
export interface AnalysisPlan {
  hash: string;
  frozenAt: string;
  settings: AnalysisPlanSettings;
  changes: PlanChange[];
}

/** The plan's settings from a definition. */
export function planSettings(definition: StudyDefinition): AnalysisPlanSettings {
  const e = definition.exclusion;
  const a = definition.analysis;
  return {
    kind: definition.trial.kind,
    minAttention: e.minAttention,
    splitThreshold: a.splitThreshold,
    rules: {
      ...(e.minMedianResponseMs !== undefined && { fast: { minMedianResponseMs: e.minMedianResponseMs } }),
      ...(e.maxListeningViolations !== undefined && { listening: { maxListeningViolations: e.maxListeningViolations, requirement: definition.listening } }),
      ...(e.maxHiddenMs !== undefined && { hidden: { maxHiddenMs: e.maxHiddenMs } }),
      // A study that never screens has nothing to exclude on.
      ...(e.excludeFailedScreening && definition.screening.kind !== 'none' && { screening: { excludeFailedScreening: true as const } }),
      ...(e.minListenerCorrelation !== undefined && { correlation: { minListenerCorrelation: e.minListenerCorrelation } }),
    },
    orientation: definition.items.mode === 'sample'
      ? `a seeded coin per item (seed ${definition.seed}), balanced so each system is a in half of its items (±1)`
      : 'as the study lists its items (systemA = a)',
    ...(definition.trial.kind === 'rating' && { ratingScale: [1, definition.trial.scale.points] as [number, number] }),
    trial: definition.trial,
    buckets: a.buckets,
    btPrior: a.btPrior,
    bootstrap: a.bootstrap,
    bootstrapSeed: a.bootstrapSeed,
  };
}

/** An edit of a frozen plan after the first vote that the study refuses, or records only with a reason. */
export class PlanFrozenError extends Error {
  constructor(
    readonly studyId: string,
    readonly changed: string[],
    /** whether the study records changes (then only the reason is missing) */
    readonly recordable: boolean,
    frozen: { hash: string; frozenAt: string },
  ) {
    const what = changed.join('; ');
    super(
      recordable
        ? `study ${studyId} has votes and its analysis plan (${frozen.hash}, frozen ${frozen.frozenAt}) would change (${what}): give the reason for the change, and it is recorded in the plan`
        : `study ${studyId} has votes and its analysis plan (${frozen.hash}, frozen ${frozen.frozenAt}) is frozen; this edit changes ${what}. ` +
          'Keep those settings, or set analysis.planChanges: record and give a reason to record the change in the plan',
    );
    this.name = 'PlanFrozenError';
  }
}

/** The study's plan with its changes; null when it was never opened (or opened before plans existed). */
export function readAnalysisPlan(db: Db, studyId: string): AnalysisPlan | null {
  const store = studyStore(db);
  const row = store.analysisPlan(studyId);
  if (row === undefined) return null;
  return {
    hash: row.hash,
    frozenAt: row.frozenAt,
    settings: JSON.parse(row.settings) as AnalysisPlanSettings,
    changes: store.analysisPlanChanges(studyId).map((c) => ({ ...c, changed: JSON.parse(c.changed) as string[] })),
  };
}

/** Freezes the plan when the study opens (inside its transaction); a study reopened after a pause keeps its plan. */
export function freezePlanAtOpening(db: Db, studyId: string, definition: StudyDefinition, at: string): void {
  const store = studyStore(db);
  if (store.analysisPlan(studyId) !== undefined) return;
  const settings = planSettings(definition);
  store.writeAnalysisPlan(studyId, planHash(settings), JSON.stringify(settings), at);
}

/**
 * A definition about to replace the study's (inside writeStudy's transaction): before the first vote
 * the plan is frozen again as it now stands; after it a change is refused, or recorded with `reason`.
 */
export function applyPlanEdit(db: Db, studyId: string, definition: StudyDefinition, votes: number, at: string, reason?: string): void {
  const store = studyStore(db);
  const frozen = store.analysisPlan(studyId);
  if (frozen === undefined) return;
  const settings = planSettings(definition);
  const hash = planHash(settings);
  if (hash === frozen.hash) return;
  if (votes === 0) {
    store.writeAnalysisPlan(studyId, hash, JSON.stringify(settings), at);
    return;
  }
  const changed = planDifferences(JSON.parse(frozen.settings), settings);
  const recordable = definition.analysis.planChanges === 'record';
  if (!recordable || reason === undefined) throw new PlanFrozenError(studyId, changed, recordable, frozen);
  store.recordPlanChange(studyId, { at, reason, fromHash: frozen.hash, toHash: hash, changed: JSON.stringify(changed) });
  store.updateAnalysisPlan(studyId, hash, JSON.stringify(settings));
}

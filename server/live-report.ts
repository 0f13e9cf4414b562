/**
 * The analysis report of a study as it stands, computed from the database on request: the
 * export's own rows become the bundle the export would write (held in memory, checked row by
 * row as `npm run analyze` checks the files) and go through the offline analysis with the
 * settings of that bundle's study.json. So the dashboard, the live JSON report, the HTML report
 * and `npm run analyze` on an export of the same moment give the same JSON.
 */
import type { Report } from '../analysis/report';
import type { RatingsReport } from '../trials/rating/report';
import { planOptions } from '../analysis/analysis-plan';
import { paperFiles } from '../analysis/paper/index';
import { analyzeStudy, reportHeader, resolveSettings, type AnalysisSettings, type ReportHeader } from '../analysis/study-settings';
import { liveBundle } from './bundle';
import type { Db } from '../db/open';
import type { Dashboard } from '../contract/reports';
import { exportRepository, type ExportRows } from './store/export';
import { liveRepository } from './store/live';
import { voteTarget } from '../studies/design';

export interface LiveReport {
  report: Report;
  /** Each rule in force, in the order analyze() applies them (attention first). */
  rules: { reason: string; description: string }[];
  /** the HTML report's header: study, export moment, rules with thresholds */
  header: ReportHeader;
}

interface Analysed extends LiveReport {
  settings: AnalysisSettings;
}

function reportOf(rows: ExportRows): Analysed {
  const bundle = liveBundle(rows);
  const settings = resolveSettings(bundle.study);
  // The plan's buckets and prior; never its bootstrap, which would hold the live figures for minutes
  // on a large study (the header names that departure; `npm run analyze` runs it).
  const options = { ...planOptions(bundle.study?.plan, {}), bootstrap: null };
  const header = reportHeader(bundle, settings, options);
  return { report: analyzeStudy(bundle, settings, options), rules: header.rules, header, settings };
}

/** The report's `ratings` section in the dashboard's words; the listeners below the correlation rule's threshold, lowest first. */
function ratingsSection(ratings: RatingsReport | undefined, settings: AnalysisSettings, platformIds: ReadonlyMap<string, string> | null): Dashboard['ratings'] {
  if (!ratings) return null;
  const min = settings.rules.correlation?.minListenerCorrelation ?? null;
  return {
    scale: ratings.scale,
    votes: ratings.votes,
    listeners: ratings.listeners,
    systems: ratings.systems.map((s) => ({ system: s.system, n: s.n, mos: s.mos, sd: s.sd, ci95: s.ci95, rank: s.rank, rankCi: s.rank_ci })),
    krippendorffAlphaInterval: ratings.reliability.krippendorff_alpha_interval,
    krippendorffAlphaOrdinal: ratings.reliability.krippendorff_alpha_ordinal,
    minListenerCorrelation: min,
    lowCorrelation: min === null ? [] : ratings.listener_correlation
      .flatMap((c) => (c.pearson_r !== null && c.pearson_r < min ? [{ listener: c.listener_id, participant: platformIds?.get(c.listener_id) ?? null, pearsonR: c.pearson_r, n: c.n }] : []))
      .sort((a, b) => a.pearsonR - b.pearsonR),
  };
}

export function liveReport(db: Db, studyId: string): LiveReport {
  return reportOf(exportRepository(db).rows(studyId));
}

/**
 * Scored items against the design's per-item target (exact targets, studies/design.ts): how many
 * have it, how many have some votes, how many none; null when the design sets no target.
 */
function targetProgress(perItem: readonly { kind: string; votes: number }[], target: number | null): Dashboard['votes']['progress'] {
  if (target === null) return null;
  const scored = perItem.filter((i) => i.kind !== 'attention' && i.kind !== 'practice');
  return {
    target,
    complete: scored.filter((i) => i.votes >= target).length,
    started: scored.filter((i) => i.votes > 0 && i.votes < target).length,
    waiting: scored.filter((i) => i.votes === 0).length,
  };
}

/**
 * The dashboard's figures: counts straight from the database, statistics and exclusions from the
 * live report. `platformIds` (listener → platform id) only for a viewer whose role may see them.
 */
export function dashboard(db: Db, studyId: string, status: Dashboard['status'], platformIds: ReadonlyMap<string, string> | null = null): Dashboard {
  const live = liveRepository(db);
  const rows = exportRepository(db).rows(studyId);
  const { definition } = rows;
  const { report, rules, settings } = reportOf(rows);
  const { started, completed, screenedOut } = live.listeners(studyId);
  const perItem = live.votesPerItem(studyId);
  const attention = live.attention(studyId);
  const screening = rows.listeners.map((l) => l.screening);
  return {
    study: studyId,
    status,
    generatedAt: new Date().toISOString(),
    targetListeners: definition.targetListeners,
    listeners: {
      started,
      completed,
      screenedOut,
      inProgress: started - completed - screenedOut,
      voted: report.listeners.total,
      retained: report.listeners.retained,
      excluded: report.listeners.excluded.length,
      excludedByReason: report.listeners.excluded_by_reason,
      notRunByReason: report.listeners.not_run_by_reason,
      rules,
    },
    completionMinutes: live.completionSeconds(studyId).map((s) => s / 60),
    votes: {
      total: perItem.reduce((n, i) => n + (i.kind === 'practice' ? 0 : i.votes), 0),
      practice: perItem.reduce((n, i) => n + (i.kind === 'practice' ? i.votes : 0), 0),
      perItem,
      progress: targetProgress(perItem, voteTarget(definition.design)),
    },
    attention: {
      answered: attention.reduce((n, a) => n + a.answered, 0),
      correct: attention.reduce((n, a) => n + a.correct, 0),
      passRate: report.listeners.attention_pass_rate,
    },
    screening: {
      kind: definition.screening.kind,
      passed: screening.filter((s) => s === 'passed').length,
      failed: screening.filter((s) => s === 'failed').length,
      notRun: definition.screening.kind === 'none' ? 0 : screening.filter((s) => s === null).length,
    },
    reliability: {
      items: report.reliability.items,
      votes: report.reliability.votes,
      krippendorffAlpha: report.reliability.krippendorff_alpha,
      fleissKappa: report.reliability.fleiss_kappa,
      brennanPredigerKappa: report.reliability.brennan_prediger_kappa,
      meanPairwiseAgreement: report.reliability.mean_pairwise_agreement,
      coding: report.reliability.coding,
    },
    judges: report.judges.map((j) => ({ judge: j.judge, items: j.n, agreement: j.agreement, ci95: j.ci95, cohenKappa: j.cohen_kappa })),
    ratings: ratingsSection(report.ratings, settings, platformIds),
  };
}

/**
 * The study's paper bundle (analysis/paper) from its live bundle, as `npm run analyze -- <export>
 * --format paper` writes it: under the plan's options, bootstrap included (the figures thread runs
 * it, off the event loop), so the studio's download and the command give the same tables.
 */
export function livePaper(db: Db, studyId: string): [string, string][] {
  const bundle = liveBundle(exportRepository(db).rows(studyId));
  const settings = resolveSettings(bundle.study);
  const options = planOptions(bundle.study?.plan, {});
  const report = analyzeStudy(bundle, settings, options);
  return paperFiles(bundle, report, reportHeader(bundle, settings, options), settings, {
    buckets: options.buckets, btPrior: options.btPrior, bootstrap: options.bootstrap,
  });
}

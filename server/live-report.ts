/**
 * The analysis report of a study as it stands, computed from the database on request: the
 * export rows go through analysis' own validation (buildBundle) and analyze(), with the study's
 * exclusion rules fed by per-listener facts from the votes and the headphone screening. No
 * file is written; the dashboard, the live JSON report and the HTML report all come from here.
 */
import { buildBundle } from '../analysis/bundle';
import { maxListeningViolations, minMedianResponseTime, requireScreening, type ExclusionRule } from '../analysis/exclusion';
import { analyze, type Report } from '../analysis/report';
import type { Db } from './db/open';
import type { Dashboard } from './contract';
import { exportRepository } from './store/export';
import { liveRepository } from './store/live';
import { exclusionRules, readStudyDefinition } from '../studies/settings';

export interface LiveReport {
  report: Report;
  /** Each rule in force, in the order analyze() applies them (attention first). */
  rules: { reason: string; description: string }[];
}

export function liveReport(db: Db, studyId: string): LiveReport {
  const definition = readStudyDefinition(db, studyId);
  const config = exclusionRules(definition);
  const facts = liveRepository(db).listenerFacts(studyId, config.listening);
  const rows = exportRepository(db).rows(studyId);
  const bundle = buildBundle({
    items: rows.items.map((i) => ({ ...i, attention: i.attention === 1 })),
    votes: rows.votes,
    judgeScores: rows.judgeScores,
  });

  const rules: ExclusionRule[] = [];
  const described = [{ reason: 'attention', description: `attention checks ≥ ${Math.round(config.minAttention * 100)}% right` }];
  if (config.minMedianResponseMs !== null) {
    rules.push(minMedianResponseTime(config.minMedianResponseMs, facts));
    described.push({ reason: 'median_response_time', description: `median response ≥ ${config.minMedianResponseMs} ms` });
  }
  if (config.maxListeningViolations !== null) {
    rules.push(maxListeningViolations(config.maxListeningViolations, facts));
    described.push({ reason: 'listening_violations', description: `≤ ${config.maxListeningViolations} trials answered before the listening requirement was met` });
  }
  if (config.excludeFailedScreening) {
    rules.push(requireScreening(facts));
    described.push({ reason: 'screening', description: `headphone screening (${config.screening.kind}) passed` });
  }
  return { report: analyze(bundle, { minAttention: config.minAttention, rules }), rules: described };
}

/** The dashboard's figures: counts straight from the database, statistics from the live report. */
export function dashboard(db: Db, studyId: string, status: Dashboard['status']): Dashboard {
  const live = liveRepository(db);
  const definition = readStudyDefinition(db, studyId);
  const { report, rules } = liveReport(db, studyId);
  const { started, completed } = live.listeners(studyId);
  const perItem = live.votesPerItem(studyId);

  const attention = live.attention(studyId);
  const minAttention = definition.exclusion.minAttention;
  const passed = attention.filter((a) => a.correct / a.answered >= minAttention).length;
  // A listener who voted but has met no attention check yet: the attention rule could not run.
  const notRunByReason = { ...report.listeners.not_run_by_reason };
  const attentionNotRun = report.listeners.total - attention.length;
  if (attentionNotRun > 0) notRunByReason.attention = attentionNotRun;

  const screening = [...live.screeningOutcomes(studyId).values()];
  return {
    study: studyId,
    status,
    generatedAt: new Date().toISOString(),
    targetListeners: definition.targetListeners,
    listeners: {
      started,
      completed,
      inProgress: started - completed,
      voted: report.listeners.total,
      retained: report.listeners.retained,
      excluded: report.listeners.excluded.length,
      excludedByReason: report.listeners.excluded_by_reason,
      notRunByReason,
      rules,
    },
    completionMinutes: live.completionSeconds(studyId).map((s) => s / 60),
    votes: { total: perItem.reduce((n, i) => n + i.votes, 0), perItem },
    attention: {
      answered: attention.reduce((n, a) => n + a.answered, 0),
      correct: attention.reduce((n, a) => n + a.correct, 0),
      passRate: attention.length > 0 ? passed / attention.length : null,
    },
    screening: {
      kind: definition.screening.kind,
      passed: screening.filter((s) => s === 'pass').length,
      failed: screening.filter((s) => s === 'fail').length,
      notRun: definition.screening.kind === 'none' ? 0 : screening.filter((s) => s === null).length,
    },
    reliability: {
      items: report.reliability.items,
      votes: report.reliability.votes,
      krippendorffAlpha: report.reliability.krippendorff_alpha,
      fleissKappa: report.reliability.fleiss_kappa,
      meanPairwiseAgreement: report.reliability.mean_pairwise_agreement,
    },
    judges: report.judges.map((j) => ({ judge: j.judge, items: j.n, agreement: j.agreement, ci95: j.ci95, cohenKappa: j.cohen_kappa })),
  };
}

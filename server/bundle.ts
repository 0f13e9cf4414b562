import {
  buildBundle, bundleTexts, writeBundle, type Bundle, type BundleTexts, type BundleToWrite, type BundleVote, type RatingToWrite,
} from '../analysis/bundle';
import type { StudySettings } from '../analysis/study-settings';
import { answerCell } from '../contract/questionnaire';
import type { ExportRows } from './store/export';
import { trialKinds } from './store/trials';

// What a vote records beyond the spec's columns (votes.csv's four, ratings.csv's five), written after them.
const EXTRA_VOTE_COLUMNS = [
  'position', 'play_count', 'seconds_listened', 'heard_to_end', 'hidden_ms', 'response_ms', 'client_ts', 'server_ts', 'vote_id',
] as const;
// listeners.csv after the study's link parameters: the completion code the listener was shown, then (in a
// study that asks for them) the listener's end-of-study comments.
const MORE_LISTENER_COLUMNS = ['completion_code'] as const;

/** study.json: the settings and rules the analysis applies, as the study defines them (analysis-spec §1). */
function studySettings(rows: ExportRows, exportedAt: string): StudySettings {
  const { definition } = rows;
  const e = definition.exclusion;
  return {
    study: rows.studyId,
    exportedAt,
    minAttention: e.minAttention,
    splitThreshold: definition.analysis.splitThreshold,
    rules: {
      ...(e.minMedianResponseMs !== undefined && { fast: { minMedianResponseMs: e.minMedianResponseMs } }),
      ...(e.maxListeningViolations !== undefined && { listening: { maxListeningViolations: e.maxListeningViolations, requirement: definition.listening } }),
      ...(e.maxHiddenMs !== undefined && { hidden: { maxHiddenMs: e.maxHiddenMs } }),
      // A study that never screens has nothing to exclude on.
      ...(e.excludeFailedScreening && definition.screening.kind !== 'none' && { screening: { excludeFailedScreening: true as const } }),
      ...(e.minListenerCorrelation !== undefined && { correlation: { minListenerCorrelation: e.minListenerCorrelation } }),
    },
    linkParameters: definition.linkParameters,
    orientation: definition.items.mode === 'sample'
      ? `a seeded coin per item (seed ${definition.seed}), balanced so each system is a in half of its items (±1)`
      : 'as the study lists its items (systemA = a)',
    ...(definition.trial.kind === 'rating' && { ratingScale: [1, definition.trial.scale.points] as [number, number] }),
    title: definition.title,
  };
}

/** A study's export rows in the analysis module's bundle shape (the one CSV writer). */
function toBundle(rows: ExportRows, exportedAt = new Date().toISOString()): BundleToWrite {
  const links = rows.definition.linkParameters;
  const questions = rows.definition.questions;
  // Each answer goes to its kind's file; a rating study's bundle has ratings.csv even before its first rating.
  const answers: { 'votes.csv': BundleVote[]; 'ratings.csv': RatingToWrite[] } = { 'votes.csv': [], 'ratings.csv': [] };
  for (const vote of rows.votes) {
    const { item_id, listener_id, trial_kind, system_a, utterance_id, first, chosen, score, ...extra } = vote;
    const to = trialKinds[trial_kind].answers;
    if (to.file === 'votes.csv') answers['votes.csv'].push(to.row(vote, extra));
    else answers['ratings.csv'].push(to.row(vote, extra));
  }
  return {
    items: rows.items.map((i) => trialKinds[i.trial_kind].bundleItem(i)),
    votes: answers['votes.csv'],
    ...(trialKinds[rows.definition.trial.kind].answers.file === 'ratings.csv' && { ratings: answers['ratings.csv'] }),
    judgeScores: rows.judgeScores,
    // A study with a comment box on its trials adds `comment` after every other column.
    extraVoteColumns: [...EXTRA_VOTE_COLUMNS, ...(rows.definition.trialComments ? ['comment'] : [])],
    listeners: rows.listeners.map((l) => ({
      listener_id: l.listener_id,
      started_at: l.started_at,
      completed_at: l.completed_at,
      screening: l.screening,
      more: {
        ...Object.fromEntries(links.map((p) => [p, l.external[p] ?? ''])),
        completion_code: l.completion_code,
        ...(rows.definition.comments && { comments: l.comments }),
        ...Object.fromEntries(questions.map((q) => [q.id, answerCell(l.answers[q.id])])),
      },
    })),
    // The study's questions last, each a column named by its id, in the order the study lists them.
    extraListenerColumns: [...links, ...MORE_LISTENER_COLUMNS, ...(rows.definition.comments ? ['comments'] : []), ...questions.map((q) => q.id)],
    study: studySettings(rows, exportedAt),
  };
}

/** Writes a study's bundle directory (`npm run export`). */
export function writeStudyBundle(dir: string, rows: ExportRows): Promise<void> {
  return writeBundle(dir, toBundle(rows));
}

/** The bundle as text, for the export endpoint; a study's export always has listeners.csv and study.json (a rating study's ratings.csv too). */
export function bundleFiles(rows: ExportRows): BundleTexts & Record<'listeners.csv' | 'study.json', string> {
  return bundleTexts(toBundle(rows)) as BundleTexts & Record<'listeners.csv' | 'study.json', string>;
}

/** The bundle the export would write, in memory, for the live report (analysis-spec §1: same moment, same JSON). */
export function liveBundle(rows: ExportRows): Bundle {
  return buildBundle(toBundle(rows));
}

import {
  buildBundle, bundleFileChunks, bundleTexts, writeBundle, type Bundle, type BundleStimulus, type BundleTexts, type BundleToWrite, type BundleVote,
  type KindFactsToWrite, type KindRowsToWrite, type RatingToWrite,
} from '../analysis/bundle';
import type { StudySettings } from '../analysis/study-settings';
import { planSettings } from '../studies/analysis-plan';
import { describeStudyLoudness } from '../audio-manifest/served';
import { answerCell } from '../contract/questionnaire';
import { platformId, pseudonym } from './pseudonym';
import type { ExportRows, ExportVote } from './store/export';

/** Rows with their votes in memory or read as they go (a snapshot). */
type Rows = ExportRows<Iterable<ExportVote>>;
import { isKindAnswerFile, trialKinds, type KindAnswerFile } from './store/trials';

// What a vote records beyond the spec's columns (votes.csv's four, ratings.csv's five), written after them.
const EXTRA_VOTE_COLUMNS = [
  'position', 'play_count', 'seconds_listened', 'heard_to_end', 'hidden_ms', 'response_ms', 'client_ts', 'server_ts', 'vote_id',
  // When the trial's item was given to the listener (an adaptive study: chosen when first served; spec §5.7).
  'assigned_at',
] as const;
// listeners.csv after the study's link parameters: the completion code the listener was shown, then (in a
// study that asks for them) the listener's end-of-study comments.
const MORE_LISTENER_COLUMNS = ['completion_code'] as const;
/** The column an analyst's listeners.csv has in place of the link parameters. */
const PSEUDONYM_COLUMN = 'participant_pseudonym';

/**
 * Whom an export is for (docs/security.md, "Roles"): a researcher's listeners.csv keeps the link
 * parameters the study records (PROLIFIC_PID, STUDY_ID, SESSION_ID, …), which identify the
 * participant on the platform and resume their session; an analyst's has the listener id and a
 * keyed pseudonym of the platform id instead.
 */
export type ExportView = { role: 'researcher' } | { role: 'analyst'; pseudonymKey: string };
const RESEARCHER: ExportView = { role: 'researcher' };

/** study.json: the settings and rules the analysis applies, as the study defines them (analysis-spec §1), and its frozen plan. */
function studySettings(rows: Rows, exportedAt: string): StudySettings {
  const { definition } = rows;
  const settings = planSettings(definition);
  return {
    study: rows.studyId,
    exportedAt,
    minAttention: settings.minAttention,
    splitThreshold: settings.splitThreshold,
    rules: settings.rules,
    linkParameters: definition.linkParameters,
    orientation: settings.orientation,
    ...(settings.ratingScale && { ratingScale: settings.ratingScale }),
    title: definition.title,
    // A kind with a file of its own reads its settings (study.trial); the core kinds' study.json stays as it was.
    ...(isKindAnswerFile(trialKinds[definition.trial.kind].answers) && { trial: definition.trial }),
    // An adaptive study names the rule that chose its items and its settings (spec §5.7).
    ...(definition.design.kind === 'adaptive' && { design: { ...definition.design, rule: definition.trial.kind === 'rating' ? 'widest-ci' : 'bt-uncertainty' } }),
    // A study opened before plans existed has neither, and its study.json stays as it was.
    ...(rows.plan && { methods: studyMethods(definition), plan: rows.plan }),
  };
}

/** An adaptive design's stopping rule in words. */
export function describeStop(stop: Extract<Rows['definition']['design'], { kind: 'adaptive' }>['stop']): string {
  return [
    stop.votes !== undefined && `${stop.votes} votes`,
    stop.ciHalfWidth !== undefined && `a mean 95% CI half-width of ${stop.ciHalfWidth}`,
    stop.separated && 'every adjacent rank separated',
  ].filter(Boolean).join(' or ');
}

/** What the paper bundle's methods.md quotes of the study as it was run (analysis/study-settings.ts StudyMethods). */
function studyMethods(definition: Rows['definition']): NonNullable<StudySettings['methods']> {
  const { design, trial, screening, loudness } = definition;
  return {
    design: design.kind === 'incomplete'
      ? `incomplete: each listener answers ${design.itemsPerListener} items, each item is answered by ${design.ratingsPerItem} listeners (a session unanswered for ${design.abandonAfterMinutes} minutes gives its items back)`
      : design.kind === 'adaptive'
        ? `adaptive: each listener answers ${design.itemsPerListener} items, each chosen when it was served from the votes so far (${trial.kind === 'rating' ? 'the system with the widest MOS CI' : 'the system pair whose Bradley–Terry comparison was least settled, at most ' + design.maxPairRepeats + ' times per listener'}); assignment stopped at ${describeStop(design.stop)}`
        : 'crossed: every listener answers every item',
    instructions: definition.instructions,
    question: definition.question,
    ...(trial.kind === 'rating' && trial.scale.labels && {
      scale: { labels: trial.scale.labels.map((label, i) => ({ value: i + 1, label })), increment: 1 },
    }),
    screening,
    loudness: { normalize: loudness.normalize, measure: loudness.measure, target: loudness.target, dither: loudness.dither },
    processing:
      `Listeners heard a copy of each clip made for the study: decoded and written as 16-bit PCM WAV with a new header and no metadata, at ${describeStudyLoudness(loudness)}` +
      `, peak-limited to −1 dBFS${loudness.dither ? ', TPDF-dithered where re-quantised' : ''}; served under opaque ids (docs/blinding.md).`,
  };
}

/** The answers that go to one export file, in the order stored; read again on each pass, as the votes are. */
function answersIn<T extends BundleVote | RatingToWrite>(rows: Rows, file: 'votes.csv' | 'ratings.csv'): Iterable<T> {
  const items = new Map(rows.items.map((i) => [i.item_id, i]));
  return {
    *[Symbol.iterator]() {
      for (const vote of rows.votes) {
        const { item_id, listener_id, answer, ...extra } = vote;
        const item = items.get(item_id)!;
        const to = trialKinds[item.trial_kind].answers;
        if (!isKindAnswerFile(to) && to.file === file) yield to.row(vote, item, extra) as T;
      }
    },
  };
}

/**
 * Each kind's own answers file (analysis-spec §5) the study has: that of the study's kind (its
 * header even before the first answer) and of any kind its items are; every answer's rows, each
 * with the vote's further columns, read again on each pass.
 */
function answerFiles(rows: Rows): KindRowsToWrite[] {
  const kinds = new Map<string, KindAnswerFile>();
  for (const kind of [rows.definition.trial.kind, ...new Set(rows.items.map((i) => i.trial_kind))]) {
    const to = trialKinds[kind].answers;
    if (isKindAnswerFile(to)) kinds.set(to.file, to);
  }
  const items = new Map(rows.items.map((i) => [i.item_id, i]));
  return [...kinds.values()].map((to) => ({
    file: to.file,
    columns: to.columns,
    rows: {
      *[Symbol.iterator]() {
        for (const vote of rows.votes) {
          const item = items.get(vote.item_id)!;
          if (trialKinds[item.trial_kind].answers !== to) continue;
          const { item_id: _item, listener_id: _listener, answer: _answer, ...extra } = vote;
          for (const cells of to.rows(vote, item)) yield { cells, extra };
        }
      },
    },
  }));
}

/** The study's kind's file of item facts (tags: metadata.csv), one row per fact of each item; none for other kinds. */
function factFiles(rows: Rows): KindFactsToWrite[] {
  const to = trialKinds[rows.definition.trial.kind].answers;
  if (!isKindAnswerFile(to) || !to.facts) return [];
  const { file, columns, rows: factsOf } = to.facts;
  return [{ file, columns, rows: rows.items.flatMap((i) => factsOf(i)) }];
}

/**
 * stimuli.csv (analysis-spec §5.3): the stimuli of every item with more than two, and of every
 * item when the study's kind asks for them; null when there are none to write.
 */
function stimuliOf(rows: Rows): BundleStimulus[] | null {
  const to = trialKinds[rows.definition.trial.kind].answers;
  const all = isKindAnswerFile(to) && to.stimuli === true;
  const stimuli = rows.items.filter((i) => all || i.stimuli.length > 2)
    .flatMap((i) => i.stimuli.map((s) => ({ item_id: i.item_id, slot: s.slot, role: s.role, system: s.system ?? '' })));
  return all || stimuli.length > 0 ? stimuli : null;
}

/** A study's export rows in the analysis module's bundle shape (the one CSV writer), as `view` may see them. */
function toBundle(rows: Rows, view: ExportView = RESEARCHER, exportedAt = new Date().toISOString()): BundleToWrite {
  const links = rows.definition.linkParameters;
  const questions = rows.definition.questions;
  const files = answerFiles(rows);
  const facts = factFiles(rows);
  const stimuli = stimuliOf(rows);
  const comments = rows.definition.comments ? ['comments'] : [];
  const identifying = (external: Record<string, string>) => {
    if (view.role === 'researcher') return Object.fromEntries(links.map((p) => [p, external[p] ?? '']));
    const id = platformId(external);
    return { [PSEUDONYM_COLUMN]: id === null ? '' : pseudonym(view.pseudonymKey, id) };
  };
  return {
    items: rows.items.map((i) => trialKinds[i.trial_kind].bundleItem(i)),
    // Each answer goes to its kind's file; a rating study's bundle has ratings.csv even before its first rating.
    votes: answersIn<BundleVote>(rows, 'votes.csv'),
    ...(trialKinds[rows.definition.trial.kind].answers.file === 'ratings.csv' && { ratings: answersIn<RatingToWrite>(rows, 'ratings.csv') }),
    ...(files.length > 0 && { answerFiles: files }),
    ...(facts.length > 0 && { factFiles: facts }),
    ...(stimuli && { stimuli }),
    judgeScores: rows.judgeScores,
    // A study with a comment box on its trials adds `comment` after every other column.
    extraVoteColumns: [...EXTRA_VOTE_COLUMNS, ...(rows.definition.trialComments ? ['comment'] : [])],
    listeners: rows.listeners.map((l) => ({
      listener_id: l.listener_id,
      started_at: l.started_at,
      completed_at: l.completed_at,
      screening: l.screening,
      more: {
        ...identifying(l.external),
        completion_code: l.completion_code,
        ...(rows.definition.comments && { comments: l.comments }),
        ...Object.fromEntries(questions.map((q) => [q.id, answerCell(l.answers[q.id])])),
      },
    })),
    // The study's questions last, each a column named by its id, in the order the study lists them.
    extraListenerColumns: [...(view.role === 'researcher' ? links : [PSEUDONYM_COLUMN]), ...MORE_LISTENER_COLUMNS, ...comments, ...questions.map((q) => q.id)],
    study: studySettings(rows, exportedAt),
  };
}

/** Writes a study's bundle directory (`npm run export`). */
export function writeStudyBundle(dir: string, rows: Rows): Promise<void> {
  return writeBundle(dir, toBundle(rows));
}

/** The bundle as text, as `view` may see it; a study's export always has listeners.csv and study.json (a rating study's ratings.csv too). */
export function bundleFiles(rows: Rows, view: ExportView = RESEARCHER): BundleTexts & Record<'listeners.csv' | 'study.json', string> {
  return bundleTexts(toBundle(rows, view)) as BundleTexts & Record<'listeners.csv' | 'study.json', string>;
}

/** The same files as bundleFiles, each as pieces made as the rows are read: what a streamed download sends. */
export function bundleChunks(rows: Rows, view: ExportView = RESEARCHER): Iterable<[keyof BundleTexts, Iterable<string>]> {
  return bundleFileChunks(toBundle(rows, view));
}

/** The bundle the export would write, in memory, for the live report (analysis-spec §1: same moment, same JSON). */
export function liveBundle(rows: Rows): Bundle {
  return buildBundle(toBundle(rows));
}

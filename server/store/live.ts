import type { Db } from '../../db/open';
import { screeningOutcome } from './export';
import type { Trial } from '../../contract/listener';
import { countItemKinds, type ItemKind } from '../../contract/constants';
import type { TrialKind, TrialSettings } from '../../contract/trials';
import { trialKinds, type AnswerDocument } from './trials';
import { SERVED_STIMULI_SQL, servedStimuli } from './trials/served';
import { systemsOf } from '../../studies/stimuli';

export interface ItemPreview {
  seq: number;
  kind: ItemKind;
  systems: string[];
  expected: string | null;
  trial: Trial;
}

/**
 * What the studio reads about a study while it runs: listener and vote counts and every trial
 * as listeners receive it (for preview). Read-only; exclusions and statistics are not here: the
 * dashboard takes them from the live report (the export's rows through analysis/).
 */
export function liveRepository(db: Db) {
  // Screened out: the headphone check failed and the listener did not finish (they are not "in progress").
  const listenerCounts = db.prepare<[string], { started: number; completed: number; screenedOut: number }>(`
    SELECT count(*) AS started, count(completed_at) AS completed,
           count(CASE WHEN completed_at IS NULL AND json_extract(screening, '$.passed') = 0 THEN 1 END) AS screenedOut
    FROM listeners WHERE study_id = ?`);
  const completionSeconds = db.prepare<[string], { seconds: number }>(`
    SELECT (julianday(completed_at) - julianday(created_at)) * 86400.0 AS seconds
    FROM listeners WHERE study_id = ? AND completed_at IS NOT NULL ORDER BY seconds`);
  const votesPerItem = db.prepare<[{ study: string }], { seq: number; kind: ItemKind; votes: number }>(`
    WITH voted AS (SELECT v.item_id, count(*) AS n FROM listeners l JOIN votes v ON v.listener_id = l.id WHERE l.study_id = :study GROUP BY v.item_id)
    SELECT i.seq, i.kind, COALESCE(voted.n, 0) AS votes FROM items i LEFT JOIN voted ON voted.item_id = i.id
    WHERE i.study_id = :study ORDER BY i.seq`);
  const itemCounts = db.prepare<[string], { kind: ItemKind; n: number }>(
    'SELECT kind, count(*) AS n FROM items WHERE study_id = ? GROUP BY kind',
  );
  // Whether an answer is right is its kind's to say (server/store/trials), so the answers are read and counted here.
  const attentionAnswers = db.prepare<[string], { answer: string; listener_id: string; trial_kind: TrialKind; expected: string }>(`
    SELECT v.listener_id, i.trial_kind, v.answer, i.expected
    FROM listeners l JOIN votes v ON v.listener_id = l.id JOIN items i ON i.id = v.item_id WHERE l.study_id = ? AND i.kind = 'attention'
    ORDER BY v.listener_id`);
  const screenings = db.prepare<[string], { id: string; screening: string | null }>(
    'SELECT id, screening FROM listeners WHERE study_id = ?',
  );
  // Progress counts the trials the listener sees (practice included), as their progress bar does.
  const participantRows = db.prepare<
    [string],
    { id: string; external: string; created_at: string; completed_at: string | null; left_at: string | null; completion_code: string | null; total: number; done: number }
  >(`
    SELECT l.id, l.external, l.created_at, l.completed_at, l.left_at, l.completion_code,
           (SELECT count(*) FROM assignments a WHERE a.listener_id = l.id) AS total,
           (SELECT count(*) FROM votes v WHERE v.listener_id = l.id) AS done
    FROM listeners l WHERE l.study_id = ? ORDER BY l.created_at, l.id`);
  const previewRows = db.prepare<
    [string],
    { seq: number; kind: ItemKind; trial_kind: TrialKind; expected: string | null; stimuli: string; slots: string }
  >(`
    SELECT i.seq, i.kind, i.trial_kind, i.expected, ${SERVED_STIMULI_SQL} AS stimuli,
           (SELECT json_group_array(json_extract(e.value, '$.slot') ORDER BY e.key) FROM json_each(i.stimuli) e) AS slots
    FROM items i WHERE i.study_id = ? ORDER BY i.seq`);

  // What a live figure depends on: the last committed vote, what can change about listeners, and the study row.
  const version = db.prepare<[string], { v: string }>(`
    SELECT s.status || char(0) || s.definition || char(0) ||
      (SELECT count(*) || ',' || ifnull(max(v.rowid), 0) FROM listeners l JOIN votes v ON v.listener_id = l.id WHERE l.study_id = s.id) || char(0) ||
      (SELECT count(*) || ',' || ifnull(max(rowid), 0) || ',' || count(completed_at) || ',' || count(left_at) || ',' || total(length(screening)) || ',' || total(length(comments))
       FROM listeners WHERE study_id = s.id) AS v
    FROM studies s WHERE s.id = ?`);

  return {
    /** The study's version for the live figures' cache: equal while no vote, listener change, status or definition was committed. */
    version: (studyId: string): string => version.get(studyId)?.v ?? '',
    listeners: (studyId: string) => listenerCounts.get(studyId)!,
    completionSeconds: (studyId: string): number[] => completionSeconds.all(studyId).map((r) => r.seconds),
    votesPerItem: (studyId: string) => votesPerItem.all({ study: studyId }),
    itemsByKind(studyId: string): Record<ItemKind, number> {
      const counts = new Map(itemCounts.all(studyId).map((r) => [r.kind, r.n]));
      return countItemKinds((kind) => counts.get(kind) ?? 0);
    },
    /** Each listener's attention checks: how many answered, how many right. */
    attention(studyId: string): { listener_id: string; answered: number; correct: number }[] {
      const tallies = new Map<string, { listener_id: string; answered: number; correct: number }>();
      for (const a of attentionAnswers.iterate(studyId)) {
        let t = tallies.get(a.listener_id);
        if (!t) tallies.set(a.listener_id, (t = { listener_id: a.listener_id, answered: 0, correct: 0 }));
        t.answered++;
        if (trialKinds[a.trial_kind].correct(JSON.parse(a.answer) as AnswerDocument, a.expected)) t.correct++;
      }
      return [...tallies.values()];
    },
    /** Each listener's screening outcome as listeners.csv words it (passed, failed or null). */
    screeningOutcomes: (studyId: string) => new Map(screenings.all(studyId).map((r) => [r.id, screeningOutcome(r.screening)])),
    /** Each screened listener's stored check: its kind, outcome and score (both checks' under `results`). */
    screeningResults: (studyId: string) =>
      new Map(screenings.all(studyId).flatMap((r) => (r.screening === null ? [] : [[r.id, JSON.parse(r.screening) as ScreeningRecord] as const]))),
    /** Every listener of the study with their link parameters, progress and completion, oldest first. */
    participants: (studyId: string) =>
      participantRows.all(studyId).map((r) => ({ ...r, external: JSON.parse(r.external) as Record<string, string> })),
    /** Every trial in study order, in the listener's Trial shape (the item's own slot order). */
    preview(studyId: string, settings: TrialSettings): ItemPreview[] {
      return previewRows.all(studyId).map((r) => {
        const stimuli = servedStimuli(r.stimuli);
        const kind = trialKinds[r.trial_kind];
        const slots = JSON.parse(r.slots) as string[];
        const trial = kind.trial({ kind: r.kind, stimuli }, r.seq, kind.previewOrder?.(slots, r.expected) ?? slots, settings);
        return { seq: r.seq, kind: r.kind, systems: systemsOf(stimuli), expected: r.expected, trial };
      });
    },
  };
}
export type LiveRepository = ReturnType<typeof liveRepository>;

/** listeners.screening as the session stored it (server/store/sessions.ts). */
export interface ScreeningRecord {
  kind: string;
  passed: boolean;
  correct?: number;
  trials?: number;
  results?: ScreeningRecord[];
}

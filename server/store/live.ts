import { median } from 'simple-statistics';
import type { Db } from '../db/open';
import type { ListeningRequirement } from '../contract';
import type { ListenerFacts } from '../../analysis/exclusion';
import { toTrial } from './sessions';
import type { Trial } from '../contract';

export type ItemKind = 'pair' | 'attention' | 'practice';

export interface ItemPreview {
  seq: number;
  kind: ItemKind;
  systems: [string, string];
  expected: 'a' | 'b' | null;
  trial: Trial;
}

/**
 * What the studio reads about a study while it runs: listener and vote counts, the facts the
 * exclusion rules need per listener, and every trial as listeners receive it (for preview).
 * Read-only; the figures the dashboard shows come from here and from analysis/.
 */
export function liveRepository(db: Db) {
  const listenerCounts = db.prepare<[string], { started: number; completed: number }>(`
    SELECT count(*) AS started, count(completed_at) AS completed FROM listeners WHERE study_id = ?`);
  const completionSeconds = db.prepare<[string], { seconds: number }>(`
    SELECT (julianday(completed_at) - julianday(created_at)) * 86400.0 AS seconds
    FROM listeners WHERE study_id = ? AND completed_at IS NOT NULL ORDER BY seconds`);
  const votesPerItem = db.prepare<[string], { seq: number; kind: ItemKind; votes: number }>(`
    SELECT i.seq, i.kind, count(v.id) AS votes FROM items i LEFT JOIN votes v ON v.item_id = i.id
    WHERE i.study_id = ? GROUP BY i.id ORDER BY i.seq`);
  const itemCounts = db.prepare<[string], { kind: ItemKind; n: number }>(
    'SELECT kind, count(*) AS n FROM items WHERE study_id = ? GROUP BY kind',
  );
  const votesByListener = db.prepare<
    [string],
    { listener_id: string; response_ms: number; heard_to_end: 0 | 1; seconds_listened: number }
  >(`
    SELECT v.listener_id, v.response_ms, v.heard_to_end, v.seconds_listened
    FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ? AND i.kind != 'practice'`);
  const attentionByListener = db.prepare<[string], { listener_id: string; answered: number; correct: number }>(`
    SELECT v.listener_id, count(*) AS answered, sum(v.chosen = i.expected) AS correct
    FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ? AND i.kind = 'attention'
    GROUP BY v.listener_id`);
  const screenings = db.prepare<[string], { id: string; screening: string | null }>(
    'SELECT id, screening FROM listeners WHERE study_id = ?',
  );
  const previewRows = db.prepare<
    [string],
    { seq: number; kind: ItemKind; system_a: string; system_b: string; expected: 'a' | 'b' | null; clip_id: string; duration: number; caption_a: string; caption_b: string }
  >(`
    SELECT i.seq, i.kind, i.system_a, i.system_b, i.expected, s.id AS clip_id, s.duration, i.caption_a, i.caption_b
    FROM items i JOIN served_clips s ON s.study_id = i.study_id AND s.clip_id = i.clip_id WHERE i.study_id = ? ORDER BY i.seq`);

  /** Screening outcome per listener: null when the check never reported (not run). */
  const screeningOutcomes = (studyId: string): Map<string, 'pass' | 'fail' | null> =>
    new Map(
      screenings.all(studyId).map((r) => {
        if (r.screening === null) return [r.id, null];
        const parsed = JSON.parse(r.screening) as { passed?: unknown };
        return [r.id, parsed.passed === true ? 'pass' : parsed.passed === false ? 'fail' : null];
      }),
    );

  return {
    listeners: (studyId: string) => listenerCounts.get(studyId)!,
    completionSeconds: (studyId: string): number[] => completionSeconds.all(studyId).map((r) => r.seconds),
    votesPerItem: (studyId: string) => votesPerItem.all(studyId),
    itemsByKind(studyId: string): Record<ItemKind, number> {
      const counts = { pair: 0, attention: 0, practice: 0 };
      for (const r of itemCounts.all(studyId)) counts[r.kind] = r.n;
      return counts;
    },
    attention: (studyId: string) => attentionByListener.all(studyId),
    screeningOutcomes,
    /** Per listener who voted: median response time, listening-requirement violations, screening. */
    listenerFacts(studyId: string, listening: ListeningRequirement): Map<string, ListenerFacts> {
      const byListener = new Map<string, { times: number[]; violations: number }>();
      for (const v of votesByListener.all(studyId)) {
        let entry = byListener.get(v.listener_id);
        if (!entry) byListener.set(v.listener_id, (entry = { times: [], violations: 0 }));
        entry.times.push(v.response_ms);
        const met = listening.mode === 'whole' ? v.heard_to_end === 1 : v.seconds_listened >= listening.seconds;
        if (!met) entry.violations++;
      }
      const screening = screeningOutcomes(studyId);
      return new Map(
        [...byListener].map(([id, e]) => [
          id,
          { median_response_ms: median(e.times), listening_violations: e.violations, screening: screening.get(id) ?? null },
        ]),
      );
    },
    /** Every trial in study order, in the listener's Trial shape (caption a shown first). */
    preview(studyId: string): ItemPreview[] {
      return previewRows.all(studyId).map((r) => ({
        seq: r.seq,
        kind: r.kind,
        systems: [r.system_a, r.system_b],
        expected: r.expected,
        trial: toTrial({ ...r, position: r.seq, first: 'a' }),
      }));
    },
  };
}
export type LiveRepository = ReturnType<typeof liveRepository>;

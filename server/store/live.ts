import type { Db } from '../../db/open';
import { screeningOutcome } from './export';
import { toTrial } from './sessions';
import type { Trial } from '../../contract/listener';

export type ItemKind = 'pair' | 'attention' | 'practice';

export interface ItemPreview {
  seq: number;
  kind: ItemKind;
  systems: [string, string];
  expected: 'a' | 'b' | null;
  trial: Trial;
}

/**
 * What the studio reads about a study while it runs: listener and vote counts and every trial
 * as listeners receive it (for preview). Read-only; exclusions and statistics are not here: the
 * dashboard takes them from the live report (the export's rows through analysis/).
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
  const attentionByListener = db.prepare<[string], { listener_id: string; answered: number; correct: number }>(`
    SELECT v.listener_id, count(*) AS answered, sum(v.chosen = i.expected) AS correct
    FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ? AND i.kind = 'attention'
    GROUP BY v.listener_id`);
  const screenings = db.prepare<[string], { id: string; screening: string | null }>(
    'SELECT id, screening FROM listeners WHERE study_id = ?',
  );
  // Progress counts the trials the listener sees (practice included), as their progress bar does.
  const participantRows = db.prepare<
    [string],
    { id: string; external: string; created_at: string; completed_at: string | null; completion_code: string | null; total: number; done: number }
  >(`
    SELECT l.id, l.external, l.created_at, l.completed_at, l.completion_code,
           (SELECT count(*) FROM assignments a WHERE a.listener_id = l.id) AS total,
           (SELECT count(*) FROM votes v WHERE v.listener_id = l.id) AS done
    FROM listeners l WHERE l.study_id = ? ORDER BY l.created_at, l.id`);
  const previewRows = db.prepare<
    [string],
    { seq: number; kind: ItemKind; system_a: string; system_b: string; expected: 'a' | 'b' | null; clip_id: string; duration: number; caption_a: string; caption_b: string }
  >(`
    SELECT i.seq, i.kind, i.system_a, i.system_b, i.expected, s.id AS clip_id, s.duration, i.caption_a, i.caption_b
    FROM items i JOIN served_clips s ON s.study_id = i.study_id AND s.clip_id = i.clip_id WHERE i.study_id = ? ORDER BY i.seq`);

  return {
    listeners: (studyId: string) => listenerCounts.get(studyId)!,
    completionSeconds: (studyId: string): number[] => completionSeconds.all(studyId).map((r) => r.seconds),
    votesPerItem: (studyId: string) => votesPerItem.all(studyId),
    itemsByKind(studyId: string): Record<ItemKind | 'rating', number> {
      const counts = { pair: 0, rating: 0, attention: 0, practice: 0 };
      for (const r of itemCounts.all(studyId)) counts[r.kind] = r.n;
      return counts;
    },
    attention: (studyId: string) => attentionByListener.all(studyId),
    /** Each listener's screening outcome as listeners.csv words it (passed, failed or null). */
    screeningOutcomes: (studyId: string) => new Map(screenings.all(studyId).map((r) => [r.id, screeningOutcome(r.screening)])),
    /** Every listener of the study with their link parameters, progress and completion, oldest first. */
    participants: (studyId: string) =>
      participantRows.all(studyId).map((r) => ({ ...r, external: JSON.parse(r.external) as Record<string, string> })),
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

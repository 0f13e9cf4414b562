import type { Db } from '../db/open';
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
  const previewRows = db.prepare<
    [string],
    { seq: number; kind: ItemKind; system_a: string; system_b: string; expected: 'a' | 'b' | null; clip_id: string; duration: number; caption_a: string; caption_b: string }
  >(`
    SELECT i.seq, i.kind, i.system_a, i.system_b, i.expected, i.clip_id, c.duration, i.caption_a, i.caption_b
    FROM items i JOIN clips c ON c.id = i.clip_id WHERE i.study_id = ? ORDER BY i.seq`);

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

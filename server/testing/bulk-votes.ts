/**
 * Listeners who answered every trial of a built study, written straight into the tables in one
 * transaction: a study of hundreds of thousands of votes in seconds, for the tests and the bench
 * of the live figures at scale (the vote route's own path is what the other tests and the ingest
 * bench measure). A pair's answer follows the listener and item; a rating's score too (1–5).
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../db/open';

export interface BulkOptions {
  /** The link parameters each listener started with (index from 0). */
  external?: (listener: number) => Record<string, string>;
  /** Prefix of the listener ids, so repeated calls add new listeners. */
  prefix?: string;
}

/** Adds `listeners` listeners to the study, each voting on every one of its items; returns the number of votes added. */
export function addAnsweredListeners(db: Db, studyId: string, listeners: number, options: BulkOptions = {}): number {
  const prefix = options.prefix ?? 'bulk';
  const items = db
    .prepare('SELECT id, trial_kind FROM items WHERE study_id = ? ORDER BY seq')
    .all(studyId) as { id: string; trial_kind: 'pair' | 'rating' }[];
  const listener = db.prepare(`
    INSERT INTO listeners (id, study_id, token_hash, external, created_at, completed_at, completion_code)
    VALUES (?, ?, ?, ?, ?, ?, 'BULK')`);
  const assignment = db.prepare('INSERT INTO assignments (listener_id, position, item_id, slot_order, assigned_at) VALUES (?, ?, ?, ?, ?)');
  const vote = db.prepare(`
    INSERT INTO votes (id, listener_id, item_id, position, answer, play_count, seconds_listened, heard_to_end,
                       hidden_ms, response_ms, client_ts, server_ts)
    VALUES (?, ?, ?, ?, ?, 1, 3.0, 1, 0, ?, ?, ?)`);
  const started = Date.parse('2026-01-01T00:00:00Z');
  db.transaction(() => {
    for (let l = 0; l < listeners; l++) {
      const id = `${prefix}-${l}`;
      const at = new Date(started + l * 1000).toISOString();
      const done = new Date(started + l * 1000 + 600_000).toISOString();
      listener.run(id, studyId, createHash('sha256').update(`${studyId}/${id}`).digest('hex'), JSON.stringify(options.external?.(l) ?? {}), at, done);
      items.forEach((item, position) => {
        const pair = item.trial_kind === 'pair';
        const first = pair ? (position % 2 ? 'a' : 'b') : null;
        assignment.run(id, position, item.id, first && JSON.stringify(first === 'a' ? ['a', 'b'] : ['b', 'a']), at);
        const answer = pair ? { first, chosen: (l + position) % 3 ? 'a' : 'b' } : { score: 1 + ((l + position) % 5) };
        vote.run(`${id}/${position}`, id, item.id, position, JSON.stringify(answer), 1500 + ((l * 7 + position) % 900), at, at);
      });
    }
  })();
  return listeners * items.length;
}

/**
 * Handing trials to a listener when their session starts. Fully crossed: every item, order
 * shuffled per listener. Balanced incomplete: k pair items per listener, least-rated first, so
 * every item converges to r ratings. Both: practice first, attention checks spread through the
 * session, caption order (first = a|b) drawn per trial. Everything is seeded by the study's seed
 * and the listener id, so a session is reproducible.
 *
 * An item's rating count = its votes + its unanswered assignments held by listeners who are
 * still active (not completed, and with an assignment or vote within `abandonAfterMinutes`).
 * So an abandoned assignment returns to the pool by itself once its listener goes quiet, with
 * no lease to expire; if that listener comes back they still finish their own trials.
 */
import type { Db } from '../server/db/open';
import { orderTrials } from './attention';
import { createRandom } from './random';
import { StudyDefinition } from './schema';

export class StudyFullError extends Error {
  constructor(studyId: string, ratingsPerItem: number) {
    super(`study ${studyId} is full: every item already has ${ratingsPerItem} ratings or active assignments`);
    this.name = 'StudyFullError';
  }
}

interface ItemRow {
  id: string;
  kind: 'pair' | 'attention' | 'practice';
  seq: number;
}

export interface ItemLoad {
  itemId: string;
  votes: number;
  /** Unanswered assignments of still-active listeners. */
  pending: number;
}

/** Per pair item: votes and live pending assignments (the incomplete design's rating count). */
export function itemLoads(db: Db, studyId: string, abandonAfterMinutes: number, now: Date = new Date(), exceptListener = ''): ItemLoad[] {
  const cutoff = new Date(now.getTime() - abandonAfterMinutes * 60_000).toISOString();
  return db
    .prepare(
      `WITH active AS (
         SELECT l.id FROM listeners l
          WHERE l.study_id = :study AND l.completed_at IS NULL AND l.id <> :except
            AND max(julianday(l.created_at),
                    COALESCE((SELECT max(julianday(a.assigned_at)) FROM assignments a WHERE a.listener_id = l.id), 0),
                    COALESCE((SELECT max(julianday(v.server_ts)) FROM votes v WHERE v.listener_id = l.id), 0))
                > julianday(:cutoff)),
       pending AS (
         SELECT a.item_id, count(*) AS n FROM assignments a JOIN active ON active.id = a.listener_id
          WHERE NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.item_id = a.item_id)
          GROUP BY a.item_id),
       voted AS (
         SELECT v.item_id, count(*) AS n FROM votes v JOIN items i ON i.id = v.item_id
          WHERE i.study_id = :study GROUP BY v.item_id)
       SELECT i.id AS itemId, COALESCE(voted.n, 0) AS votes, COALESCE(pending.n, 0) AS pending
         FROM items i LEFT JOIN voted ON voted.item_id = i.id LEFT JOIN pending ON pending.item_id = i.id
        WHERE i.study_id = :study AND i.kind = 'pair'
        ORDER BY i.seq`,
    )
    .all({ study: studyId, except: exceptListener, cutoff }) as ItemLoad[];
}

/**
 * Items this person already met in another session of the same study, matched on the study's
 * first link parameter (the participant id, e.g. PROLIFIC_PID), so a returning participant
 * never gets an item twice.
 */
function itemsSeenByParticipant(db: Db, studyId: string, listenerId: string, participantKey: string | undefined): Set<string> {
  if (!participantKey) return new Set();
  const path = `$."${participantKey}"`;
  const rows = db
    .prepare(
      `SELECT DISTINCT a.item_id AS id FROM listeners me
         JOIN listeners other ON other.study_id = me.study_id AND other.id <> me.id
              AND json_extract(other.external, :path) = json_extract(me.external, :path)
         JOIN assignments a ON a.listener_id = other.id
        WHERE me.id = :listener AND me.study_id = :study AND json_extract(me.external, :path) IS NOT NULL`,
    )
    .all({ listener: listenerId, study: studyId, path }) as { id: string }[];
  return new Set(rows.map((r) => r.id));
}

/**
 * Writes this listener's trials into `assignments` (position, item, first) and returns how many
 * there are. `seed` defaults to the study's seed (mixed with the listener id either way). Idempotent: a listener who already has trials keeps them. Runs in one IMMEDIATE
 * transaction, so concurrent sessions (even from other processes) are handed out one at a time.
 * Throws StudyFullError when an incomplete-design study needs no more ratings.
 */
export function assignTrials(db: Db, studyId: string, listenerId: string, seed?: number | string, now: Date = new Date()): number {
  const run = db.transaction((): number => {
    const existing = db.prepare('SELECT count(*) AS n FROM assignments WHERE listener_id = ?').get(listenerId) as { n: number };
    if (existing.n > 0) return existing.n;
    const study = db.prepare('SELECT definition FROM studies WHERE id = ?').get(studyId) as { definition: string } | undefined;
    if (!study) throw new Error(`unknown study ${studyId}`);
    const listener = db.prepare('SELECT study_id FROM listeners WHERE id = ?').get(listenerId) as { study_id: string } | undefined;
    if (!listener || listener.study_id !== studyId) throw new Error(`listener ${listenerId} does not belong to study ${studyId}`);
    const definition = StudyDefinition.parse(JSON.parse(study.definition));
    const random = createRandom(seed ?? definition.seed, 'listener', listenerId);

    const items = db.prepare('SELECT id, kind, seq FROM items WHERE study_id = ? ORDER BY seq').all(studyId) as ItemRow[];
    const practice = items.filter((i) => i.kind === 'practice').map((i) => i.id);
    const attention = items.filter((i) => i.kind === 'attention').map((i) => i.id);
    let main = items.filter((i) => i.kind === 'pair').map((i) => i.id);

    if (definition.design.kind === 'incomplete') {
      const { itemsPerListener, ratingsPerItem, abandonAfterMinutes } = definition.design;
      const seen = itemsSeenByParticipant(db, studyId, listenerId, definition.linkParameters[0]);
      // Shuffle before the stable sort so equally rated items are drawn at random.
      const loads = random
        .shuffle(itemLoads(db, studyId, abandonAfterMinutes, now, listenerId))
        .filter((l) => !seen.has(l.itemId))
        .sort((x, y) => x.votes + x.pending - (y.votes + y.pending));
      if (loads.length === 0 || loads[0].votes + loads[0].pending >= ratingsPerItem) throw new StudyFullError(studyId, ratingsPerItem);
      main = loads.slice(0, itemsPerListener).map((l) => l.itemId);
    }

    const order = orderTrials({ practice, main, attention }, random);
    const insert = db.prepare('INSERT INTO assignments (listener_id, position, item_id, first, assigned_at) VALUES (?, ?, ?, ?, ?)');
    const at = now.toISOString();
    order.forEach((itemId, position) => insert.run(listenerId, position, itemId, random.next() < 0.5 ? 'a' : 'b', at));
    return order.length;
  });
  return run.immediate();
}

/**
 * Handing trials to a listener when their session starts. Fully crossed: every item, order
 * shuffled per listener. Balanced incomplete: k scored items (pairs or ratings) per listener,
 * least-rated first, so every item converges to r ratings. Both: practice first, attention checks
 * spread through the session, and for a kind with two sides (a pair) which is shown first (a|b)
 * drawn per trial. Everything is seeded by the study's seed
 * and the listener id, so a session is reproducible.
 *
 * An item's rating count = its votes + its unanswered assignments held by listeners who are
 * still live: not completed, and either answering (a vote within `abandonAfterMinutes`) or just
 * started (trials drawn within UNANSWERED_HOLD_MINUTES, at most HOLDS_PER_ADDRESS such sessions
 * per client network). So an abandoned assignment returns to the pool by itself once its
 * listener goes quiet, with no lease to expire; if that listener comes back they still finish
 * their own trials.
 *
 * Sessions that never answer cannot lock a study: their holds only steer which items others
 * draw first, and never make a study full. A study is full only when every item's votes plus
 * the holds of answering listeners reach r. At the tail of a study this may admit a listener
 * or two more than strictly needed (an item over-rated), never turn a real one away.
 */
import type { Db } from '../db/open';
import { orderTrials } from './attention';
import { keyedRandom } from '../analysis/random';
import { drawsOrder } from './trials';
import type { ItemKind } from './build';
import { StudyDefinition } from '../contract/study-definition';
import type { TrialKind } from '../contract/trials';

export class StudyFullError extends Error {
  constructor(studyId: string, ratingsPerItem: number) {
    super(`study ${studyId} is full: every item already has ${ratingsPerItem} ratings or active assignments`);
    this.name = 'StudyFullError';
  }
}

interface ItemRow {
  id: string;
  kind: ItemKind;
  trialKind: TrialKind;
  seq: number;
}

/** How long a session that has not answered yet holds its drawn trials (capped by abandonAfterMinutes). */
export const UNANSWERED_HOLD_MINUTES = 5;
/** How many not-yet-answering sessions of one client network hold trials at a time; later ones hold from their first answer. */
export const HOLDS_PER_ADDRESS = 3;

export interface ItemLoad {
  itemId: string;
  votes: number;
  /** Unanswered assignments of live listeners. */
  pending: number;
  /** The part of `pending` held by listeners who have not answered anything yet. */
  reserved: number;
}

const minutesBefore = (now: Date, minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();

/** Per scored item (not attention, not practice): votes and live pending assignments (the incomplete design's rating count). */
export function itemLoads(db: Db, studyId: string, abandonAfterMinutes: number, now: Date = new Date(), exceptListener = ''): ItemLoad[] {
  return db
    .prepare(
      `WITH live AS (
         SELECT l.id, l.reserved_at, (SELECT max(v.server_ts) FROM votes v WHERE v.listener_id = l.id) AS last_vote
           FROM listeners l
          WHERE l.study_id = :study AND l.completed_at IS NULL AND l.id <> :except),
       active AS (
         SELECT id, last_vote IS NULL AS unanswered FROM live
          WHERE julianday(last_vote) > julianday(:cutoff)
             OR (last_vote IS NULL AND julianday(reserved_at) > julianday(:holdCutoff))),
       pending AS (
         SELECT a.item_id, count(*) AS n, sum(active.unanswered) AS reserved FROM assignments a JOIN active ON active.id = a.listener_id
          WHERE NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.item_id = a.item_id)
          GROUP BY a.item_id),
       voted AS (
         SELECT v.item_id, count(*) AS n FROM votes v JOIN items i ON i.id = v.item_id
          WHERE i.study_id = :study GROUP BY v.item_id)
       SELECT i.id AS itemId, COALESCE(voted.n, 0) AS votes, COALESCE(pending.n, 0) AS pending, COALESCE(pending.reserved, 0) AS reserved
         FROM items i LEFT JOIN voted ON voted.item_id = i.id LEFT JOIN pending ON pending.item_id = i.id
        WHERE i.study_id = :study AND i.kind = i.trial_kind
        ORDER BY i.seq`,
    )
    .all({
      study: studyId,
      except: exceptListener,
      cutoff: minutesBefore(now, abandonAfterMinutes),
      holdCutoff: minutesBefore(now, Math.min(abandonAfterMinutes, UNANSWERED_HOLD_MINUTES)),
    }) as ItemLoad[];
}

/**
 * Whether a listener's trials hold their items from now on, before any answer: yes unless
 * HOLDS_PER_ADDRESS other not-yet-answering sessions of the same client network already do.
 * (A listener without a client key was started outside the HTTP API and always holds.)
 */
function holdsBeforeAnswering(db: Db, studyId: string, listenerId: string, holdMinutes: number, now: Date): boolean {
  const { client_key: clientKey } = db.prepare('SELECT client_key FROM listeners WHERE id = ?').get(listenerId) as { client_key: string | null };
  if (clientKey === null) return true;
  const { n } = db
    .prepare(
      `SELECT count(*) AS n FROM listeners l
        WHERE l.study_id = :study AND l.client_key = :key AND l.id <> :listener AND l.completed_at IS NULL
          AND julianday(l.reserved_at) > julianday(:holdCutoff)
          AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = l.id)`,
    )
    .get({ study: studyId, key: clientKey, listener: listenerId, holdCutoff: minutesBefore(now, holdMinutes) }) as { n: number };
  return n < HOLDS_PER_ADDRESS;
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
    const random = keyedRandom(seed ?? definition.seed, 'listener', listenerId);

    const items = db.prepare('SELECT id, kind, trial_kind AS trialKind, seq FROM items WHERE study_id = ? ORDER BY seq').all(studyId) as ItemRow[];
    const practice = items.filter((i) => i.kind === 'practice').map((i) => i.id);
    const attention = items.filter((i) => i.kind === 'attention').map((i) => i.id);
    let main = items.filter((i) => i.kind === i.trialKind).map((i) => i.id);

    if (definition.design.kind === 'incomplete') {
      const { itemsPerListener, ratingsPerItem, abandonAfterMinutes } = definition.design;
      const seen = itemsSeenByParticipant(db, studyId, listenerId, definition.linkParameters[0]);
      // Least rated first, counting votes and answering listeners' holds; among equals, items fewer
      // just-started sessions hold. Those holds only break ties and never fill the study, so
      // sessions that never answer cannot steer anyone away from an item that needs ratings.
      // Shuffle before the stable sort so equally loaded items are drawn at random.
      const firm = (l: ItemLoad) => l.votes + l.pending - l.reserved;
      const loads = random
        .shuffle(itemLoads(db, studyId, abandonAfterMinutes, now, listenerId))
        .filter((l) => !seen.has(l.itemId))
        .sort((x, y) => firm(x) - firm(y) || x.reserved - y.reserved);
      if (loads.length === 0 || firm(loads[0]) >= ratingsPerItem) throw new StudyFullError(studyId, ratingsPerItem);
      main = loads.slice(0, itemsPerListener).map((l) => l.itemId);
      const holdMinutes = Math.min(abandonAfterMinutes, UNANSWERED_HOLD_MINUTES);
      if (holdsBeforeAnswering(db, studyId, listenerId, holdMinutes, now)) {
        db.prepare('UPDATE listeners SET reserved_at = ? WHERE id = ?').run(now.toISOString(), listenerId);
      }
    }

    const order = orderTrials({ practice, main, attention }, random);
    const insert = db.prepare('INSERT INTO assignments (listener_id, position, item_id, first, assigned_at) VALUES (?, ?, ?, ?, ?)');
    const at = now.toISOString();
    const trialKind = new Map(items.map((i) => [i.id, i.trialKind]));
    order.forEach((itemId, position) => insert.run(listenerId, position, itemId, drawsOrder(trialKind.get(itemId)!) ? (random.next() < 0.5 ? 'a' : 'b') : null, at));
    return order.length;
  });
  return run.immediate();
}

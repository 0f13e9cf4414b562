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
 * the holds of answering listeners reach r. No item is over-rated: a listener is only given items
 * short of r, a vote for an item that already has r is refused (item_complete: two sessions held
 * its last place, or a timed-out listener came back after others filled it), and the refused
 * listener's unanswered trials of complete items are given back when they next ask where they stand.
 */
import type { Db } from '../db/open';
import { orderTrials } from './attention';
import { keyedRandom } from '../analysis/random';
import { drawOrders } from './trials';
import { StudyDefinition } from '../contract/study-definition';
import { studyStore } from './store';
import { stopMet } from './adaptive/assign';

export class StudyFullError extends Error {
  constructor(studyId: string, ratingsPerItem: number) {
    super(`study ${studyId} is full: every item already has ${ratingsPerItem} ratings or active assignments`);
    this.name = 'StudyFullError';
  }
}

/** An adaptive study's stopping rule is met (studies/adaptive/assign.ts stopMet): it assigns no more sessions. */
export class StudyCompleteError extends StudyFullError {
  constructor(studyId: string) {
    super(studyId, 0);
    this.message = `study ${studyId} is complete: its stopping rule is met`;
    this.name = 'StudyCompleteError';
  }
}

/** How long a session that has not answered yet holds its drawn trials (capped by abandonAfterMinutes). */
export const UNANSWERED_HOLD_MINUTES = 5;
/** How many not-yet-answering sessions of one client network hold trials at a time; later ones hold from their first answer. */
export const HOLDS_PER_ADDRESS = 3;

/**
 * How many votes each scored item is to get, or null: the incomplete design's ratingsPerItem.
 * An item at its target takes no more votes (server/store/votes.ts refuses them as
 * item_complete) and its unanswered trials are given back (server/store/sessions.ts).
 */
export function voteTarget(design: { kind?: string; ratingsPerItem?: number }): number | null {
  return design.kind === 'incomplete' && design.ratingsPerItem !== undefined ? design.ratingsPerItem : null;
}

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
  return studyStore(db).itemLoads(studyId, {
    except: exceptListener,
    cutoff: minutesBefore(now, abandonAfterMinutes),
    holdCutoff: minutesBefore(now, Math.min(abandonAfterMinutes, UNANSWERED_HOLD_MINUTES)),
  });
}

/**
 * Whether a listener's trials hold their items from now on, before any answer: yes unless
 * HOLDS_PER_ADDRESS other not-yet-answering sessions of the same client network already do.
 * (A listener without a client key was started outside the HTTP API and always holds.)
 */
function holdsBeforeAnswering(db: Db, studyId: string, listenerId: string, holdMinutes: number, now: Date): boolean {
  const store = studyStore(db);
  const clientKey = store.clientKey(listenerId);
  if (clientKey === null || clientKey === undefined) return true;
  return store.unansweredHolds(studyId, clientKey, listenerId, minutesBefore(now, holdMinutes)) < HOLDS_PER_ADDRESS;
}

/** A new session's unanswered trials count as held from now on, if holdsBeforeAnswering allows. */
function reserveHolds(db: Db, studyId: string, listenerId: string, abandonAfterMinutes: number, now: Date): void {
  const holdMinutes = Math.min(abandonAfterMinutes, UNANSWERED_HOLD_MINUTES);
  if (holdsBeforeAnswering(db, studyId, listenerId, holdMinutes, now)) studyStore(db).reserve(listenerId, now.toISOString());
}

/**
 * Items this person already met in another session of the same study, matched on the study's
 * first link parameter (the participant id, e.g. PROLIFIC_PID), so a returning participant
 * never gets an item twice.
 */
function itemsSeenByParticipant(db: Db, studyId: string, listenerId: string, participantKey: string | undefined): Set<string> {
  if (!participantKey) return new Set();
  return new Set(studyStore(db).seenByParticipant(studyId, listenerId, `$."${participantKey}"`));
}

/**
 * Writes this listener's trials into `assignments` (position, item, the order of its slots) and returns how many
 * there are. `seed` defaults to the study's seed (mixed with the listener id either way). Idempotent: a listener who already has trials keeps them. Runs in one IMMEDIATE
 * transaction, so concurrent sessions (even from other processes) are handed out one at a time.
 * Throws StudyFullError when an incomplete-design study needs no more ratings.
 */
export function assignTrials(db: Db, studyId: string, listenerId: string, seed?: number | string, now: Date = new Date()): number {
  const store = studyStore(db);
  const run = db.transaction((): number => {
    const existing = store.assignmentCount(listenerId);
    if (existing > 0) return existing;
    const stored = store.definition(studyId);
    if (stored === undefined) throw new Error(`unknown study ${studyId}`);
    if (store.listenerStudy(listenerId) !== studyId) throw new Error(`listener ${listenerId} does not belong to study ${studyId}`);
    const definition = StudyDefinition.parse(JSON.parse(stored));
    const random = keyedRandom(seed ?? definition.seed, 'listener', listenerId);

    const items = store.items(studyId);
    const practice = items.filter((i) => i.kind === 'practice').map((i) => i.id);
    let attention = items.filter((i) => i.kind === 'attention').map((i) => i.id);
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
        .filter((l) => !seen.has(l.itemId) && firm(l) < ratingsPerItem)
        .sort((x, y) => firm(x) - firm(y) || x.reserved - y.reserved);
      // Only items still short of their target: at the tail a listener gets fewer than itemsPerListener.
      if (loads.length === 0) throw new StudyFullError(studyId, ratingsPerItem);
      main = loads.slice(0, itemsPerListener).map((l) => l.itemId);
      reserveHolds(db, studyId, listenerId, abandonAfterMinutes, now);
    }

    if (definition.design.kind === 'adaptive') {
      const { stop, itemsPerListener, abandonAfterMinutes } = definition.design;
      if (stopMet(db, studyId, definition.design, definition.trial.kind)) throw new StudyCompleteError(studyId);
      // A vote budget counts what live sessions still owe as well as the votes cast, so listeners
      // in parallel do not overshoot it; the last session gets only the places left.
      let places = itemsPerListener;
      if (stop.votes !== undefined) {
        const owed = itemLoads(db, studyId, abandonAfterMinutes, now, listenerId).reduce((n, l) => n + l.votes + l.pending, 0);
        places = Math.min(places, stop.votes - owed);
        if (places <= 0) throw new StudyCompleteError(studyId);
      }
      // Provisional items: each scored position's item is chosen when it is first served (chooseServed).
      const seen = itemsSeenByParticipant(db, studyId, listenerId, definition.linkParameters[0]);
      main = random.shuffle(main.filter((id) => !seen.has(id))).slice(0, places);
      reserveHolds(db, studyId, listenerId, abandonAfterMinutes, now);
    }

    // A tail listener with few scored items gets only the attention checks that fit between them
    // (orderTrials never puts a check first or last).
    if (definition.design.kind !== 'crossed' && attention.length >= main.length) attention = random.shuffle(attention).slice(0, Math.max(0, main.length - 1));

    const order = orderTrials({ practice, main, attention }, random);
    const at = now.toISOString();
    const byId = new Map(items.map((i) => [i.id, i]));
    const trials = order.map((itemId) => ({ itemId, slots: byId.get(itemId)!.slots, expected: byId.get(itemId)!.expected }));
    const orders = drawOrders(definition.trial.kind, trials, random, store.firstSlots);
    order.forEach((itemId, position) => store.insertAssignment(listenerId, position, itemId, orders[position], at));
    if (definition.design.kind === 'adaptive') store.markUnscoredChosen(listenerId, at);
    return order.length;
  });
  return run.immediate();
}

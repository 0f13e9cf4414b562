/**
 * The adaptive design at request time (studies/README.md, "Adaptive"). A listener's session is
 * laid out at start as any other (practice, attention checks where orderTrials puts them, scored
 * positions), but a scored position holds a provisional item until it is first served: then
 * `chooseServed` picks its item from the votes so far (bt-uncertainty.ts for pairs and A/B,
 * widest-ci.ts for ratings), draws its slot order and stamps `chosen_at`. A served position never
 * changes; the listener's trial looks the same as under any design.
 *
 * The votes so far are read incrementally (rowid above the last seen) into a per-study tally kept
 * in memory for each database connection, so a choice costs one small read however large the
 * study. Live listeners' chosen, unanswered trials count as information (bt-uncertainty.ts `pending`):
 * they are comparisons on their way, and without them parallel listeners would all be sent to the same pair.
 */
import type { Db } from '../../db/open';
import { keyedRandom } from '../../analysis/random';
import { StudyDefinition } from '../../contract/study-definition';
import { drawOrders } from '../trials';
import { studyStore, type StudyItem } from '../store';
import { btPosterior, choosePairItem, pairKey, type PairCandidate } from './bt-uncertainty';
import { chooseRatingItem, mosHalfWidth, type ScoreTally } from './widest-ci';

type Adaptive = Extract<StudyDefinition['design'], { kind: 'adaptive' }>;

/** The votes of one study so far (every listener's: retention is judged by the analysis), as the rules read them. */
interface Tally {
  lastRowid: number;
  systems: string[];
  index: Map<string, number>;
  /** wins[i·K + j]: votes in which systems[i] beat systems[j] (a tie: half to each) */
  wins: Float64Array;
  scores: Map<string, ScoreTally>;
  /** Scored votes per item, and in all. */
  itemVotes: Map<string, number>;
  votes: number;
  /** The scored items: their systems (a rating's one system twice). */
  items: Map<string, readonly [string, string]>;
  /** the study's updated_at when the tally was begun */
  version: string | undefined;
  /** the study's items as assignment reads them (slots, expected answer), by id */
  studyItems: Map<string, StudyItem>;
}

const tallies = new WeakMap<Db, Map<string, Tally>>();

interface VoteRow {
  rowid: number;
  item_id: string;
  chosen: string | null;
  score: number | null;
}

interface Position {
  position: number;
  item_id: string;
  chosen: number;
}

/** The design's statements, prepared once per connection: a choice runs them on every served trial. */
function prepared(db: Db) {
  return {
    version: db.prepare<[string], string>('SELECT updated_at FROM studies WHERE id = ?').pluck(),
    items: db.prepare<[string], { id: string; a: string; b: string | null }>('SELECT id, system_a AS a, system_b AS b FROM items WHERE study_id = ? AND kind = trial_kind ORDER BY seq'),
    votesSince: db.prepare<[string, number], VoteRow>(
      `SELECT v.rowid, v.item_id, v.chosen, v.score FROM votes v JOIN items i ON i.id = v.item_id
        WHERE i.study_id = ? AND i.kind = i.trial_kind AND v.rowid > ? ORDER BY v.rowid`,
    ),
    mine: db.prepare<[string], Position>(
      `SELECT a.position, a.item_id, a.chosen_at IS NOT NULL AS chosen FROM assignments a JOIN items i ON i.id = a.item_id
        WHERE a.listener_id = ? AND i.kind = i.trial_kind ORDER BY a.position`,
    ),
    pending: db.prepare<[string, string], { item_id: string; n: number }>(
      `SELECT a.item_id, count(*) AS n FROM assignments a JOIN items i ON i.id = a.item_id
        WHERE a.chosen_at > ? AND i.study_id = ? AND i.kind = i.trial_kind
          AND (SELECT left_at FROM listeners l WHERE l.id = a.listener_id) IS NULL
          AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.position = a.position)
        GROUP BY a.item_id`,
    ),
    // A provisional position is unanswered and was never served, so nothing refers to its row.
    release: db.prepare<[string, number], { assigned_at: string; slot_order: string | null }>('DELETE FROM assignments WHERE listener_id = ? AND position = ? RETURNING assigned_at, slot_order'),
    restore: db.prepare<[string, number, string, string | null, string]>('INSERT INTO assignments (listener_id, position, item_id, slot_order, assigned_at) VALUES (?, ?, ?, ?, ?)'),
    choose: db.prepare<[string, string | null, string, string, string, number]>(
      'UPDATE assignments SET item_id = ?, slot_order = ?, assigned_at = ?, chosen_at = ? WHERE listener_id = ? AND position = ?',
    ),
  };
}

const statements = new WeakMap<Db, ReturnType<typeof prepared>>();

function statementsOf(db: Db): ReturnType<typeof prepared> {
  let s = statements.get(db);
  if (!s) statements.set(db, (s = prepared(db)));
  return s;
}

/** The study's tally, brought up to date with the votes written since it was last read. */
function tally(db: Db, studyId: string): Tally {
  let perDb = tallies.get(db);
  if (!perDb) tallies.set(db, (perDb = new Map()));
  // A rebuild (before the first vote) replaces the items and touches updated_at: a new tally.
  const sql = statementsOf(db);
  const version = sql.version.get(studyId);
  let t = perDb.get(studyId);
  if (t && t.version !== version) t = undefined;
  if (!t) {
    const items = new Map(
      sql.items
        .all(studyId)
        .map((r) => [r.id, [r.a, r.b ?? r.a] as const]),
    );
    const systems = [...new Set([...items.values()].flat())].sort();
    t = { lastRowid: 0, systems, index: new Map(systems.map((s, i) => [s, i])), wins: new Float64Array(systems.length ** 2), scores: new Map(), itemVotes: new Map(), votes: 0, items, version, studyItems: new Map(studyStore(db).items(studyId).map((i) => [i.id, i])) };
    perDb.set(studyId, t);
  }
  const rows = sql.votesSince.all(studyId, t.lastRowid);
  const k = t.systems.length;
  for (const row of rows) {
    t.lastRowid = row.rowid;
    const systems = t.items.get(row.item_id);
    if (!systems) continue;
    t.votes++;
    t.itemVotes.set(row.item_id, (t.itemVotes.get(row.item_id) ?? 0) + 1);
    const [a, b] = systems.map((s) => t!.index.get(s)!);
    if (row.score !== null) {
      const s = t.scores.get(systems[0]) ?? { n: 0, sum: 0, sumSquares: 0 };
      t.scores.set(systems[0], { n: s.n + 1, sum: s.sum + row.score, sumSquares: s.sumSquares + row.score ** 2 });
    } else if (row.chosen === 'a') t.wins[a * k + b]++;
    else if (row.chosen === 'b') t.wins[b * k + a]++;
    else if (row.chosen === 'tie') {
      t.wins[a * k + b] += 0.5;
      t.wins[b * k + a] += 0.5;
    }
  }
  return t;
}

/** Whether the study's stopping rule is met (any of the rules given). */
export function stopMet(db: Db, studyId: string, design: Adaptive, kind: StudyDefinition['trial']['kind']): boolean {
  const t = tally(db, studyId);
  const { stop } = design;
  if (stop.votes !== undefined && t.votes >= stop.votes) return true;
  if (stop.ciHalfWidth === undefined && !stop.separated) return false;
  const k = t.systems.length;
  // Per system: its estimate and the variance of its estimate; per adjacent pair: the difference's variance.
  let estimate: number[];
  let variance: number[];
  let covariance: (i: number, j: number) => number;
  if (kind === 'rating') {
    const width = t.systems.map((s) => mosHalfWidth(t.scores.get(s)));
    if (width.some((w) => !Number.isFinite(w))) return false;
    estimate = t.systems.map((s) => t.scores.get(s)!.sum / t.scores.get(s)!.n);
    variance = width.map((w) => (w / 1.96) ** 2);
    covariance = () => 0;
  } else {
    // The analysis's ridge is tiny; so is this one, so a young study's prior does not pass for data.
    const { theta, cov } = btPosterior(t.wins, k, 1e-3);
    estimate = [...theta];
    variance = estimate.map((_, i) => cov[i * k + i]);
    covariance = (i, j) => cov[i * k + j];
  }
  if (stop.ciHalfWidth !== undefined && 1.96 * Math.sqrt(variance.reduce((a, b) => a + b, 0) / k) <= stop.ciHalfWidth) return true;
  if (stop.separated) {
    const order = estimate.map((_, i) => i).sort((i, j) => estimate[j] - estimate[i]);
    return order.slice(1).every((j, n) => {
      const i = order[n];
      return estimate[i] - estimate[j] > 1.96 * Math.sqrt(variance[i] + variance[j] - 2 * covariance(i, j));
    });
  }
  return false;
}

const definitions = new Map<string, StudyDefinition>();

/** The study's definition, parsed once per stored text. */
function storedDefinition(db: Db, studyId: string): StudyDefinition {
  const raw = studyStore(db).definition(studyId)!;
  let parsed = definitions.get(raw);
  if (!parsed) {
    if (definitions.size > 100) definitions.clear();
    definitions.set(raw, (parsed = StudyDefinition.parse(JSON.parse(raw))));
  }
  return parsed;
}

/**
 * Chooses the items of this listener's provisional positions among `positions` (the ones about to
 * be served). One IMMEDIATE transaction, only when one of them is still provisional.
 */
export function chooseServed(db: Db, studyId: string, listenerId: string, positions: readonly number[], now: Date = new Date()): void {
  const definition = storedDefinition(db, studyId);
  if (definition.design.kind !== 'adaptive') return;
  const design = definition.design;
  const { mine, pending: pendingItems, release, restore, choose } = statementsOf(db);
  const open = new Set(positions);
  const first = mine.all(listenerId).filter((p) => open.has(p.position) && !p.chosen);
  if (first.length === 0) return;
  const store = studyStore(db);
  const run = db.transaction(() => {
    const t = tally(db, studyId);
    const k = t.systems.length;
    const cutoff = new Date(now.getTime() - design.abandonAfterMinutes * 60_000).toISOString();
    const pending = new Map(
      pendingItems
        .all(cutoff, studyId)
        .map((r) => [r.item_id, r.n]),
    );
    const pendingPairs = new Float64Array(k * k);
    const pendingBySystem = new Map<string, number>();
    for (const [itemId, n] of pending) {
      const [a, b] = t.items.get(itemId)!;
      pendingBySystem.set(a, (pendingBySystem.get(a) ?? 0) + n);
      pendingPairs[t.index.get(a)! * k + t.index.get(b)!] += n;
    }
    const at = now.toISOString();
    for (const { position } of first) {
      const rows = mine.all(listenerId);
      const here = rows.find((r) => r.position === position)!;
      const met = new Set(rows.filter((r) => r.chosen).map((r) => r.item_id));
      const listenerPairs = new Map<string, number>();
      for (const r of rows) {
        if (!r.chosen) continue;
        const [a, b] = t.items.get(r.item_id)!;
        listenerPairs.set(pairKey(a, b), (listenerPairs.get(pairKey(a, b)) ?? 0) + 1);
      }
      const candidates: PairCandidate[] = [...t.items]
        .filter(([id]) => !met.has(id))
        .map(([itemId, systems]) => ({ itemId, systems, load: (t.itemVotes.get(itemId) ?? 0) + (pending.get(itemId) ?? 0) }));
      const random = keyedRandom(definition.seed, 'listener', listenerId, 'position', position);
      const itemId =
        (definition.trial.kind === 'rating'
          ? chooseRatingItem({ scores: t.scores, pending: pendingBySystem, candidates: candidates.map((c) => ({ itemId: c.itemId, system: c.systems[0], load: c.load })), random: random.next })
          : choosePairItem({ systems: t.systems, wins: t.wins, pending: pendingPairs, candidates, listenerPairs, maxPairRepeats: design.maxPairRepeats, random: random.next })) ?? here.item_id;
      // No item twice: a later provisional position holding the chosen item takes this one's instead.
      const later = rows.find((r) => r.item_id === itemId && r.position !== position);
      const released = later && release.get(listenerId, later.position)!;
      const item = t.studyItems.get(itemId)!;
      const [order] = drawOrders(definition.trial.kind, [{ itemId, slots: item.slots, expected: item.expected }], random, store.firstSlots);
      choose.run(itemId, order && JSON.stringify(order), at, at, listenerId, position);
      if (later) restore.run(listenerId, later.position, here.item_id, released!.slot_order, released!.assigned_at);
      // The chosen item counts as pending for the next choice of this request.
      pending.set(itemId, (pending.get(itemId) ?? 0) + 1);
      const [a, b] = t.items.get(itemId)!;
      pendingBySystem.set(a, (pendingBySystem.get(a) ?? 0) + 1);
      pendingPairs[t.index.get(a)! * k + t.index.get(b)!] += 1;
    }
  });
  run.immediate();
}

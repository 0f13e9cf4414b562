import { afterEach, describe, expect, it } from 'vitest';
import { assignTrials, StudyCompleteError } from '../design';
import { chooseServed, stopMet } from './assign';
import { baseDefinition, insertListener, seedManifest, tempDb, type TempDb } from '../test-support';
import { keyedRandom } from '../../analysis/random';
import { StudyDefinition, type StudyDefinitionInput } from '../../contract/study-definition';

let t: TempDb;
afterEach(() => t?.close());

const SYSTEMS = ['s0', 's1', 's2', 's3', 's4'];
/** True strengths: s0 and s1 are close; every other pair is far apart. */
const STRENGTH = [0, 0.1, 2.5, 5, 7.5];

/** A pair study over every pair of SYSTEMS, `perPair` items each, plus 2 attention checks and 1 practice item. */
function adaptiveStudy(db: TempDb['db'], design: Partial<Extract<StudyDefinitionInput['design'], { kind: 'adaptive' }>> = {}) {
  const pairs = SYSTEMS.flatMap((a, i) => SYSTEMS.slice(i + 1).map((b) => [a, b] as const));
  const perPair = 4;
  const u = seedManifest(db, { utterances: pairs.length * perPair + 3, systems: SYSTEMS });
  const definition = StudyDefinition.parse({
    ...baseDefinition,
    items: { mode: 'explicit', list: [{ utterance: u[0], systemA: 's0', systemB: 's1' }] },
    design: { kind: 'adaptive', itemsPerListener: 12, stop: { votes: 10_000 }, ...design },
  } satisfies StudyDefinitionInput);
  const now = new Date().toISOString();
  db.prepare("INSERT INTO studies (id, title, status, definition, created_at, updated_at) VALUES ('ad', 't', 'open', ?, ?, ?)").run(JSON.stringify(definition), now, now);
  const insert = db.prepare(
    `INSERT INTO items (id, study_id, seq, kind, trial_kind, utterance_id, stimuli, expected)
     SELECT ?, 'ad', ?, ?, 'pair', u.id, json_array(json_object('slot', 'a', 'role', 'caption', 'clip', u.clip_id, 'system', ?, 'text', 'caption a'),
                                                    json_object('slot', 'b', 'role', 'caption', 'clip', u.clip_id, 'system', ?, 'text', 'caption b')), ?
       FROM utterances u WHERE u.id = ?`,
  );
  let seq = 0;
  pairs.forEach(([a, b]) => {
    for (let n = 0; n < perPair; n++, seq++) insert.run(`i${seq}`, seq, 'pair', a, b, null, u[seq]);
  });
  insert.run('att0', seq, 'attention', 's0', 's1', 'a', u[seq++]);
  insert.run('att1', seq, 'attention', 's0', 's1', 'a', u[seq++]);
  insert.run('prac', seq, 'practice', 's0', 's1', 'a', u[seq++]);
}

interface Row {
  position: number;
  item_id: string;
  kind: string;
  slot_order: string | null;
  chosen_at: string | null;
  a: string;
  b: string;
}
const rowsOf = (db: TempDb['db'], id: string) =>
  db.prepare<[string], Row>('SELECT a.position, a.item_id, i.kind, a.slot_order, a.chosen_at, i.system_a AS a, i.system_b AS b FROM assignments a JOIN items i ON i.id = a.item_id WHERE listener_id = ? ORDER BY position').all(id);

/** A listener who votes by the Bradley–Terry model of STRENGTH, choosing each trial as it is served. */
function simulate(db: TempDb['db'], id: string, random: () => number): Row[] {
  insertListener(db, 'ad', id);
  return answerAll(db, id, random);
}

/** An assigned (or new) listener answers every trial of their session. */
function answerAll(db: TempDb['db'], id: string, random: () => number): Row[] {
  const total = assignTrials(db, 'ad', id);
  const vote = db.prepare(
    `INSERT INTO votes (id, listener_id, item_id, position, answer, play_count, seconds_listened, heard_to_end, hidden_ms, response_ms, client_ts, server_ts)
     VALUES (?, ?, ?, ?, ?, 1, 2.5, 1, 0, 1500, ?, ?)`,
  );
  for (let position = 0; position < total; position++) {
    chooseServed(db, 'ad', id, [position, position + 1]);
    const row = rowsOf(db, id)[position];
    const first = (JSON.parse(row.slot_order!) as string[])[0];
    const pA = 1 / (1 + Math.exp(-(STRENGTH[SYSTEMS.indexOf(row.a)] - STRENGTH[SYSTEMS.indexOf(row.b)])));
    const chosen = row.kind === 'pair' ? (random() < pA ? 'a' : 'b') : 'a';
    const at = new Date().toISOString();
    vote.run(`${id}-${position}`, id, row.item_id, position, JSON.stringify({ first, chosen }), at, at);
  }
  return rowsOf(db, id);
}

describe('adaptive design — pair rule at serving time', () => {
  it('spends votes on the close pair, never repeats an item, keeps practice and attention in place', () => {
    t = tempDb();
    adaptiveStudy(t.db);
    const random = keyedRandom(7, 'simulated listeners').next;
    const perPair = new Map<string, number>();
    for (let l = 0; l < 30; l++) {
      const id = `L${l}`;
      insertListener(t.db, 'ad', `${id}-probe`);
      const rows = simulate(t.db, id, random);
      expect(rows).toHaveLength(15);
      expect(rows[0].kind).toBe('practice');
      expect(rows.filter((r) => r.kind === 'attention')).toHaveLength(2);
      expect(rows.at(-1)!.kind).not.toBe('attention');
      expect(new Set(rows.map((r) => r.item_id)).size).toBe(rows.length);
      expect(rows.every((r) => r.chosen_at !== null)).toBe(true);
      const pairsOfListener = new Map<string, number>();
      for (const r of rows.filter((r) => r.kind === 'pair')) {
        const key = `${r.a}-${r.b}`;
        perPair.set(key, (perPair.get(key) ?? 0) + 1);
        pairsOfListener.set(key, (pairsOfListener.get(key) ?? 0) + 1);
      }
      expect(Math.max(...pairsOfListener.values())).toBeLessThanOrEqual(2);
    }
    // 30 listeners × 12 votes over 10 pairs: uniform would be 36 each. The neighbours in strength
    // (s0–s1 at most 2 per listener) get more, the farthest pairs (7.4 and 7.5 apart) almost nothing.
    for (const key of ['s0-s1', 's1-s2', 's2-s3', 's3-s4']) expect(perPair.get(key) ?? 0).toBeGreaterThan(40);
    expect((perPair.get('s0-s4') ?? 0) + (perPair.get('s1-s4') ?? 0)).toBeLessThan(10);
    // Every system stays connected: each takes part in some comparison.
    for (const s of SYSTEMS) expect([...perPair.keys()].some((k) => k.split('-').includes(s))).toBe(true);
  });

  it('a served position never changes', () => {
    t = tempDb();
    adaptiveStudy(t.db);
    insertListener(t.db, 'ad', 'A');
    assignTrials(t.db, 'ad', 'A');
    chooseServed(t.db, 'ad', 'A', [0, 1, 2]);
    const before = rowsOf(t.db, 'A').slice(0, 3);
    simulate(t.db, 'B', keyedRandom(1, 'b').next);
    chooseServed(t.db, 'ad', 'A', [0, 1, 2, 3]);
    expect(rowsOf(t.db, 'A').slice(0, 3)).toEqual(before);
  });

  it('stops assigning once the vote budget is spent, counting what started sessions owe; started listeners go on', () => {
    t = tempDb();
    adaptiveStudy(t.db, { stop: { votes: 20 } });
    const definition = StudyDefinition.parse(JSON.parse(t.db.prepare("SELECT definition FROM studies WHERE id = 'ad'").pluck().get() as string));
    const scored = (id: string) => rowsOf(t.db, id).filter((r) => r.kind === 'pair').length;
    insertListener(t.db, 'ad', 'started');
    expect(assignTrials(t.db, 'ad', 'started')).toBe(15);
    // 'started' owes 12 of the 20 votes, so the next listener gets the 8 places left (and both checks).
    simulate(t.db, 'one', keyedRandom(1, 'x').next);
    expect(scored('one')).toBe(8);
    expect(rowsOf(t.db, 'one')).toHaveLength(11);
    expect(stopMet(t.db, 'ad', definition.design as never, 'pair')).toBe(false);
    insertListener(t.db, 'ad', 'late');
    expect(() => assignTrials(t.db, 'ad', 'late')).toThrow(StudyCompleteError);
    // A session that has not answered holds its places for UNANSWERED_HOLD_MINUTES only.
    insertListener(t.db, 'ad', 'later');
    expect(() => assignTrials(t.db, 'ad', 'later', undefined, new Date(Date.now() + 4 * 60_000))).toThrow(StudyCompleteError);
    expect(assignTrials(t.db, 'ad', 'later', undefined, new Date(Date.now() + 6 * 60_000))).toBe(15);
    // The listener who started first still finishes; the votes reach the budget, not past it.
    answerAll(t.db, 'started', keyedRandom(1, 'y').next);
    expect(stopMet(t.db, 'ad', definition.design as never, 'pair')).toBe(true);
    const votes = t.db.prepare("SELECT count(*) FROM votes v JOIN items i ON i.id = v.item_id WHERE i.kind = 'pair'").pluck().get();
    expect(votes).toBe(20);
    insertListener(t.db, 'ad', 'last');
    expect(() => assignTrials(t.db, 'ad', 'last')).toThrow(StudyCompleteError);
  });
  it('a session its listener left owes nothing: the vote budget takes the next listener in full', () => {
    t = tempDb();
    adaptiveStudy(t.db, { stop: { votes: 20 } });
    const scored = (id: string) => rowsOf(t.db, id).filter((r) => r.kind === 'pair').length;
    for (const id of ['quitter', 'one', 'two']) insertListener(t.db, 'ad', id);
    assignTrials(t.db, 'ad', 'quitter');
    assignTrials(t.db, 'ad', 'one');
    expect(scored('one')).toBe(8);
    t.db.prepare("UPDATE listeners SET left_at = ? WHERE id = 'quitter'").run(new Date().toISOString());
    assignTrials(t.db, 'ad', 'two');
    expect(scored('two')).toBe(12);
  });
});

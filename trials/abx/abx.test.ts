/**
 * ABX end to end on the server, on the demo's three synthetic TTS systems: the template builds from
 * the real files; a real server on loopback serves A, B and X (X one of the two, drawn balanced per
 * listener, from its clip's replay: server/test/abx-replay.test.ts); the answer is stored in the item's terms with X recorded; another kind's answer is
 * refused; a check's X is the degraded copy; the abx.csv row; and the report's §5.2 statistics on
 * answers of a seeded simulated panel of known d′.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStudyDir } from '../../studies/load';
import { setStudyStatus } from '../../studies/build';
import { startTestServer, type TestServer } from '../../server/testing/server';
import { call } from '../../server/testing/client';
import { keyedRandom, seededRandom } from '../../analysis/random';
import type { Bundle, BundleItem } from '../../analysis/bundle';
import type { KindAnswer } from '../../analysis/kinds/types';
import { abxOrders } from './plan';
import { abx } from './server';
import { abxAnalysis, abxPairs, type AbxRow } from './report';
import { abxAnswer } from './simulate';
import { abxDPrime } from '../../analysis/stats/abx-d-prime';

const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../../studies/templates/demo-abx.yaml', import.meta.url));
const SYSTEMS = ['espeak-en-slow', 'espeak-en-fast', 'espeak-de-accent'];

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ studies: [] });
  const doc = parseDocument(readFileSync(TEMPLATE, 'utf8').replaceAll('../demo/', DEMO));
  const dir = join(server.dataDir, 'studies', 'abx');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'study.yaml'), doc.toString());
  const { studyId } = await loadStudyDir(server.app.db, dir, { dataDir: server.dataDir });
  setStudyStatus(server.app.db, studyId, 'open');
});
afterAll(() => server?.close());

const start = async (pid: string) => {
  const started = await call(`${server.url}/api/sessions`, { body: { study: 'abx', external: { PROLIFIC_PID: pid } } });
  expect(started.status, started.text).toBe(201);
  return { token: started.body.token as string, state: started.body.state, listener: server.app.store.sessions.byToken(started.body.token)!.id };
};
const heardAll = [0, 1, 2].map(() => ({ plays: 1, secondsHeard: 2, heardToEnd: true }));
const vote = (token: string, position: number, answer: object, voteId = randomUUID()) =>
  call(`${server.url}/api/session/votes`, {
    token,
    body: { voteId, position, playCount: 3, secondsListened: 6, heardToEnd: true, hiddenMs: 0, responseMs: 1800, clientTs: new Date().toISOString(), listening: heardAll, ...answer },
  });
const trials = (listener: string) =>
  server.app.db
    .prepare('SELECT a.position, a.slot_order, i.kind, i.stimuli, i.expected FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? ORDER BY a.position')
    .all(listener) as { position: number; slot_order: string; kind: string; stimuli: string; expected: string | null }[];

describe('ABX on the server', () => {
  it('serves A, B and X (the replay of A’s or of B’s clip), naming no system', async () => {
    const { state, listener } = await start('P-serve');
    expect(state.progress.total).toBe(15);
    const ids = state.trial.stimuli.map((s: { id: string }) => s.id);
    expect(state.trial).toMatchObject({ kind: 'abx', practice: expect.any(Boolean) });
    expect(ids).toHaveLength(3);
    const [, , x] = JSON.parse(trials(listener)[0].slot_order) as string[];
    const xClip = (JSON.parse(trials(listener)[0].stimuli) as { slot: string; clip: string }[]).find((s) => s.slot === x)!.clip;
    const replay = server.app.db.prepare("SELECT id FROM served_clips WHERE study_id = 'abx' AND clip_id = ? AND variant = 'replay'").pluck().get(xClip);
    expect(ids[2]).toBe(replay);
    expect(new Set(ids).size).toBe(3);
    const text = JSON.stringify(state);
    for (const secret of [...SYSTEMS, 'espeak', 'demo-0', 'degraded']) expect(text).not.toContain(secret);
  });

  it('draws X balanced per listener: A in half of the trials and B in the other half (± 1), scored trials too; a check’s X is its degraded copy', async () => {
    for (let l = 0; l < 8; l++) {
      const { listener } = await start(`P-balance-${l}`);
      const rows = trials(listener);
      const side = (r: (typeof rows)[number]) => {
        const [first, , x] = JSON.parse(r.slot_order) as string[];
        return x === first ? 'A' : 'B';
      };
      const imbalance = (rs: typeof rows) => Math.abs(rs.filter((r) => side(r) === 'A').length - rs.filter((r) => side(r) === 'B').length);
      expect(imbalance(rows)).toBeLessThanOrEqual(1);
      expect(imbalance(rows.filter((r) => r.kind === 'abx'))).toBeLessThanOrEqual(1);
      for (const r of rows.filter((r) => r.kind !== 'abx')) {
        const x = (JSON.parse(r.slot_order) as string[])[2];
        expect(x).toBe(r.expected);
        const stimuli = JSON.parse(r.stimuli) as { slot: string; system: string }[];
        expect(stimuli.find((s) => s.slot === x)!.system).toMatch(/^degraded:/);
      }
    }
  });

  it('stores {first, x, chosen} in the item’s terms and writes the abx.csv row; another kind’s answer is refused', async () => {
    const { token, listener } = await start('P-vote');
    const refused = await vote(token, 0, { preference: 'A' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ field: 'xIs', message: expect.stringMatching(/ABX: send xIs/) });
    const ok = await vote(token, 0, { xIs: 'B' });
    expect(ok.status, ok.text).toBe(200);
    const [first, second, x] = JSON.parse(trials(listener)[0].slot_order) as string[];
    const row = server.app.db.prepare('SELECT answer FROM votes WHERE listener_id = ? AND position = 0').pluck().get(listener) as string;
    expect(JSON.parse(row)).toEqual({ first, x, chosen: second });
    const stimuli = JSON.parse(trials(listener)[0].stimuli);
    const answers = abx.answers as Extract<typeof abx.answers, { columns: readonly string[] }>;
    expect(answers.rows({ item_id: 'i1', listener_id: listener, answer: JSON.parse(row) } as never, { stimuli } as never)).toEqual([
      { item_id: 'i1', listener_id: listener, system_a: stimuli[0].system, system_b: stimuli[1].system, x, chosen: second },
    ]);
  });
});

describe('abxOrders', () => {
  it('balances X’s side for any number of trials, with or without checks', () => {
    for (let n = 0; n < 30; n++) {
      for (let checks = 0; checks < 4; checks++) {
        const list = Array.from({ length: n + checks }, (_, i) => ({ itemId: `i${i}`, slots: ['a', 'b'], expected: i < checks ? 'b' : null }));
        const orders = abxOrders(list, keyedRandom(n, checks));
        const sides = orders.map((o) => (o[2] === o[0] ? 'A' : 'B'));
        const diff = (s: string[]) => Math.abs(s.filter((v) => v === 'A').length - s.filter((v) => v === 'B').length);
        expect(diff(sides)).toBeLessThanOrEqual(1);
        expect(diff(sides.slice(checks))).toBeLessThanOrEqual(1);
        orders.slice(0, checks).forEach((o) => expect(o[2]).toBe('b'));
        orders.forEach((o) => expect(new Set(o.slice(0, 2))).toEqual(new Set(['a', 'b'])));
      }
    }
  });
});

describe('the ABX report (§5.2)', () => {
  const item = (id: string, a: string, b: string, attention = false): BundleItem => ({ kind: 'abx', item_id: id, utterance_id: `u-${id}`, system_a: a, system_b: b, attention, expected: attention ? 'b' : null });

  it('counts per unordered pair, with H and F about the lesser system whichever side it was on', () => {
    // Pair (p, q): q is item i2's a. Answers in the item's terms.
    const items = [item('i1', 'p', 'q'), item('i2', 'q', 'p'), item('i3', 'p', 'q', true)];
    const rows: [number, number, AbxRow][] = [
      [0, 0, { x: 'a', chosen: 'a' }], // x = p, chosen p: hit
      [0, 1, { x: 'b', chosen: 'a' }], // x = q, chosen p: false alarm
      [1, 0, { x: 'a', chosen: 'a' }], // item a = q: x = q, chosen q: correct, not a false alarm
      [1, 1, { x: 'b', chosen: 'b' }], // x = p, chosen p: hit
      [2, 0, { x: 'b', chosen: 'a' }], // attention: left out
      [0, 2, { x: 'a', chosen: 'b' }], // listener 2 not retained
    ];
    const answers: KindAnswer<AbxRow>[] = rows.map(([i, l, r], line) => ({ item: i, listener: l, rows: [r], line: line + 2 }));
    const bundle = { items, listeners: ['L1', 'L2', 'L3'] } as unknown as Bundle;
    const section = abxPairs(bundle, answers, Uint8Array.from([1, 1, 0]));
    expect(section.answers).toBe(4);
    const [pair] = section.pairs;
    expect(pair).toMatchObject({ system_a: 'p', system_b: 'q', n: 4, correct: 3, p_correct: 0.75 });
    expect(pair.p_value).toBeCloseTo(5 / 16, 12);
    // H = hits/m(x = p) = 2/2 → 1 − 1/4; F = 1/2.
    expect(pair.hit_rate).toBe(0.75);
    expect(pair.false_alarm_rate).toBe(0.5);
    expect(pair.d_prime_independent).toBeCloseTo(abxDPrime(0.75, 0.5).independent, 12);
    expect(abxAnalysis.csv(section)['abx_pairs.csv'].rows[0].slice(0, 5)).toEqual(['p', 'q', 4, 3, 0.75]);
  });

  it('recovers a simulated panel’s truth: the pair with the larger d′ scores the larger d′, a pair alike is at chance', () => {
    const truth: Record<string, number> = { 'p|q': 2.5, 'p|r': 1, 'q|r': 0 };
    const items: BundleItem[] = [];
    for (const pair of Object.keys(truth)) for (let k = 0; k < 40; k++) items.push(item(`${pair}-${k}`, ...(pair.split('|') as [string, string])));
    const random = seededRandom(7);
    const answers: KindAnswer<AbxRow>[] = [];
    for (let l = 0; l < 20; l++) {
      items.forEach((it, i) => {
        const x = random() < 0.5 ? 'a' : 'b';
        const xIs = random() < 0.5 ? 'A' : 'B';
        const said = abxAnswer(random, { xIs, dPrime: truth[`${it.system_a}|${it.system_b}`], check: false });
        answers.push({ item: i, listener: l, rows: [{ x, chosen: said === xIs ? x : x === 'a' ? 'b' : 'a' }], line: 2 + answers.length });
      });
    }
    const bundle = { items, listeners: Array.from({ length: 20 }, (_, l) => `L${l}`) } as unknown as Bundle;
    const { pairs } = abxPairs(bundle, answers, new Uint8Array(20).fill(1));
    const d = Object.fromEntries(pairs.map((p) => [`${p.system_a}|${p.system_b}`, p]));
    expect(d['p|q'].d_prime_independent!).toBeGreaterThan(d['p|r'].d_prime_independent!);
    expect(d['p|q'].d_prime_independent!).toBeCloseTo(2.5, 0);
    expect(d['p|r'].d_prime_independent!).toBeCloseTo(1, 0);
    expect(d['p|q'].p_value!).toBeLessThan(1e-6);
    expect(d['q|r'].p_value!).toBeGreaterThan(0.01);
    expect(d['p|q'].d_prime_differencing!).toBeGreaterThan(d['p|q'].d_prime_independent!);
  });

  it('refuses bad items.csv and abx.csv rows, naming the file, line and column', () => {
    const cells = { item_id: 'i1', utterance_id: 'u', system_a: 'p', system_b: 'p', attention: '0', expected: '' };
    expect(String(abxAnalysis.item(cells, 3))).toMatch(/items\.csv line 3, column 4 \(system_b\): an ABX item compares two different systems/);
    expect(String(abxAnalysis.item({ ...cells, system_b: 'q', attention: '1' }, 4))).toMatch(/line 4, column 6 \(expected\): an ABX attention item expects a or b/);
    const it1 = abxAnalysis.item({ ...cells, system_b: 'q' }, 2) as BundleItem;
    expect(String(abxAnalysis.row({ item_id: 'i1', listener_id: 'L', system_a: 'p', system_b: 'q', x: 'c', chosen: 'a' }, it1, 7))).toMatch(/abx\.csv line 7, column x: must be a or b/);
    expect(String(abxAnalysis.row({ item_id: 'i1', listener_id: 'L', system_a: 'q', system_b: 'p', x: 'a', chosen: 'a' }, it1, 8))).toMatch(/abx\.csv line 8, column system_a: must be the item's systems \(p, q\)/);
    expect(abxAnalysis.correct({ item: 0, listener: 0, rows: [{ x: 'b', chosen: 'b' }], line: 2 }, { ...it1, attention: true, expected: 'b' })).toBe(true);
  });
});

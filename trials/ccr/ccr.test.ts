/**
 * CCR/CMOS end to end on the server, on the demo's synthetic TTS systems: the template builds from
 * the real files; a study without a reference is refused at validate with its line and what is
 * accepted; a real server serves the two renditions in an order balanced per item across
 * listeners; the answer is stored with the sign correction and written as the ccr.csv row; and the
 * report's CMOS, ranks and order effect on a seeded simulated panel of known truth.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStudyDir, validateStudyDir } from '../../studies/load';
import { setStudyStatus } from '../../studies/build';
import { startTestServer, type TestServer } from '../../server/testing/server';
import { call } from '../../server/testing/client';
import { seededRandom } from '../../analysis/random';
import type { Bundle, BundleItem } from '../../analysis/bundle';
import type { KindAnswer } from '../../analysis/kinds/types';
import { ccr } from './server';
import { ccrAnalysis, ccrSystems, signCorrected, type CcrRow } from './report';
import { ccrAnswer } from './simulate';

const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../../studies/templates/demo-ccr.yaml', import.meta.url));
const SYSTEMS = ['espeak-en-slow', 'espeak-en-fast', 'espeak-de-accent'];

let server: TestServer;

const writeStudy = (name: string, edit: (doc: ReturnType<typeof parseDocument>) => void = () => {}) => {
  const doc = parseDocument(readFileSync(TEMPLATE, 'utf8').replaceAll('../demo/', DEMO));
  edit(doc);
  const dir = join(server.dataDir, 'studies', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'study.yaml'), doc.toString());
  return dir;
};

beforeAll(async () => {
  server = await startTestServer({ studies: [] });
  const { studyId } = await loadStudyDir(server.app.db, writeStudy('ccr'), { dataDir: server.dataDir });
  setStudyStatus(server.app.db, studyId, 'open');
});
afterAll(() => server?.close());

const start = async (pid: string) => {
  const started = await call(`${server.url}/api/sessions`, { body: { study: 'ccr', external: { PROLIFIC_PID: pid } } });
  expect(started.status, started.text).toBe(201);
  return { body: started.body, token: started.body.token as string, state: started.body.state, listener: server.app.store.sessions.byToken(started.body.token)!.id };
};
const heardBoth = [0, 1].map(() => ({ plays: 1, secondsHeard: 2.5, heardToEnd: true }));
const vote = (token: string, position: number, answer: object) =>
  call(`${server.url}/api/session/votes`, {
    token,
    body: { voteId: randomUUID(), position, playCount: 2, secondsListened: 5, heardToEnd: true, hiddenMs: 0, responseMs: 1800, clientTs: new Date().toISOString(), listening: heardBoth, ...answer },
  });
const trials = (listener: string) =>
  server.app.db
    .prepare('SELECT a.position, a.item_id, a.slot_order, i.kind, i.stimuli FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? ORDER BY a.position')
    .all(listener) as { position: number; item_id: string; slot_order: string; kind: string; stimuli: string }[];

describe('a CCR study without a reference', () => {
  it('is refused at validate with the file, line and column and what would be accepted', async () => {
    const dir = writeStudy('ccr-no-reference', (doc) => doc.deleteIn(['trial', 'reference']));
    const refused = await validateStudyDir(server.app.db, dir, { dataDir: server.dataDir }).then(() => null, (error: Error) => error.message);
    expect(refused).toMatch(/^ccr-no-reference\/study\.yaml:\d+:\d+ trial\.reference: a CCR study rates each system against a reference: name its system here \(trial: \{ kind: ccr, reference: <a system with renditions> \}\)/m);
  });
  it('and one whose reference has no renditions, naming the systems that have', async () => {
    const dir = writeStudy('ccr-bad-reference', (doc) => doc.setIn(['trial', 'reference'], 'tts-nowhere'));
    const refused = await validateStudyDir(server.app.db, dir, { dataDir: server.dataDir }).then(() => null, (error: Error) => error.message);
    expect(refused).toMatch(/^ccr-bad-reference\/study\.yaml:\d+:\d+ trial\.reference: system tts-nowhere has no renditions in the study's sources \(systems with renditions: espeak-de-accent, espeak-en-fast, espeak-en-slow\)/m);
  });
});

describe('CCR on the server', () => {
  it('serves the two renditions in the listener’s order, naming no system', async () => {
    const { body, state, listener } = await start('P-serve');
    expect(state.progress.total).toBe(15);
    // Nor does the study's intro: its trial settings reach the listener without the reference's name.
    const intro = await call(`${server.url}/api/studies/ccr/intro`);
    expect(intro.status, intro.text).toBe(200);
    expect(intro.body.trial).toEqual({ kind: 'ccr' });
    for (const secret of SYSTEMS) expect(JSON.stringify(body) + intro.text).not.toContain(secret);
    expect(state.trial).toMatchObject({ kind: 'ccr', practice: expect.any(Boolean) });
    expect(state.trial.stimuli).toHaveLength(2);
    const [first] = JSON.parse(trials(listener)[0].slot_order) as string[];
    const served = server.app.db.prepare("SELECT id FROM served_clips WHERE study_id = 'ccr' AND clip_id = ?").pluck();
    const clip = (JSON.parse(trials(listener)[0].stimuli) as { slot: string; clip: string }[]).find((s) => s.slot === first)!.clip;
    expect(state.trial.stimuli[0].id).toBe(served.get(clip));
    const text = JSON.stringify(state);
    for (const secret of [...SYSTEMS, 'espeak', 'reference', 'degraded']) expect(text).not.toContain(secret);
  });

  it('balances the order per item across listeners: reference-first and processed-first differ by at most one on every item', async () => {
    const firsts = new Map<string, { reference: number; processed: number }>();
    for (let l = 0; l < 7; l++) {
      const { listener } = await start(`P-balance-${l}`);
      for (const t of trials(listener)) {
        const f = firsts.get(t.item_id) ?? { reference: 0, processed: 0 };
        f[(JSON.parse(t.slot_order) as string[])[0] as 'reference' | 'processed']++;
        firsts.set(t.item_id, f);
      }
    }
    // 8 listeners so far (P-serve too): 4 and 4 on every item, not a coin's spread.
    expect(firsts.size).toBe(15);
    for (const f of firsts.values()) expect(Math.abs(f.reference - f.processed)).toBeLessThanOrEqual(1);
  });

  it('stores the answer with the sign correction (score = processed relative to reference) and writes the ccr.csv row; another kind’s answer is refused', async () => {
    const { token, listener } = await start('P-vote');
    const refused = await vote(token, 0, { score: 3 });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ field: 'comparison', message: expect.stringMatching(/CCR: send comparison/) });
    expect((await vote(token, 0, { comparison: 4 })).status).toBe(400);
    const ok = await vote(token, 0, { comparison: 2 });
    expect(ok.status, ok.text).toBe(200);
    const [first] = JSON.parse(trials(listener)[0].slot_order) as string[];
    const stored = JSON.parse(server.app.db.prepare('SELECT answer FROM votes WHERE listener_id = ? AND position = 0').pluck().get(listener) as string);
    expect(stored).toEqual({ first, raw: 2, score: first === 'reference' ? 2 : -2 });
    const stimuli = JSON.parse(trials(listener)[0].stimuli) as { slot: string; system: string }[];
    const answers = ccr.answers as Extract<typeof ccr.answers, { columns: readonly string[] }>;
    expect(answers.rows({ item_id: 'i1', listener_id: listener, answer: stored } as never, { stimuli } as never)).toEqual([
      { item_id: 'i1', listener_id: listener, system: stimuli[1].system, reference_system: 'espeak-en-slow', first, raw: 2, score: stored.score },
    ]);
    expect(stimuli[0]).toMatchObject({ slot: 'reference', system: 'espeak-en-slow' });
  });
});

describe('the CCR report (§5.4)', () => {
  const item = (id: string, system: string, attention = false): BundleItem => ({ kind: 'ccr', item_id: id, utterance_id: `u-${id}`, system_a: system, system_b: 'ref', attention, expected: attention ? -1 : null });

  it('sign-corrects: raw with the reference first, −raw with the processed first', () => {
    expect(signCorrected('reference', 2)).toBe(2);
    expect(signCorrected('processed', 2)).toBe(-2);
    expect(Object.is(signCorrected('processed', 0), 0)).toBe(true);
  });

  it('recovers a simulated panel’s truth (CMOS order and values) and its order effect, with the order balanced', () => {
    const truth: Record<string, number> = { good: 1, same: 0, bad: -1.5 };
    const items: BundleItem[] = [];
    for (const system of Object.keys(truth)) for (let k = 0; k < 20; k++) items.push(item(`${system}-${k}`, system));
    items.push(item('check', 'ref:degraded', true));
    const random = seededRandom(11);
    const answers: KindAnswer<CcrRow>[] = [];
    for (let l = 0; l < 30; l++) {
      items.forEach((it, i) => {
        const first = (l + i) % 2 === 0 ? 'reference' : 'processed';
        const raw = ccrAnswer(random, { first, cmos: truth[it.system_a] ?? 0, check: it.attention }, { recency: 0.5 });
        answers.push({ item: i, listener: l, rows: [{ first, raw, score: signCorrected(first, raw) }], line: answers.length + 2 });
      });
    }
    const bundle = { items, listeners: Array.from({ length: 30 }, (_, l) => `L${l}`) } as unknown as Bundle;
    const section = ccrSystems(bundle, answers, new Uint8Array(30).fill(1));
    expect(section.systems.map((s) => s.system)).toEqual(['good', 'same', 'bad']);
    expect(section.systems.map((s) => s.rank)).toEqual([1, 2, 3]);
    expect(section.systems[0].cmos!).toBeCloseTo(1, 0);
    expect(section.systems[2].cmos!).toBeCloseTo(-1.5, 0);
    for (const s of section.systems) {
      expect(s.ci95![0]).toBeLessThan(truth[s.system]);
      expect(s.ci95![1]).toBeGreaterThan(truth[s.system]);
      expect(s.reference_system).toBe('ref');
    }
    // A recency pull of +0.5 on "second vs first" is +0.5 with the reference first and −0.5 otherwise: about +1.
    expect(section.order_effect!).toBeGreaterThan(0.6);
    expect(section.order_effect!).toBeLessThan(1.4);
    expect(section.answers).toBe(1800);
    expect(ccrAnalysis.csv(section)['ccr_systems.csv'].rows[0].slice(0, 3)).toEqual(['good', 'ref', 600]);
  });

  it('refuses bad rows naming the file, line and column, and scores an attention answer by its sign', () => {
    const it1 = ccrAnalysis.item({ item_id: 'i1', utterance_id: 'u', system_a: 'sys', system_b: 'ref', attention: '0', expected: '' }, 2) as BundleItem;
    const row = { item_id: 'i1', listener_id: 'L', system: 'sys', reference_system: 'ref', first: 'processed', raw: '2', score: '2' };
    expect(String(ccrAnalysis.row(row, it1, 5))).toMatch(/ccr\.csv line 5, column score: must be -2: raw with the reference first, −raw with the processed first/);
    expect(String(ccrAnalysis.row({ ...row, first: 'second' }, it1, 6))).toMatch(/line 6, column first: must be reference or processed/);
    expect(String(ccrAnalysis.row({ ...row, raw: '4' }, it1, 7))).toMatch(/line 7, column raw: must be an integer from -3 to 3/);
    expect(String(ccrAnalysis.row({ ...row, reference_system: 'x' }, it1, 8))).toMatch(/line 8, column reference_system: must be the item's reference \(ref/);
    expect(String(ccrAnalysis.item({ item_id: 'c', utterance_id: 'u', system_a: 's', system_b: 'ref', attention: '1', expected: '0' }, 9))).toMatch(/items\.csv line 9, column 6 \(expected\): a CCR attention item expects a non-zero score/);
    const check = { ...it1, attention: true, expected: -1 };
    expect(ccrAnalysis.correct({ item: 0, listener: 0, rows: [{ first: 'processed', raw: 2, score: -2 }], line: 2 }, check)).toBe(true);
    expect(ccrAnalysis.correct({ item: 0, listener: 0, rows: [{ first: 'reference', raw: 0, score: 0 }], line: 2 }, check)).toBe(false);
  });
});

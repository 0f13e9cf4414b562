/**
 * MUSHRA end to end on the server, on the demo's synthetic TTS systems: the template builds from the
 * real files (the anchors made at the renditions import); bad studies are refused at validate with
 * file:line:column and what is accepted; a real server serves each page as the open reference and
 * the rated stimuli in the listener's recorded order; the answer is checked (every stimulus played
 * and scored), stored and written as mushra.csv rows.
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
import { mushra } from './server';

const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../../studies/templates/demo-mushra.yaml', import.meta.url));
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
const refusal = (dir: string) => validateStudyDir(server.app.db, dir, { dataDir: server.dataDir }).then(() => null, (error: Error) => error.message);

beforeAll(async () => {
  server = await startTestServer({ studies: [] });
  const { studyId } = await loadStudyDir(server.app.db, writeStudy('mushra'), { dataDir: server.dataDir });
  setStudyStatus(server.app.db, studyId, 'open');
});
afterAll(() => server?.close());

const start = async (pid: string) => {
  const started = await call(`${server.url}/api/sessions`, { body: { study: 'mushra', external: { PROLIFIC_PID: pid } } });
  expect(started.status, started.text).toBe(201);
  return { token: started.body.token as string, state: started.body.state, listener: server.app.store.sessions.byToken(started.body.token)!.id };
};
const heard = (n: number, unplayed: number[] = []) => Array.from({ length: n }, (_, i) => (unplayed.includes(i) ? { plays: 0, secondsHeard: 0, heardToEnd: false } : { plays: 1, secondsHeard: 2, heardToEnd: true }));
const vote = (token: string, position: number, scores: number[], listening = heard(scores.length)) =>
  call(`${server.url}/api/session/votes`, {
    token,
    body: {
      voteId: randomUUID(), position, playCount: listening.reduce((n, e) => n + e.plays, 0), secondsListened: listening.reduce((n, e) => n + e.secondsHeard, 0),
      heardToEnd: listening.every((e) => e.heardToEnd), hiddenMs: 0, responseMs: 9000, clientTs: new Date().toISOString(), listening, scores,
    },
  });
const trials = (listener: string) =>
  server.app.db
    .prepare('SELECT a.position, a.item_id, a.slot_order, i.kind, i.stimuli FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? ORDER BY a.position')
    .all(listener) as { position: number; item_id: string; slot_order: string; kind: string; stimuli: string }[];

describe('bad MUSHRA studies are refused at validate with file:line:column and what is accepted', () => {
  it('anchors named without a reference', async () => {
    expect(await refusal(writeStudy('m-no-ref', (doc) => doc.deleteIn(['trial', 'reference'])))).toMatch(
      /^m-no-ref\/study\.yaml:\d+:\d+ trial\.reference: the anchors \(anchor35, anchor70\) are made from the reference's rendition and the hidden reference is that rendition: name the reference system here/m,
    );
  });
  it('more than 12 stimuli a page', async () => {
    const many = Array.from({ length: 10 }, (_, i) => `tts-${i}`);
    expect(await refusal(writeStudy('m-many', (doc) => doc.setIn(['trial', 'systems'], many)))).toMatch(
      /^m-many\/study\.yaml:\d+:\d+ trial\.systems: a page would have 13 stimuli \(the hidden reference, 2 anchors and 10 systems\); ITU-R BS\.1534-3 allows at most 12 per page: list at most 9 systems/m,
    );
  });
  it('a reference system lacking a rendition for a listed item', async () => {
    const dir = writeStudy('m-missing', (doc) => {
      doc.set('items', doc.createNode({ mode: 'explicit', list: [{ utterance: 'metaset:demo/demo-01.wav' }, { utterance: 'metaset:nowhere.wav' }] }));
    });
    expect(await refusal(dir)).toMatch(/^m-missing\/study\.yaml:\d+:\d+ items\.list\[1\]\.utterance: utterance metaset:nowhere\.wav is not in the study's sources/m);
    const bad = writeStudy('m-bad-ref', (doc) => doc.setIn(['trial', 'reference'], 'tts-nowhere'));
    expect(await refusal(bad)).toMatch(/^m-bad-ref\/study\.yaml:\d+:\d+ trial\.reference: system tts-nowhere has no renditions in the study's sources \(systems with renditions: espeak-de-accent, espeak-en-fast, espeak-en-slow\)/m);
  });
  it('attention checks (BS.1534-3 screens afterwards instead)', async () => {
    expect(await refusal(writeStudy('m-checks', (doc) => doc.set('attentionChecks', doc.createNode({ mode: 'degraded', count: 2 }))))).toMatch(
      /^m-checks\/study\.yaml:\d+:\d+ attentionChecks: a MUSHRA study has no attention checks: BS\.1534-3 screens listeners after the test instead/m,
    );
  });
  it('no training page', async () => {
    expect(await refusal(writeStudy('m-no-training', (doc) => doc.set('practice', doc.createNode([]))))).toMatch(/^m-no-training\/study\.yaml:\d+:\d+ practice: BS\.1534-3 makes training mandatory/m);
  });
});

describe('MUSHRA on the server', () => {
  it('serves each page as the open reference and the rated stimuli in the listener’s recorded random order, naming no system', async () => {
    const { state, listener } = await start('P-serve');
    expect(state.progress.total).toBe(7);
    const intro = await call(`${server.url}/api/studies/mushra/intro`);
    // The listener learns the page's layout, never its systems.
    expect(intro.body.trial).toEqual({ kind: 'mushra', referencePosition: 'above' });
    expect(state.trial).toMatchObject({ kind: 'mushra', practice: true });
    expect(state.trial.stimuli).toHaveLength(5);
    const [first] = trials(listener);
    const order = JSON.parse(first.slot_order) as string[];
    expect([...order].sort()).toEqual(['anchor35', 'anchor70', 'condition-1', 'condition-2', 'reference']);
    const stimuli = JSON.parse(first.stimuli) as { slot: string; role: string; clip: string; system: string }[];
    const served = server.app.db.prepare("SELECT id FROM served_clips WHERE study_id = 'mushra' AND clip_id = ? AND variant = ?").pluck();
    // The hidden reference plays from its clip's replay, the open reference and the rest from their copies.
    expect(state.trial.stimuli.map((c: { id: string }) => c.id)).toEqual(order.map((slot) => served.get(stimuli.find((s) => s.slot === slot)!.clip, slot === 'reference' ? 'replay' : '')));
    expect(state.trial.reference.id).toBe(served.get(stimuli.find((s) => s.slot === 'reference')!.clip, ''));
    expect(stimuli.map((s) => [s.role, s.system])).toEqual([['reference', 'espeak-en-slow'], ['anchor35', 'anchor35'], ['anchor70', 'anchor70'], ['condition', 'espeak-en-fast'], ['condition', 'espeak-de-accent']]);
    // The anchors are the reference rendition's, made at import.
    const clips = server.app.db.prepare('SELECT corpus, json_extract(labels, \'$.anchor\') AS anchor FROM clips WHERE id = ?');
    expect(clips.get(stimuli[1].clip)).toEqual({ corpus: 'anchor', anchor: 'anchor35' });
    const text = JSON.stringify(state);
    for (const secret of [...SYSTEMS, 'espeak', 'anchor', 'condition', 'hidden']) expect(text).not.toContain(secret);
  });

  it('keeps the open reference where the study says (referencePosition: below), and tells the listener page', async () => {
    const { studyId } = await loadStudyDir(server.app.db, writeStudy('mushra-below', (doc) => doc.setIn(['trial', 'referencePosition'], 'below')), { dataDir: server.dataDir });
    setStudyStatus(server.app.db, studyId, 'open');
    expect((await call(`${server.url}/api/studies/mushra-below/intro`)).body.trial).toEqual({ kind: 'mushra', referencePosition: 'below' });
    const wrong = await refusal(writeStudy('mushra-side', (doc) => doc.setIn(['trial', 'referencePosition'], 'left')));
    expect(wrong).toMatch(/study\.yaml:\d+:\d+ trial\.referencePosition: .*above.*below/);
  });

  it('draws the order per listener: not every listener meets the same order', async () => {
    const orders = new Set<string>();
    for (let l = 0; l < 6; l++) {
      const { listener } = await start(`P-order-${l}`);
      orders.add(trials(listener)[1].slot_order);
    }
    expect(orders.size).toBeGreaterThan(1);
  });

  it('refuses a vote without a score for each stimulus or with a stimulus not played; stores the scores by slot and writes one mushra.csv row per stimulus', async () => {
    const { token, listener } = await start('P-vote');
    const wrongKind = await (() => call(`${server.url}/api/session/votes`, { token, body: { voteId: randomUUID(), position: 0, playCount: 1, secondsListened: 1, heardToEnd: true, hiddenMs: 0, responseMs: 1, clientTs: new Date().toISOString(), comparison: 1 } }))();
    expect(wrongKind.status).toBe(400);
    const few = await vote(token, 0, [100, 20, 50, 70]);
    expect(few.status).toBe(400);
    expect(few.body).toMatchObject({ field: 'scores', message: 'scores: this page has 5 stimuli: send one score for each (4 sent)' });
    const unplayed = await vote(token, 0, [100, 20, 50, 70, 60], heard(5, [2]));
    expect(unplayed.status).toBe(400);
    expect(unplayed.body).toMatchObject({ field: 'listening', message: expect.stringMatching(/every stimulus is played before it is rated \(BS\.1534-3\); not played: 3/) });
    expect((await vote(token, 0, [100, 20, 50, 70, 101])).status).toBe(400);
    const ok = await vote(token, 0, [100, 20, 50, 70, 60]);
    expect(ok.status, ok.text).toBe(200);
    const [t] = trials(listener);
    const order = JSON.parse(t.slot_order) as string[];
    const stored = JSON.parse(server.app.db.prepare('SELECT answer FROM votes WHERE listener_id = ? AND position = 0').pluck().get(listener) as string);
    expect(stored).toEqual({ order, scores: Object.fromEntries(order.map((slot, i) => [slot, [100, 20, 50, 70, 60][i]])) });
    const stimuli = JSON.parse(t.stimuli);
    const answers = mushra.answers as Extract<typeof mushra.answers, { columns: readonly string[] }>;
    const rows = answers.rows({ item_id: 'i1', listener_id: 'L', answer: stored } as never, { stimuli } as never);
    expect(rows.map((r) => [r.system, r.role, r.score])).toEqual(stimuli.map((s: { slot: string; system: string; role: string }) => [s.system, s.role, stored.scores[s.slot]]));
    expect(answers.stimuli).toBe(true);
  });
});

describe('MUSHRA export and live report', () => {
  it('exports mushra.csv (one row per stimulus) and stimuli.csv, and the live report has the mushra section with its post-screening', async () => {
    const researcher = (await server.app.store.accessTokens.create('researcher')).token;
    const { token, listener } = await start('P-export');
    // Every page scored; the hidden reference below 90 on all of them: the post-screening excludes this listener.
    const pages = trials(listener);
    for (const t of pages) {
      const order = JSON.parse(t.slot_order) as string[];
      const ok = await vote(token, t.position, order.map((slot) => (slot === 'reference' ? 60 : slot.startsWith('anchor') ? 20 : 70)));
      expect(ok.status, ok.text).toBe(200);
    }
    const files = (await call(`${server.url}/api/studio/studies/mushra/export`, { token: researcher })).body as Record<string, string>;
    const lines = (name: string) => files[name].trim().split('\r\n');
    expect(lines('mushra.csv')[0]).toMatch(/^item_id,listener_id,system,role,score,/);
    const mine = lines('mushra.csv').filter((r) => r.includes(listener));
    // One row per stimulus of every scored page; the training page is not exported.
    expect(mine).toHaveLength(pages.filter((t) => t.kind === 'mushra').length * 5);
    expect(mine.filter((r) => r.includes(',reference,')).every((r) => /,espeak-en-slow,reference,60,/.test(r))).toBe(true);
    expect(lines('stimuli.csv')[0]).toBe('item_id,slot,role,system');
    expect(lines('items.csv').filter((r) => r.endsWith(',mushra')).length).toBe(6);
    const report = await call(`${server.url}/api/reports/mushra`, { token: researcher });
    expect(report.status, report.text).toBe(200);
    const section = report.body.mushra;
    expect(section.screening.excluded.map((e: { listener_id: string }) => e.listener_id)).toContain(listener);
    expect(section.screening.excluded.find((e: { listener_id: string }) => e.listener_id === listener).reference_below_90).toBe(1);
    expect(section.systems.map((s: { role: string }) => s.role).sort()).toEqual(['anchor35', 'anchor70', 'condition', 'condition', 'reference']);
  });
});

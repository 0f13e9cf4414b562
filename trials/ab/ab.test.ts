/**
 * The A/B kind end to end on the server, on the demo's three synthetic TTS systems (their
 * renditions and MOS predictions, studies/demo/renditions): the template builds from the real
 * files, a real server on loopback serves each trial as two opaque renditions in the listener's
 * order, the preference is stored in the item's own terms, refused when another kind's answer or an
 * unoffered tie is sent, replayed on retry, and exported as votes.csv rows with the pair's columns.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStudyDir, validateStudyDir } from '../../studies/load';
import { setStudyStatus } from '../../studies/build';
import { startTestServer, type TestServer } from '../../server/testing/server';
import { call } from '../../server/testing/client';
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../../studies/templates/demo-ab.yaml', import.meta.url));
const SYSTEMS = ['espeak-en-slow', 'espeak-en-fast', 'espeak-de-accent'];

let server: TestServer;

/** The template as a researcher copies it (sources pointing at the demo), with `edit` applied. */
async function buildStudy(name: string, edit: (doc: ReturnType<typeof parseDocument>) => void): Promise<string> {
  const doc = parseDocument(readFileSync(TEMPLATE, 'utf8').replaceAll('../demo/', DEMO));
  edit(doc);
  const dir = join(server.dataDir, 'studies', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'study.yaml'), doc.toString());
  const { studyId } = await loadStudyDir(server.app.db, dir, { dataDir: server.dataDir });
  setStudyStatus(server.app.db, studyId, 'open');
  return studyId;
}

beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'pairs', pairs: 2, attention: 0, practice: 0 }] });
  await buildStudy('ab', (doc) => {
    doc.delete('attentionChecks');
    doc.set('practice', []);
  });
  await buildStudy('ab-tie', (doc) => {
    doc.delete('attentionChecks');
    doc.set('practice', []);
    doc.setIn(['trial', 'tie'], true);
  });
});
afterAll(() => server?.close());

const start = async (study: string, pid: string) => {
  const started = await call(`${server.url}/api/sessions`, { body: { study, external: { PROLIFIC_PID: pid } } });
  expect(started.status, started.text).toBe(201);
  return { token: started.body.token as string, state: started.body.state, listener: server.app.store.sessions.byToken(started.body.token)!.id };
};
/** Both versions heard once to the end, 2.5 s each: the record a whole-listening A/B trial sends, and its totals. */
const heardBoth = [{ plays: 1, secondsHeard: 2.5, heardToEnd: true }, { plays: 1, secondsHeard: 2.5, heardToEnd: true }];
const vote = (token: string, position: number, answer: object, voteId = randomUUID()) =>
  call(`${server.url}/api/session/votes`, {
    token,
    body: { voteId, position, playCount: 2, secondsListened: 5, heardToEnd: true, hiddenMs: 0, responseMs: 1800, clientTs: new Date().toISOString(), listening: heardBoth, ...answer },
  });
const trialAt = (listener: string, position: number) =>
  server.app.db
    .prepare('SELECT a.slot_order, i.stimuli FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? AND a.position = ?')
    .get(listener, position) as { slot_order: string; stimuli: string };

describe('A/B preference on the server', () => {
  it('serves two opaque renditions in the listener’s order, naming no system', async () => {
    const { state, listener } = await start('ab', 'P-serve');
    expect(state.progress.total).toBe(12);
    expect(state.trial).toEqual({
      position: 0, kind: 'ab', practice: false, tie: false,
      stimuli: [0, 1].map(() => ({ id: expect.any(String), audioUrl: expect.stringMatching(/^\/media\/clips\//), peaksUrl: expect.stringMatching(/\/peaks$/), duration: expect.any(Number) })),
    });
    const text = JSON.stringify(state);
    for (const secret of [...SYSTEMS, 'espeak', 'demo-0', 'mos-pred', 'degraded']) expect(text).not.toContain(secret);
    // "A" is the first slot of this listener's order, and its served copy is the one of that slot's clip.
    const { slot_order, stimuli } = trialAt(listener, 0);
    const order = JSON.parse(slot_order) as string[];
    const bySlot = new Map((JSON.parse(stimuli) as { slot: string; clip: string }[]).map((s) => [s.slot, s.clip]));
    const served = server.app.db.prepare("SELECT id FROM served_clips WHERE study_id = 'ab' AND clip_id = ?").pluck();
    expect(state.trial.stimuli.map((s: { id: string }) => s.id)).toEqual(order.map((slot) => served.get(bySlot.get(slot))));
    // Both orders occur among a listener's trials (drawn per trial).
    const orders = new Set(Array.from({ length: 12 }, (_, p) => trialAt(listener, p).slot_order));
    expect(orders).toEqual(new Set(['["a","b"]', '["b","a"]']));
  });

  it('stores the preference in the item’s own terms; another kind’s answer, an unoffered tie or a wrong listening record is refused naming the field', async () => {
    const { token, listener } = await start('ab', 'P-votes');
    const refused = async (answer: object, field: string, message: RegExp) => {
      const res = await vote(token, 0, answer);
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ field, message: expect.stringMatching(message) });
    };
    await refused({ choice: 1 }, 'preference', /A\/B: send preference/);
    await refused({ score: 3 }, 'preference', /A\/B: send preference/);
    await refused({ preference: 'tie' }, 'preference', /no "no preference"/);
    await refused({ preference: 'A', listening: [{ plays: 1, secondsHeard: 2, heardToEnd: true }] }, 'listening', /2 versions: send one listening record for each \(1 sent\)/);
    await refused({ preference: 'A', listening: undefined }, 'listening', /plays 2 versions: send listening/);
    await refused({ preference: 'A', playCount: 3 }, 'listening', /totals must be the records' own: playCount 2, secondsListened 5, heardToEnd true \(sent 3, 5, true\)/);
    await refused({ preference: 'A', heardToEnd: false }, 'listening', /heardToEnd true \(sent 2, 5, false\)/);
    await refused({ preference: 'A', secondsListened: 5.01 }, 'listening', /secondsListened 5,/);
    // The browser's millisecond rounding of the total is taken.
    const rounded = [{ plays: 1, secondsHeard: 2.0004, heardToEnd: true }, { plays: 1, secondsHeard: 3, heardToEnd: true }];
    expect((await vote(token, 1, { preference: 'A', listening: rounded, secondsListened: 5 })).status).toBe(200);

    const first = (JSON.parse(trialAt(listener, 0).slot_order) as string[])[0];
    const id = randomUUID();
    const listening = heardBoth;
    const ok = await vote(token, 0, { preference: 'B', listening }, id);
    expect(ok.status, ok.text).toBe(200);
    const row = server.app.db.prepare('SELECT answer, listening, first, chosen FROM votes WHERE listener_id = ? AND position = 0').get(listener) as Record<string, string>;
    const other = first === 'a' ? 'b' : 'a';
    expect(JSON.parse(row.answer)).toEqual({ first, chosen: other });
    expect({ first: row.first, chosen: row.chosen }).toEqual({ first, chosen: other });
    expect(JSON.parse(row.listening)).toEqual([
      { slot: first, plays: 1, seconds: 2.5, toEnd: true },
      { slot: other, plays: 1, seconds: 2.5, toEnd: true },
    ]);
    // A retry is replayed; the same id with another answer is refused.
    expect((await vote(token, 0, { preference: 'B', listening }, id)).status).toBe(200);
    expect((await vote(token, 0, { preference: 'A', listening }, id)).body).toMatchObject({ error: 'vote_id_reused' });
  });

  it('takes a tie where the study offers one, and exports votes.csv rows with the pair’s columns and the renditions’ automatic scores', async () => {
    const { token, state } = await start('ab-tie', 'P-tie');
    expect(state.trial).toMatchObject({ kind: 'ab', tie: true });
    for (let p = 0; p < 12; p++) expect((await vote(token, p, { preference: p % 3 === 0 ? 'tie' : p % 3 === 1 ? 'A' : 'B' })).status).toBe(200);
    const researcher = (await server.app.store.accessTokens.create('researcher')).token;
    const files = await call(`${server.url}/api/studio/studies/ab-tie/export`, { token: researcher });
    expect(files.status, files.text).toBe(200);
    const votes = (files.body['votes.csv'] as string).trim().split('\r\n');
    expect(votes[0]).toMatch(/^item_id,listener_id,first,chosen,/);
    const chosen = votes.slice(1).map((line) => line.split(',')[3]);
    expect(chosen.filter((c) => c === 'tie')).toHaveLength(4);
    expect(new Set(chosen)).toEqual(new Set(['a', 'b', 'tie']));
    const items = (files.body['items.csv'] as string).trim().split('\r\n');
    expect(items).toHaveLength(13);
    for (const line of items.slice(1)) expect(SYSTEMS).toEqual(expect.arrayContaining(line.split(',').slice(2, 4)));
    const judged = (files.body['judge_scores.csv'] as string).trim().split('\r\n').slice(1);
    expect(judged.length).toBeGreaterThanOrEqual(12);
    for (const line of judged) expect(line).toMatch(/,mos-pred,run\d,\d/);

    // The analyst's re-run of the export is the live report, ties and all (live = offline).
    const analyst = (await server.app.store.accessTokens.create('analyst')).token;
    const live = await call(`${server.url}/api/reports/ab-tie`, { token: analyst });
    expect(live.status, live.text).toBe(200);
    const dir = join(server.dataDir, 'ab-tie-export');
    mkdirSync(dir);
    for (const [name, text] of Object.entries(files.body as Record<string, string>)) writeFileSync(join(dir, name), text);
    const { stdout } = await promisify(execFile)(join(process.cwd(), 'node_modules/.bin/tsx'), [join('analysis', 'cli.ts'), dir, '--format', 'json']);
    const offline = JSON.parse(stdout);
    expect(live.body).toEqual(offline);
    expect(offline.reliability.ties.votes).toBe(4);
    expect(offline.reliability.ties.per_system_pair.reduce((n: number, p: { ties: number }) => n + p.ties, 0)).toBe(4);
  });
});

describe('the listening record, every kind alike', () => {
  it('is refused on a trial of one clip, whose record is the totals', async () => {
    const { token } = await start('pairs', 'P-pair');
    const res = await vote(token, 0, { choice: 1 });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ field: 'listening', message: expect.stringMatching(/plays one clip: send its record in playCount, secondsListened and heardToEnd, without listening/) });
    expect((await vote(token, 0, { choice: 1, listening: undefined })).status).toBe(200);
  });
});

describe('an A/B study that its renditions cannot satisfy', () => {
  it('is refused at validate, naming the line, the field and what there is instead', async () => {
    const doc = parseDocument(readFileSync(TEMPLATE, 'utf8').replaceAll('../demo/', DEMO));
    doc.set('items', doc.createNode({
      mode: 'explicit',
      list: [
        { utterance: 'metaset:demo/demo-01.wav', systemA: 'espeak-en-slow', systemB: 'espeak-en-slow' },
        { utterance: 'metaset:demo/demo-02.wav', systemA: 'espeak-en-fast', systemB: 'tts-nowhere' },
      ],
    }));
    doc.delete('attentionChecks');
    doc.set('practice', [{ utterance: 'metaset:demo/demo-03.wav', system: 'tts-nowhere' }]);
    const dir = join(server.dataDir, 'studies', 'ab-refused');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'study.yaml'), doc.toString());
    const refused = await validateStudyDir(server.app.db, dir, { dataDir: server.dataDir }).then(() => null, (error: Error) => error.message.split('\n'));
    expect(refused).toEqual([
      expect.stringMatching(/^ab-refused\/study\.yaml:\d+:\d+ items\.list\[0\]\.systemB: systemA and systemB must differ$/),
      expect.stringMatching(/^ab-refused\/study\.yaml:\d+:\d+ items\.list\[1\]\.systemB: system tts-nowhere has no renditions in the study's sources \(systems with renditions: espeak-de-accent, espeak-en-fast, espeak-en-slow\)$/),
      expect.stringMatching(/^ab-refused\/study\.yaml:\d+:\d+ practice\[0\]\.system: system tts-nowhere has no renditions in the study's sources/),
    ]);
  });
});

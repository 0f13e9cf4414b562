/**
 * The describe kind end to end: a study without an instruction is refused at validate with
 * file:line:column and what is accepted; the describe-style template builds on the demo content;
 * a real server serves one clip with the instruction and length bounds, refuses a text below
 * minLength and stores {text}; the export writes texts.csv (§5.6's columns) and the analysis the
 * section `describe`; the texts become a MetaSet caption file that a real pair study builds from
 * beside a model's captions (`human` vs `lyra`); and `npm run simulate -- --kind describe`.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStudyDir, validateStudyDir } from '../../studies/load';
import { setStudyStatus } from '../../studies/build';
import { startTestServer, type TestServer } from '../../server/testing/server';
import { call } from '../../server/testing/client';
import { exportRepository } from '../../server/store/export';
import { writeStudyBundle } from '../../server/bundle';
import { readBundle } from '../../analysis/bundle';
import { analyze } from '../../analysis/report';
import { describeCaptions, type DescribeSection } from './report';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../../studies/templates/describe-style.yaml', import.meta.url));
const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));

let server: TestServer;

/** The template as studies/<name>/study.yaml, with the demo's audio and lyra's captions beside it. */
const writeStudy = (name: string, edit: (doc: ReturnType<typeof parseDocument>) => void = () => {}) => {
  const dir = join(server.dataDir, 'studies', name);
  mkdirSync(join(dir, 'captions'), { recursive: true });
  cpSync(join(DEMO, 'audio'), join(dir, 'audio'), { recursive: true });
  cpSync(join(DEMO, 'captions', 'lyra.json'), join(dir, 'captions', 'lyra.json'));
  const doc = parseDocument(readFileSync(TEMPLATE, 'utf8'));
  doc.setIn(['sources'], doc.createNode([{ kind: 'metaset', file: 'captions/lyra.json', system: 'lyra', audioRoot: 'audio' }]));
  doc.setIn(['design'], doc.createNode({ kind: 'crossed' }));
  doc.setIn(['items'], doc.createNode({ mode: 'explicit', list: ['demo-01', 'demo-02', 'demo-03'].map((u) => ({ utterance: `metaset:demo/${u}.wav` })) }));
  edit(doc);
  writeFileSync(join(dir, 'study.yaml'), doc.toString());
  return dir;
};

beforeAll(async () => {
  server = await startTestServer({ studies: [] });
  const { studyId } = await loadStudyDir(server.app.db, writeStudy('describe'), { dataDir: server.dataDir });
  setStudyStatus(server.app.db, studyId, 'open');
});
afterAll(() => server?.close());

describe('a describe study at validate', () => {
  it('the template builds on the demo content', async () => {
    const { items } = await validateStudyDir(server.app.db, TEMPLATE, { dataDir: server.dataDir });
    expect(items).toMatchObject({ describe: 8, attention: 0, practice: 1 });
  });
  it('refuses a study without an instruction, at its place, saying what is accepted', async () => {
    const dir = writeStudy('describe-no-instruction', (doc) => doc.deleteIn(['trial', 'instruction']));
    const message = await validateStudyDir(server.app.db, dir, { dataDir: server.dataDir }).then(() => null, (e: Error) => e.message);
    expect(message).toMatch(/^describe-no-instruction\/study\.yaml:\d+:\d+ trial\.instruction: a describe study needs an instruction, .*instruction: "Describe how/m);
  });
  it('refuses a maxLength below minLength', async () => {
    const dir = writeStudy('describe-bounds', (doc) => doc.setIn(['trial', 'maxLength'], 10));
    const message = await validateStudyDir(server.app.db, dir, { dataDir: server.dataDir }).then(() => null, (e: Error) => e.message);
    expect(message).toMatch(/trial\.maxLength: must be at least minLength \(20\)/);
  });
});

const start = async (pid: string) => {
  const started = await call(`${server.url}/api/sessions`, { body: { study: 'describe', external: { PROLIFIC_PID: pid } } });
  expect(started.status, started.text).toBe(201);
  return { token: started.body.token as string, state: started.body.state, listener: server.app.store.sessions.byToken(started.body.token)!.id };
};
const vote = (token: string, position: number, answer: object) =>
  call(`${server.url}/api/session/votes`, {
    token,
    body: { voteId: randomUUID(), position, playCount: 1, secondsListened: 2, heardToEnd: true, hiddenMs: 0, responseMs: 5000, clientTs: new Date().toISOString(), ...answer },
  });
const positions = (listener: string) => server.app.db.prepare('SELECT position FROM assignments WHERE listener_id = ? ORDER BY position').pluck().all(listener) as number[];

describe('describe on the server, exported, analysed, and built into a pair study', () => {
  it('refuses a short text, stores {text}, exports texts.csv, reports §5.6, and the texts compete with lyra in a pair study', async () => {
    const { token, state, listener } = await start('P-0');
    // 3 items and the practice clip.
    expect(state.progress.total).toBe(4);
    expect(state.trial).toMatchObject({ kind: 'describe', minLength: 20, maxLength: 600, instruction: expect.stringMatching(/^Describe how the speaker says this/) });
    expect(JSON.stringify(state)).not.toContain('"human"');

    const wrong = await vote(token, 0, { score: 3 });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ field: 'description' });
    const short = await vote(token, 0, { description: '   too short   ' });
    expect(short.status).toBe(400);
    expect(short.body.message).toBe('description: write at least 20 characters (9 sent, spaces at either end not counted)');

    const texts = ['A slow, warm male voice with a calm tone.', 'Fast and bright, an excited female speaker, rather loud indeed.'];
    for (let l = 0; l < 2; l++) {
      const s = l === 0 ? { token, listener } : await start(`P-${l}`);
      for (const p of positions(s.listener)) {
        const ok = await vote(s.token, p, { description: `  ${texts[l]} (${p})\n` });
        expect(ok.status, ok.text).toBe(200);
      }
    }
    const stored = JSON.parse(server.app.db.prepare('SELECT answer FROM votes WHERE listener_id = ? AND position = 0').pluck().get(listener) as string);
    expect(stored).toEqual({ text: `${texts[0]} (0)` });

    const dir = mkdtempSync(join(tmpdir(), 'describe-bundle-'));
    await writeStudyBundle(dir, exportRepository(server.app.db).rows('describe'));
    const csv = readFileSync(join(dir, 'texts.csv'), 'utf8').split(/\r?\n/);
    expect(csv[0]).toMatch(/^item_id,listener_id,text,/);
    // 2 listeners × 3 items; the practice answers are not exported.
    expect(csv.filter((l) => l !== '').length).toBe(1 + 6);

    const bundle = await readBundle(dir);
    const section = (analyze(bundle) as unknown as { describe: DescribeSection }).describe;
    expect(section).toMatchObject({ texts: 6, listeners: 2, items: 3 });
    // Listener 0's texts are 10 words with the position, listener 1's 11: mean and median 10.5.
    expect(section.words).toEqual({ mean: 10.5, median: 10.5 });

    // The texts as a caption source, listed beside lyra's captions in a pair study, built for real.
    const captions = describeCaptions(bundle);
    expect(captions).toHaveLength(3);
    // Listener 0 answered first: theirs are the captions, unless they are excluded.
    expect(captions.every((c) => c.generated_captions.holistic_creative_synthesis.generated_caption.startsWith(texts[0]))).toBe(true);
    expect(describeCaptions(bundle, new Set([bundle.listeners[0]])).every((c) => c.generated_captions.holistic_creative_synthesis.generated_caption.startsWith(texts[1]))).toBe(true);
    const pair = join(server.dataDir, 'studies', 'human-vs-lyra');
    mkdirSync(join(pair, 'captions'), { recursive: true });
    cpSync(join(DEMO, 'audio'), join(pair, 'audio'), { recursive: true });
    cpSync(join(DEMO, 'captions', 'lyra.json'), join(pair, 'captions', 'lyra.json'));
    writeFileSync(join(pair, 'captions', 'human.json'), JSON.stringify(captions));
    const doc = parseDocument(readFileSync(TEMPLATE, 'utf8'));
    doc.deleteIn(['trial']);
    doc.deleteIn(['practice']);
    doc.setIn(['sources'], doc.createNode([
      { kind: 'metaset', file: 'captions/lyra.json', system: 'lyra', audioRoot: 'audio' },
      { kind: 'metaset', file: 'captions/human.json', system: 'human', audioRoot: 'audio' },
    ]));
    doc.setIn(['design'], doc.createNode({ kind: 'crossed' }));
    doc.setIn(['items'], doc.createNode({ mode: 'explicit', list: captions.map((c) => ({ utterance: `metaset:${c.metadata.source}/${c.metadata.relative_audio_path}`, systemA: 'human', systemB: 'lyra' })) }));
    writeFileSync(join(pair, 'study.yaml'), doc.toString());
    const { studyId } = await loadStudyDir(server.app.db, pair, { dataDir: server.dataDir });
    const items = server.app.db.prepare("SELECT stimuli FROM items WHERE study_id = ? AND kind = 'pair'").pluck().all(studyId) as string[];
    expect(items).toHaveLength(3);
    const shown = items.map((s) => (JSON.parse(s) as { system: string | null; text: string | null }[]).map((x) => `${x.system}:${x.text}`).join(' | '));
    for (const c of captions) expect(shown.some((s) => s.includes(`human:${c.generated_captions.holistic_creative_synthesis.generated_caption}`))).toBe(true);
    expect(shown.every((s) => s.includes('lyra:'))).toBe(true);
  });
});

describe('a simulated describe study (npm run simulate -- --kind describe → npm run analyze → npm run captions)', () => {
  it('reports §5.6 and writes one caption per item', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'describe-sim-'));
    const bin = join(ROOT, 'bin/earmark.mjs');
    await run('node', [bin, 'simulate', '--kind', 'describe', '--out', dir, '--items', '20', '--listeners', '6', '--careless', '1', '--answers-per-item', '3', '--seed', '4'], { cwd: ROOT });
    await run('node', [bin, 'analyze', dir, '--out', join(dir, 'report.json')], { cwd: ROOT });
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { describe: DescribeSection };
    expect(report.describe).toMatchObject({ texts: 60, listeners: 6, items: 20 });
    expect(report.describe.words.mean).toBeGreaterThan(5);
    const out = join(dir, 'human.json');
    const { stdout } = await run('node', [bin, 'captions', dir, '--out', out], { cwd: ROOT });
    expect(stdout).toMatch(/20 captions \(0 excluded listeners' texts left out\); .*system: human/);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveLength(20);
  });
});

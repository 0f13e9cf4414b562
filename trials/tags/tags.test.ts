/**
 * The tags kind end to end: the RAVDESS template builds from real (generated) RAVDESS-named files,
 * bad attributes are refused at validate with file:line:column and what is accepted, a real server
 * serves one clip with the attributes (no corpus label), checks and stores the answer, the export
 * writes annotations.csv and metadata.csv (the file-name emotion), and the analysis reports §5.5's
 * section with the majority's accuracy against those labels; then a seeded simulated panel with
 * 20 % careless listeners through `npm run simulate -- --kind tags` and `npm run analyze`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
import { sine, writeWav } from '../../audio-manifest/test/audio';
import { exportRepository } from '../../server/store/export';
import { writeStudyBundle } from '../../server/bundle';
import { readBundle } from '../../analysis/bundle';
import { analyze } from '../../analysis/report';
import type { AnnotationSection } from './report';
import { readStudyYaml } from '../../studies/parse';
import { TAG_PRESETS, tagsAttributes } from './presets';
import { TAG_PRESET_ATTRIBUTES } from './attributes';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../../studies/templates/ravdess-emotion-tags.yaml', import.meta.url));
const EMOTIONS = ['neutral', 'calm', 'happy', 'sad', 'angry', 'fearful', 'disgust', 'surprised'];
// RAVDESS names: modality-channel-EMOTION-INTENSITY-statement-repetition-actor.
const STEMS = [
  '03-01-05-02-01-01-01', '03-01-02-01-02-01-01', '03-01-04-02-02-01-01', '03-01-01-01-01-01-01',
  '03-01-03-02-01-02-02', '03-01-06-01-02-02-02', '03-01-08-01-01-01-02', '03-01-07-02-02-02-02',
];
const emotionOf = (stem: string) => EMOTIONS[Number(stem.slice(6, 8)) - 1];

let server: TestServer;
let corpus: string;

const writeStudy = (name: string, edit: (doc: ReturnType<typeof parseDocument>) => void = () => {}) => {
  const doc = parseDocument(readFileSync(TEMPLATE, 'utf8'));
  doc.setIn(['sources', 0, 'dir'], corpus);
  doc.setIn(['items'], doc.createNode({ mode: 'explicit', list: STEMS.slice(1).map((s) => ({ utterance: `ravdess:${s}` })) }));
  doc.setIn(['design'], doc.createNode({ kind: 'crossed' }));
  doc.setIn(['completion', 'code'], 'C0DE-TAGS');
  doc.setIn(['attentionChecks', 'list', 0, 'utterance'], `ravdess:${STEMS[0]}`);
  edit(doc);
  const dir = join(server.dataDir, 'studies', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'study.yaml'), doc.toString());
  return dir;
};
const refusal = (dir: string) => validateStudyDir(server.app.db, dir, { dataDir: server.dataDir }).then(() => null, (error: Error) => error.message);

beforeAll(async () => {
  server = await startTestServer({ studies: [] });
  corpus = join(server.dataDir, 'studies', 'corpus', 'RAVDESS');
  STEMS.forEach((stem, n) => writeWav(join(corpus, `Actor_${stem.slice(-2)}`, `${stem}.wav`), { sampleRate: 16000, channels: [sine(0.4, 16000, 220 + 20 * n, 0.4)] }));
  const { studyId } = await loadStudyDir(server.app.db, writeStudy('tags', (doc) => {
    // A multi attribute beside the preset: RAVDESS has no label for it.
    doc.setIn(['trial', 'attributes', 2], doc.createNode({ name: 'timbre', mode: 'multi', values: ['breathy', 'husky', 'shrill'], hints: { husky: 'rough and low' } }));
  }), { dataDir: server.dataDir });
  setStudyStatus(server.app.db, studyId, 'open');
});
afterAll(() => server?.close());

describe('the tags templates', () => {
  it('parse, and expand their presets into the attributes a listener answers', () => {
    const attributes = (name: string) => {
      const def = readStudyYaml(fileURLToPath(new URL(`../../studies/templates/${name}.yaml`, import.meta.url))).definition;
      return def.trial.kind === 'tags' ? tagsAttributes(def.trial).map((a) => `${a.name}:${a.mode}:${a.values.length}:${a.metadata}`) : [];
    };
    expect(attributes('ravdess-emotion-tags')).toEqual(['emotion:single:8:emotion', 'intensity:single:2:intensity']);
    expect(attributes('psc-style-tags')).toEqual(['gender:single:2:gender', 'pitch:single:3:pitch', 'speaking_rate:single:3:speaking_rate', 'intrinsic:multi:32:intrinsic_tags']);
  });
});

describe('a tags study refused at validate', () => {
  it('an attribute with no values', async () => {
    const dir = writeStudy('tags-no-values', (doc) => doc.setIn(['trial', 'attributes', 1], doc.createNode({ name: 'pitch', mode: 'single', values: [] })));
    expect(await refusal(dir)).toMatch(/^tags-no-values\/study\.yaml:\d+:\d+ trial\.attributes\[1\]\.values: .*at least one value to choose from \(values: \[a, b, …\]\)/m);
  });
  it('a value listed twice', async () => {
    const dir = writeStudy('tags-twice', (doc) => doc.setIn(['trial', 'attributes', 1], doc.createNode({ name: 'pitch', mode: 'single', values: ['low', 'high', 'low'] })));
    expect(await refusal(dir)).toMatch(/^tags-twice\/study\.yaml:\d+:\d+ trial\.attributes\[1\]\.values\[2\]: "low" is listed twice \(also value 1\): list each value once/m);
  });
  it('a metadata key the clips do not have, naming the labels they have', async () => {
    const dir = writeStudy('tags-no-label', (doc) => doc.setIn(['trial', 'attributes', 1], doc.createNode({ name: 'accent', mode: 'single', values: ['a', 'b'], metadata: 'accent' })));
    expect(await refusal(dir)).toMatch(/^tags-no-label\/study\.yaml:\d+:\d+ trial\.attributes\[1\]\.metadata: the study's clips have no label "accent" for accent: their labels are .*emotion.*intensity.*; name one of them, or leave metadata out/m);
  });
  it('an unknown preset', async () => {
    const dir = writeStudy('tags-preset', (doc) => doc.setIn(['trial', 'attributes', 1], 'ravdess-mood'));
    expect(await refusal(dir)).toMatch(/^tags-preset\/study\.yaml:\d+:\d+ trial\.attributes\[1\]: a preset is one of ravdess-emotion, ravdess-intensity, vctk-gender, vctk-accent, paraspeechcaps-intrinsic, styleinstructcaps-basic; or declare the attribute/m);
  });
});

const start = async (pid: string) => {
  const started = await call(`${server.url}/api/sessions`, { body: { study: 'tags', external: { PROLIFIC_PID: pid } } });
  expect(started.status, started.text).toBe(201);
  return { token: started.body.token as string, state: started.body.state, listener: server.app.store.sessions.byToken(started.body.token)!.id };
};
const vote = (token: string, position: number, answer: object) =>
  call(`${server.url}/api/session/votes`, {
    token,
    body: { voteId: randomUUID(), position, playCount: 1, secondsListened: 0.4, heardToEnd: true, hiddenMs: 0, responseMs: 2100, clientTs: new Date().toISOString(), ...answer },
  });
const trials = (listener: string) =>
  server.app.db.prepare('SELECT a.position, i.kind, i.stimuli, i.expected FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? ORDER BY a.position')
    .all(listener) as { position: number; kind: string; stimuli: string; expected: string | null }[];
const emotionOfTrial = (t: { stimuli: string }) => (JSON.parse((JSON.parse(t.stimuli) as { role: string; text: string }[]).find((s) => s.role === 'metadata')!.text) as { emotion: string[] }).emotion[0];

describe('tags on the server, exported and analysed', () => {
  it('serves the clip and the attributes without the corpus labels, refuses a bad answer, and reports the majority against the file-name emotions', async () => {
    const { token, state, listener } = await start('P-serve');
    expect(state.progress.total).toBe(8);
    expect(state.trial).toMatchObject({ kind: 'tags', practice: false });
    expect(state.trial.attributes.map((a: { name: string; mode: string }) => [a.name, a.mode])).toEqual([['emotion', 'single'], ['intensity', 'single'], ['timbre', 'multi']]);
    expect(state.trial.attributes[2].hints).toEqual({ husky: 'rough and low' });
    const text = JSON.stringify(state);
    for (const secret of ['metadata', ...STEMS]) expect(text).not.toContain(secret);

    const refused = await vote(token, 0, { score: 3 });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ field: 'tags' });
    expect((await vote(token, 0, { tags: { emotion: 'sad', intensity: 'normal' } })).body.message).toMatch(/timbre is missing/);
    expect((await vote(token, 0, { tags: { emotion: 'bored', intensity: 'normal', timbre: [] } })).body.message).toMatch(/bored: not a value of emotion/);
    expect((await vote(token, 0, { tags: { emotion: ['sad'], intensity: 'normal', timbre: [] } })).body.message).toMatch(/emotion takes one value/);

    // Three listeners: two give the file-name emotion everywhere, one says neutral but on the check; all get the check right.
    const answer = (t: { kind: string; stimuli: string }, l: number) => ({
      emotion: l === 2 && t.kind !== 'attention' ? 'neutral' : emotionOfTrial(t), intensity: 'normal', timbre: l === 0 ? ['husky', 'breathy'] : l === 1 ? ['husky'] : [],
    });
    for (let l = 0; l < 3; l++) {
      const s = l === 0 ? { token, listener } : await start(`P-${l}`);
      for (const t of trials(s.listener)) {
        const ok = await vote(s.token, t.position, { tags: answer(t, l) });
        expect(ok.status, ok.text).toBe(200);
      }
    }
    const stored = JSON.parse(server.app.db.prepare('SELECT answer FROM votes WHERE listener_id = ? AND position = 0').pluck().get(listener) as string);
    // Stored in the study's order of values, not the order clicked.
    expect(stored.tags.timbre).toEqual(['breathy', 'husky']);

    const dir = mkdtempSync(join(tmpdir(), 'tags-bundle-'));
    await writeStudyBundle(dir, exportRepository(server.app.db).rows('tags'));
    const metadata = readFileSync(join(dir, 'metadata.csv'), 'utf8');
    expect(metadata.split(/\r?\n/)[0]).toBe('item_id,attribute,value');
    expect(metadata).toContain(',emotion,sad');
    expect(readFileSync(join(dir, 'annotations.csv'), 'utf8').split('\n')[0]).toMatch(/^item_id,listener_id,attribute,value,/);
    // An empty multi answer is one row with value empty.
    expect(readFileSync(join(dir, 'annotations.csv'), 'utf8')).toMatch(/,timbre,,/);

    const report = analyze(await readBundle(dir));
    const section = (report as unknown as { annotation: AnnotationSection }).annotation;
    const emotion = section.attributes.find((a) => a.attribute === 'emotion')!;
    expect(emotion).toMatchObject({ type: 'single', items: 7, answers: 21 });
    // The majority (2 of 3) is the file-name emotion on every one of the 7 scored clips.
    expect(emotion.metadata).toMatchObject({ n: 7, accuracy: 1 });
    expect(emotion.metadata!.confusion.reduce((s, c) => s + c.n, 0)).toBe(7);
    expect(emotion.dawid_skene!.listeners.map((l) => l.listener_id)).toHaveLength(3);
    const timbre = section.attributes.find((a) => a.attribute === 'timbre')!;
    expect(timbre).toMatchObject({ type: 'multi', metadata: null });
    expect(timbre.majority.every((m) => JSON.stringify(m.values) === '["husky"]')).toBe(true);
    expect(timbre.per_value.find((v) => v.value === 'husky')!.prevalence).toBeCloseTo(2 / 3, 12);
    expect(timbre.alpha).not.toBeNull();
    expect(timbre.alpha_jaccard).not.toBeNull();
  });
});

describe('a simulated tags study (npm run simulate -- --kind tags → npm run analyze)', () => {
  it('reports §5.5 with 20 % careless listeners; Dawid–Skene beats the majority against the truth', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tags-sim-'));
    const bin = join(ROOT, 'bin/earmark.mjs');
    await run('node', [bin, 'simulate', '--kind', 'tags', '--out', dir, '--items', '200', '--listeners', '20', '--careless', '4', '--attention', '0', '--seed', '3'], { cwd: ROOT });
    const out = join(dir, 'report.json');
    await run('node', [bin, 'analyze', dir, '--out', out], { cwd: ROOT });
    const report = JSON.parse(readFileSync(out, 'utf8')) as { annotation: AnnotationSection; listeners: { retained: number } };
    const truth = JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as { emotion: Record<string, string> };
    expect(report.listeners.retained).toBe(20);
    const emotion = report.annotation.attributes.find((a) => a.attribute === 'emotion')!;
    const accuracy = (labels: { item_id: string; value?: string | null }[]) => labels.filter((l) => l.value === truth.emotion[l.item_id]).length / labels.length;
    const majority = accuracy(emotion.majority);
    const ds = accuracy(emotion.dawid_skene!.labels);
    expect(ds).toBeGreaterThan(majority);
    // The careless listeners (L01–L04, uniform answers: 1/8 right; the estimate from 50 answers each sits above that) come out far less reliable than the careful ones (0.55–0.9).
    const mean = (ids: (id: string) => boolean) => {
      const r = emotion.dawid_skene!.listeners.filter((l) => ids(l.listener_id)).map((l) => l.reliability!);
      return r.reduce((a, b) => a + b, 0) / r.length;
    };
    const careless = (id: string) => ['L01', 'L02', 'L03', 'L04'].includes(id);
    expect(mean(careless)).toBeLessThan(0.35);
    expect(mean((id) => !careless(id))).toBeGreaterThan(0.55);
    expect(emotion.metadata!.accuracy).toBeGreaterThan(0.7);
    const timbre = report.annotation.attributes.find((a) => a.attribute === 'timbre')!;
    expect(timbre.alpha).toBeGreaterThan(0);
    expect(timbre.metadata!.n).toBeGreaterThan(0);
  });
});

describe('the presets', () => {
  it('name the same attributes in the contract (names only, for the listener page) as in presets.ts (with their values)', () => {
    expect(Object.fromEntries(Object.entries(TAG_PRESETS).map(([preset, attributes]) => [preset, attributes.map((a) => a.name)]))).toEqual(TAG_PRESET_ATTRIBUTES);
  });
});

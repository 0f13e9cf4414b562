/**
 * Studies isolated, from the attacker's side (issue 12 item 4): a researcher who can edit study
 * B — its YAML, its uploads, Validate and Build in the studio — cannot change study A's
 * captions, judge scores or items, cannot make the server read outside the corpus roots, and
 * Validate writes nothing. A real server on loopback, a real SQLite file.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignTrials } from '../../studies/design';
import { insertListener, rowCounts, voteAll } from '../../studies/test-support';
import { call } from '../testing/client';
import { startTestServer, type TestServer } from '../testing/server';
import { exportAtAnyMoment } from '../testing/export-time';

const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));
const demoYaml = () => readFileSync(join(DEMO, 'study.yaml'), 'utf8').replaceAll('audioRoot: audio', `audioRoot: ${join(DEMO, 'audio')}`);

let server: TestServer;
let researcher: string;
const api = (path: string, init: Parameters<typeof call>[1] = {}) => call(`${server.url}${path}`, { token: researcher, ...init });

async function createWithUploads(study: string, judges: Record<string, string>) {
  expect((await api('/api/studio/studies', { body: { name: study, yaml: demoYaml() } })).status).toBe(201);
  for (const name of readdirSync(join(DEMO, 'captions'))) {
    const r = await api(`/api/studio/studies/${study}/files`, { body: { kind: 'captions', name, content: readFileSync(join(DEMO, 'captions', name), 'utf8') } });
    expect(r.status, r.text).toBe(201);
  }
  for (const [name, content] of Object.entries(judges)) {
    const r = await api(`/api/studio/studies/${study}/files`, { body: { kind: 'judges', name, content } });
    expect(r.status, r.text).toBe(201);
  }
}

/** Every file of the data dir but SQLite's shared-memory index, with size, mtime and content. */
function files(): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) visit(full);
      else if (!e.name.endsWith('-shm')) out[relative(server.dataDir, full)] = `${statSync(full).size}:${statSync(full).mtimeMs}:${readFileSync(full).toString('base64')}`;
    }
  };
  visit(server.dataDir);
  return out;
}

const exportOf = async (study: string) => JSON.stringify(exportAtAnyMoment(JSON.parse((await api(`/api/studio/studies/${study}/export`)).text)));

beforeAll(async () => {
  server = await startTestServer({ studies: [] });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
  const judges = Object.fromEntries(readdirSync(join(DEMO, 'judges')).map((f) => [f, readFileSync(join(DEMO, 'judges', f), 'utf8')]));
  await createWithUploads('study-a', judges);
  const built = await api('/api/studio/studies/study-a/build', { method: 'POST' });
  expect(built.status, built.text).toBe(200);
  expect((await api('/api/studio/studies/study-a/open', { method: 'POST' })).status).toBe(200);
  for (const id of ['L1', 'L2']) {
    insertListener(server.app.db, 'study-a', id);
    assignTrials(server.app.db, 'study-a', id);
    voteAll(server.app.db, id);
  }
});
afterAll(() => server?.close());

describe("study B's researcher against study A", () => {
  it("B's judge files (CSV, the same systems and judge names) and its build leave A's export byte for byte", async () => {
    const before = await exportOf('study-a');
    expect(JSON.parse(before)['votes.csv'].split('\r\n').length).toBeGreaterThan(30);
    const items = server.app.db.prepare("SELECT * FROM items WHERE study_id = 'study-a' ORDER BY seq").all();
    // Every caption of every system scored 0.5 by A's judges, as a CSV.
    const rows = server.app.db.prepare("SELECT utterance_id, system FROM captions WHERE task = 'holistic_creative_synthesis'").all() as { utterance_id: string; system: string }[];
    const csv = ['utterance_id,system,judge,run,score', ...rows.flatMap((r) => ['judge-alpha', 'judge-beta'].map((j) => `${r.utterance_id},${r.system},${j},run1,0.5`))].join('\n');
    await createWithUploads('study-b', { 'override.csv': csv });
    expect((await api('/api/studio/studies/study-b/sources', { body: { audioRoot: join(DEMO, 'audio') } })).status).toBe(200);
    const validated = await api('/api/studio/studies/study-b/validate', { method: 'POST' });
    expect(validated.status, validated.text).toBe(200);
    const built = await api('/api/studio/studies/study-b/build', { method: 'POST' });
    expect(built.status, built.text).toBe(200);
    // The shared manifest took B's scores; A's export did not.
    expect(server.app.db.prepare("SELECT count(*) AS n FROM judge_scores WHERE judge = 'judge-alpha' AND run = 'run1' AND score != 0.5").get()).toEqual({ n: 0 });
    expect(await exportOf('study-a')).toBe(before);
    expect(server.app.db.prepare("SELECT * FROM items WHERE study_id = 'study-a' ORDER BY seq").all()).toEqual(items);
    expect(JSON.parse(await exportOf('study-b'))['judge_scores.csv']).toMatch(/,0\.5\r\n/);
  });

  it('Validate writes nothing: every table and every data dir file are as they were', async () => {
    writeFileSync(join(server.dataDir, 'studies/study-b/judges/extra.csv'), 'utterance_id,system,judge,run,score\nmetaset:demo/demo-01.wav,lyra,judge-zeta,run9,4\n');
    const counts = rowCounts(server.app.db);
    const snapshot = files();
    const r = await api('/api/studio/studies/study-b/validate', { method: 'POST' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.action).toBe('validated');
    expect(rowCounts(server.app.db)).toEqual(counts);
    expect(files()).toEqual(snapshot);
    expect(server.app.db.prepare("SELECT count(*) AS n FROM judge_scores WHERE judge = 'judge-zeta'").get()).toEqual({ n: 0 });
  });

  it("Validate reads the files as the CLI does: a broken caption file is pointed at by line, and A is untouched", async () => {
    const before = await exportOf('study-a');
    writeFileSync(join(server.dataDir, 'studies/study-b/captions/lyra.json'), '[\n  {"wav_path": "x",\n  "metadata" {}}\n]\n');
    const r = await api('/api/studio/studies/study-b/validate', { method: 'POST' });
    expect(r.status, r.text).toBe(400);
    expect(r.body.problems[0]).toMatchObject({ file: 'captions/lyra.json', line: 3, message: expect.stringMatching(/^is not valid JSON \(expected a JSON array of caption records.*studies\/README\.md#caption-files-metaset\)$/) });
    const build = await api('/api/studio/studies/study-b/build', { method: 'POST' });
    expect(build.status).toBe(400);
    expect(await exportOf('study-a')).toBe(before);
    writeFileSync(join(server.dataDir, 'studies/study-b/captions/lyra.json'), readFileSync(join(DEMO, 'captions/lyra.json')));
  });

  it("B's sources cannot point outside the corpus roots: audioRoot, ../ into another folder, the server's own files", async () => {
    expect((await api('/api/studio/studies/study-b/sources', { body: { audioRoot: '/etc' } })).status).toBe(200);
    let r = await api('/api/studio/studies/study-b/validate', { method: 'POST' });
    expect(r.status).toBe(400);
    expect(r.body.problems.map((p: { field: string }) => p.field)).toContain('sources[0].audioRoot');
    expect(r.body.message).toMatch(/\/etc is outside the corpus roots/);
    const yaml = demoYaml().replace(/sources:[\s\S]*?\nitems:/, `sources:\n  - { kind: judge, file: ../../earmark.db }\n  - { kind: judge, file: /etc/passwd }\nitems:`);
    expect((await api('/api/studio/studies/study-b/definition', { method: 'PUT', body: { yaml } })).status).toBe(200);
    r = await api('/api/studio/studies/study-b/build', { method: 'POST' });
    expect(r.status).toBe(400);
    expect(r.body.problems.map((p: { message: string }) => p.message)).toEqual([
      expect.stringMatching(/\/earmark\.db is outside the corpus roots \(.*\); add its folder to EARMARK_CORPORA or --corpora$/),
      expect.stringMatching(/^\/etc\/passwd is outside the corpus roots/),
    ]);
    expect(JSON.stringify(r.body)).not.toContain('root:');
  });
});

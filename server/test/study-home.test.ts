import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';

/**
 * One home for studies: a study folder under `<data>/studies/` is the same thing whether the
 * studio made it or a researcher wrote it by hand — listed by both the studio and
 * `npm run study -- list`, built by either, edited by either with its comments kept. Uploads
 * never overwrite without being asked, refuse what they cannot read, and can be undone.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEMO = join(ROOT, 'studies', 'demo');
let server: TestServer;
let researcher: string;
const api = (path: string, init: Parameters<typeof call>[1] = {}) => call(`${server.url}${path}`, { token: researcher, ...init });
// Run beside the server, not blocking it: a command that holds the test's event loop longer than the server's
// keep-alive timeout (10 s, on a loaded machine) races its next request against the socket's closing (ECONNRESET).
const studyCli = (...args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'server', 'cli', 'study.ts'), ...args, '--data', server.dataDir], { cwd: ROOT, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    ),
  );
const demoYaml = () => readFileSync(join(DEMO, 'study.yaml'), 'utf8').replaceAll('audioRoot: audio', `audioRoot: ${join(DEMO, 'audio')}`);
const upload = (study: string, kind: 'captions' | 'judges', name: string, content: string, replace?: boolean) =>
  api(`/api/studio/studies/${study}/files`, { body: { kind, name, content, ...(replace === undefined ? {} : { replace }) } });

beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'seeded' }] });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
});
afterAll(() => server.close());

describe('one home for studies', () => {
  it('lists a study made in the studio and one written by hand in the same places, before and after building', async () => {
    expect((await api('/api/studio/studies', { body: { name: 'made-in-studio', yaml: demoYaml() } })).status).toBe(201);
    for (const kind of ['captions', 'judges'] as const) {
      for (const name of readdirSync(join(DEMO, kind))) expect((await upload('made-in-studio', kind, name, readFileSync(join(DEMO, kind, name), 'utf8'))).status).toBe(201);
    }
    // By hand: the folder, the definition and the files, copied in a shell.
    const hand = join(server.dataDir, 'studies', 'by-hand');
    mkdirSync(hand, { recursive: true });
    writeFileSync(join(hand, 'study.yaml'), demoYaml().replace(/^title: .*$/m, 'title: Written by hand'));
    cpSync(join(DEMO, 'captions'), join(hand, 'captions'), { recursive: true });
    cpSync(join(DEMO, 'judges'), join(hand, 'judges'), { recursive: true });

    const list = (await api('/api/studio/studies')).body.studies as { id: string; title: string; built: boolean; status: string }[];
    expect(list.find((s) => s.id === 'seeded')).toMatchObject({ built: true });
    expect(list.find((s) => s.id === 'made-in-studio')).toMatchObject({ built: false, status: 'draft' });
    expect(list.find((s) => s.id === 'by-hand')).toMatchObject({ built: false, title: 'Written by hand' });

    const cliList = await studyCli('list');
    expect(cliList.status, cliList.stderr).toBe(0);
    const line = (name: string) => cliList.stdout.split('\n').find((l) => l.startsWith(`${name}\t`));
    expect(line('made-in-studio')).toBe(`made-in-studio\tnot built\t\t${join(server.dataDir, 'studies', 'made-in-studio')}`);
    expect(line('by-hand')).toBe(`by-hand\tnot built\t\t${hand}`);
    expect(line('seeded')).toMatch(/^seeded\topen\t\d+ items, 0 listeners, 0 votes\t\(no folder: built from elsewhere\)$/);
    expect(line('demo')).toBe(`demo\tnot built\t\t${DEMO}`);

    // The shell builds the studio's study by name; the studio builds the hand-written one.
    const built = await studyCli('build', 'made-in-studio');
    expect(built.status, built.stderr).toBe(0);
    expect((await api('/api/studio/studies/by-hand/build', { method: 'POST' })).status).toBe(200);
    for (const id of ['made-in-studio', 'by-hand']) {
      expect((await api(`/api/studio/studies/${id}`)).body, id).toMatchObject({ built: true, editable: true, status: 'draft' });
    }
    expect((await studyCli('list')).stdout).toMatch(/^by-hand\tdraft\t\d+ items, 0 listeners, 0 votes\t/m);
  });

  it('keeps a hand-written definition’s comments and its corpus sources when the studio adds uploaded sources; Undo restores it byte for byte', async () => {
    const dir = join(server.dataDir, 'studies', 'commented');
    mkdirSync(dir, { recursive: true });
    const original = demoYaml().replace(
      /^sources:\n/m,
      '# Why these sources: the plan corpus is read from the server.\nsources:\n  - { kind: voxreason, file: /srv/corpora/voxreason/cases.jsonl }   # kept\n',
    );
    writeFileSync(join(dir, 'study.yaml'), original);
    for (const name of readdirSync(join(DEMO, 'captions'))) {
      expect((await upload('commented', 'captions', name, readFileSync(join(DEMO, 'captions', name), 'utf8'))).status).toBe(201);
    }
    const r = await api('/api/studio/studies/commented/sources', { body: { audioRoot: join(DEMO, 'audio') } });
    expect(r.status, r.text).toBe(200);
    const yaml = r.body.yaml as string;
    expect(yaml).toContain('# Why these sources: the plan corpus is read from the server.');
    expect(yaml).toContain('{ kind: voxreason, file: /srv/corpora/voxreason/cases.jsonl }');
    expect(yaml).toContain('# kept');
    expect(yaml).toContain(`{ kind: metaset, file: captions/lyra.json, system: lyra, audioRoot: ${join(DEMO, 'audio')} }`);
    // The demo's own upload-path sources were regenerated, not doubled.
    expect(yaml.match(/file: captions\/lyra\.json/g)).toHaveLength(1);
    expect(readFileSync(join(dir, 'study.yaml'), 'utf8')).toBe(yaml);
    expect(r.body.undo).toMatchObject({ description: 'use the uploaded files as sources' });

    const undone = await api('/api/studio/studies/commented/undo', { method: 'POST' });
    expect(undone.status, undone.text).toBe(200);
    expect(readFileSync(join(dir, 'study.yaml'), 'utf8')).toBe(original);
    expect(undone.body.yaml).toBe(original);
    expect(undone.body.undo).toMatchObject({ description: 'upload captions/whisper-style.json' });
  });

  it('never overwrites an uploaded file without being asked, and undoes the replacement and the upload', async () => {
    expect((await api('/api/studio/studies', { body: { name: 'uploads', yaml: demoYaml() } })).status).toBe(201);
    const file = join(server.dataDir, 'studies', 'uploads', 'judges', 'j.csv');
    const first = 'utterance_id,system,judge,run,score\nu1,lyra,jx,r1,0.5\n';
    const second = 'utterance_id,system,judge,run,score\nu1,lyra,jx,r1,0.9\n';
    expect((await upload('uploads', 'judges', 'j.csv', first)).status).toBe(201);

    const again = await upload('uploads', 'judges', 'j.csv', second);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'file_exists', field: 'name', message: expect.stringContaining('judges/j.csv is already uploaded') });
    expect(readFileSync(file, 'utf8')).toBe(first);

    expect((await upload('uploads', 'judges', 'j.csv', second, true)).status).toBe(201);
    expect(readFileSync(file, 'utf8')).toBe(second);
    expect((await api('/api/studio/studies/uploads')).body.undo).toMatchObject({ description: 'replace judges/j.csv' });

    expect((await api('/api/studio/studies/uploads/undo', { method: 'POST' })).status).toBe(200);
    expect(readFileSync(file, 'utf8')).toBe(first);
    const back = await api('/api/studio/studies/uploads/undo', { method: 'POST' });
    expect(back.body.files.judges).toEqual([]);
    expect(existsSync(file)).toBe(false);
    const empty = await api('/api/studio/studies/uploads/undo', { method: 'POST' });
    expect(empty.status).toBe(409);
    expect(empty.body.error).toBe('nothing_to_undo');

    // A clone starts with no history of its own original.
    expect((await upload('uploads', 'judges', 'j.csv', first)).status).toBe(201);
    expect((await api('/api/studio/studies/uploads/clone', { body: { name: 'uploads-2' } })).body.undo).toBeNull();
  });

  it('refuses a file it cannot read, with the reason and the line, and stores nothing', async () => {
    const refusals: [string, string, RegExp][] = [
      ['sheet.csv', 'PK\u0003\u0004\uFFFD\uFFFDbinary', /judges\/sheet\.csv is not UTF-8 text \(line 1 holds a byte that is not\)/],
      ['quote.csv', 'utterance_id,score\nu1,"0.5\nu2,0.7\n', /judges\/quote\.csv is not CSV: Quote Not Closed: .* at line 3/],
      ['ragged.csv', 'utterance_id,score\nu1,0.5\nu2,0.7,extra\n', /judges\/ragged\.csv is not CSV: Invalid Record Length: expect 2, got 3 on line 3/],
      ['header.csv', 'utterance_id,system,judge,run,score\n', /judges\/header\.csv holds a header and no rows/],
      ['broken.json', '{"a": [1, 2}', /judges\/broken\.json is not JSON/],
    ];
    for (const [name, content, message] of refusals) {
      const r = await upload('uploads', 'judges', name, content);
      expect(r.status, name).toBe(400);
      expect(r.body, name).toMatchObject({ error: 'invalid_file', field: 'content', message: expect.stringMatching(message) });
      expect(existsSync(join(server.dataDir, 'studies', 'uploads', 'judges', name)), name).toBe(false);
    }
  });

  it('refuses Undo once listeners voted (edits then go through Save and its checks)', async () => {
    // `seeded` has no folder; a study built from a folder and voted on is locked against Undo.
    const study = 'made-in-studio';
    expect((await api(`/api/studio/studies/${study}/open`, { method: 'POST' })).status).toBe(200);
    const start = await call(`${server.url}/api/sessions`, { body: { study, external: {} } });
    const token = start.body.token as string;
    const { position } = (await call(`${server.url}/api/session`, { token })).body.trial;
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(position) })).status).toBe(200);
    expect((await api(`/api/studio/studies/${study}/undo`, { method: 'POST' })).body.error).toBe('study_locked');
  });
});

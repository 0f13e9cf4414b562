import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, takeScreening, voteFor } from '../testing/client';
import { exportAtAnyMoment } from '../testing/export-time';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEMO = join(ROOT, 'studies', 'demo');
const STUDY = 'paid';

let server: TestServer;
let researcher: string;
let analyst: string;
let scratch: string;
const api = (path: string, init: Parameters<typeof call>[1] = {}) => call(`${server.url}${path}`, { token: researcher, ...init });

/** The demo study recording Prolific's and MTurk's ids, with a headphone screening whose failure excludes. */
const studyYaml = () =>
  readFileSync(join(DEMO, 'study.yaml'), 'utf8')
    .replace('seed: 2026', 'seed: 2026\nlinkParameters: [PROLIFIC_PID, STUDY_ID, SESSION_ID, workerId, assignmentId, hitId]')
    .replaceAll('audioRoot: audio', `audioRoot: ${join(DEMO, 'audio')}`)
    .replace('screening: { kind: none, required: false }', 'screening: { kind: antiphase, required: false }')
    .replace('minAttention: 0.75', 'minAttention: 0.75\n  excludeFailedScreening: true');

/**
 * One listener from a link with `external` parameters: optionally screened, then `answers`
 * trials; attention checks answered rightly unless `careless`, other trials with caption 1.
 */
async function listen(external: Record<string, string>, answers: number, opts: { screening?: boolean; careless?: boolean } = {}) {
  const start = await call(`${server.url}/api/sessions`, { body: { study: STUDY, external } });
  expect(start.status, start.text).toBe(201);
  const token = start.body.token as string;
  if (opts.screening !== undefined) {
    expect((await takeScreening(server.url, token, 'antiphase', opts.screening)).status).toBe(200);
  }
  const listener = server.app.store.sessions.byToken(token)!;
  const expected = server.app.db.prepare('SELECT a.first, i.expected FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? AND a.position = ?');
  for (let n = 0; n < answers; n++) {
    const { position } = (await call(`${server.url}/api/session`, { token })).body.trial;
    const item = expected.get(listener.id, position) as { first: 'a' | 'b'; expected: 'a' | 'b' | null };
    const right = item.expected === item.first ? 1 : 2;
    const choice = item.expected === null ? 1 : opts.careless ? ((3 - right) as 1 | 2) : right;
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(position, choice) })).status).toBe(200);
  }
  return listener.id;
}

function analyzeCli(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'analysis', 'cli.ts'), ...args], { cwd: ROOT, encoding: 'utf8' });
}

beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'seeded' }] });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
  analyst = (await server.app.store.accessTokens.create('analyst')).token;
  scratch = mkdtempSync(join(tmpdir(), 'earmark-participants-'));
  expect((await api('/api/studio/studies', { body: { name: STUDY, yaml: studyYaml() } })).status).toBe(201);
  for (const kind of ['captions', 'judges'] as const) {
    for (const name of readdirSync(join(DEMO, kind))) {
      const r = await api(`/api/studio/studies/${STUDY}/files`, { body: { kind, name, content: readFileSync(join(DEMO, kind, name), 'utf8') } });
      expect(r.status, r.text).toBe(201);
    }
  }
  expect((await api(`/api/studio/studies/${STUDY}/build`, { method: 'POST' })).status).toBe(200);
  expect((await api(`/api/studio/studies/${STUDY}/open`, { method: 'POST' })).status).toBe(200);
});
afterAll(async () => {
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('participants and the approve/reject file', () => {
  const ids: Record<string, string> = {};

  it('lists every listener with platform id, progress, attention, screening, the report’s exclusions and the code shown', async () => {
    ids.good = await listen({ PROLIFIC_PID: 'p-good', STUDY_ID: 's1', SESSION_ID: 'x1' }, 16, { screening: true });
    ids.careless = await listen({ PROLIFIC_PID: 'p-careless' }, 16, { screening: true, careless: true });
    ids.deaf = await listen({ PROLIFIC_PID: 'p-screen' }, 16, { screening: false });
    ids.half = await listen({ PROLIFIC_PID: 'p-half' }, 6, { screening: true });
    ids.mturk = await listen({ workerId: 'W123', assignmentId: 'A1', hitId: 'H1' }, 16, { screening: true });
    ids.plain = await listen({}, 2);
    // The headphone check sent this one away before any trial; this one only opened the link.
    ids.sentAway = await listen({ PROLIFIC_PID: 'p-sent-away' }, 0, { screening: false });
    ids.opened = await listen({ PROLIFIC_PID: 'p-opened' }, 0);

    const table = await api(`/api/studio/studies/${STUDY}/participants`);
    expect(table.status, table.text).toBe(200);
    const rows = new Map((table.body.participants as any[]).map((r) => [r.listener, r]));
    expect(rows.size).toBe(8);

    // Exclusions are exactly the live report's.
    const report = (await api(`/api/reports/${STUDY}`)).body;
    for (const e of report.listeners.excluded as { listener_id: string; reasons: string[] }[]) {
      expect(rows.get(e.listener_id).excludedFor).toEqual(e.reasons);
    }
    expect(rows.get(ids.careless).excludedFor).toEqual(['attention']);
    expect(rows.get(ids.deaf).excludedFor).toEqual(['screening']);

    const good = rows.get(ids.good);
    expect(good).toMatchObject({
      participant: 'p-good',
      external: { PROLIFIC_PID: 'p-good', STUDY_ID: 's1', SESSION_ID: 'x1' },
      progress: { done: 16, total: 16 },
      attention: { correct: 4, answered: 4 },
      screening: 'passed',
      excludedFor: [],
      completionCode: 'DEMO-EARMARK',
      decision: 'APPROVE',
    });
    expect(good.completedAt).not.toBeNull();
    expect(rows.get(ids.careless)).toMatchObject({ attention: { correct: 0, answered: 4 }, decision: 'REJECT', completionCode: 'DEMO-EARMARK' });
    expect(rows.get(ids.careless).reason).toMatch(/attention checks 0\/4 right \(needs ≥ 75% right\)/);
    expect(rows.get(ids.careless)).toMatchObject({ status: 'finished', inAnalysis: false, rejectionCategory: 'FAILED_CHECK' });
    // Failed the check but finished (the study lets them go on): excluded by the screening rule, which is never a ground for rejection.
    expect(rows.get(ids.deaf)).toMatchObject({ screening: 'failed', status: 'finished', inAnalysis: false, decision: 'APPROVE', rejectionCategory: null });
    expect(rows.get(ids.deaf).reason).toBe(
      'completed 16 of 16 trials; excluded from analysis: headphone check failed (antiphase 0 of 6 right) (the screening is never grounds for rejection)');
    // Leaving part-way is a RETURN unless the study's approvals.rejectFor names incomplete.
    expect(rows.get(ids.half)).toMatchObject({ progress: { done: 6, total: 16 }, completionCode: null, completedAt: null, status: 'unfinished', decision: 'RETURN' });
    expect(rows.get(ids.half).reason).toBe(
      'did not finish: 6 of 16 trials; no completion code was shown; ask them to return the study (leaving part-way is not grounds for rejection in this study)');
    expect(rows.get(ids.sentAway)).toMatchObject({ screening: 'failed', status: 'screened_out', inAnalysis: false, decision: 'RETURN', rejectionCategory: null });
    expect(rows.get(ids.sentAway).reason).toBe('screened out: headphone check failed (antiphase 0 of 6 right); ask them to return the study (a screen-out, never a rejection)');
    expect(rows.get(ids.opened)).toMatchObject({ screening: null, status: 'opened', inAnalysis: false, decision: 'NONE', progress: { done: 0, total: 16 } });
    expect(good).toMatchObject({ status: 'finished', inAnalysis: true, rejectionCategory: null });
    expect(rows.get(ids.mturk)).toMatchObject({ participant: 'W123', decision: 'APPROVE' });
    expect(rows.get(ids.plain)).toMatchObject({ participant: null, screening: null, progress: { done: 2, total: 16 } });

    // Progress and completion agree with the database.
    const db = server.app.db;
    for (const [id, row] of rows) {
      const done = (db.prepare('SELECT count(*) AS n FROM votes WHERE listener_id = ?').get(id) as { n: number }).n;
      expect(row.progress.done).toBe(done);
    }
  });

  it('downloads a CSV of platform ids with APPROVE/REJECT/RETURN, the reason and Prolific’s rejection category; link openers last', async () => {
    const res = await fetch(`${server.url}/api/studio/studies/${STUDY}/approvals.csv`, { headers: { authorization: `Bearer ${researcher}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${STUDY}-approvals.csv"`);
    const records = parse(await res.text(), { columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0])).toEqual(['participant_id', 'decision', 'reason', 'rejection_category', 'listener_id', 'completion_code']);
    const by = new Map(records.map((r) => [r.participant_id, r]));
    // The listener without a platform id cannot be approved there; everyone else is listed once.
    expect([...by.keys()].sort()).toEqual(['W123', 'p-careless', 'p-good', 'p-half', 'p-opened', 'p-screen', 'p-sent-away']);
    // Those who only opened the link submitted nothing: listed apart, after everyone else.
    expect(records.at(-1)).toMatchObject({ participant_id: 'p-opened', decision: 'NONE', rejection_category: '', completion_code: '' });
    expect(by.get('p-good')).toMatchObject({ decision: 'APPROVE', rejection_category: '', listener_id: ids.good, completion_code: 'DEMO-EARMARK' });
    expect(by.get('p-careless')).toMatchObject({ decision: 'REJECT', rejection_category: 'FAILED_CHECK' });
    expect(by.get('p-screen')).toMatchObject({ decision: 'APPROVE', rejection_category: '' });
    expect(by.get('p-half')).toMatchObject({ decision: 'RETURN', rejection_category: '', completion_code: '' });
    // The participant the headphone check sent away is a screen-out, never a rejection.
    expect(by.get('p-sent-away')).toMatchObject({
      decision: 'RETURN', rejection_category: '', listener_id: ids.sentAway, completion_code: '',
      reason: 'screened out: headphone check failed (antiphase 0 of 6 right); ask them to return the study (a screen-out, never a rejection)',
    });
    expect(by.get('W123')).toMatchObject({ decision: 'APPROVE' });
  });

  it('is the researcher’s alone: analysts get 403, strangers 401, unknown studies 404', async () => {
    for (const path of ['participants', 'approvals.csv']) {
      expect((await call(`${server.url}/api/studio/studies/${STUDY}/${path}`)).status, path).toBe(401);
      expect((await call(`${server.url}/api/studio/studies/${STUDY}/${path}`, { token: analyst })).status, path).toBe(403);
      expect((await api(`/api/studio/studies/nope/${path}`)).status, path).toBe(404);
    }
  });
});

describe('the zipped export bundle', () => {
  it('downloads as one zip that `npm run analyze` reads as it is, and unzipped as a directory with the same result', async () => {
    const res = await fetch(`${server.url}/api/studio/studies/${STUDY}/export.zip`, { headers: { authorization: `Bearer ${researcher}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${STUDY}-bundle.zip"`);
    const zip = new Uint8Array(await res.arrayBuffer());
    const zipFile = join(scratch, `${STUDY}-bundle.zip`);
    writeFileSync(zipFile, zip);

    // The zip holds the export endpoint's files, byte for byte, in one folder.
    const json = (await api(`/api/studio/studies/${STUDY}/export`)).body as Record<string, string>;
    const entries = unzipSync(zip);
    expect(Object.keys(entries).sort()).toEqual(Object.keys(json).map((n) => `${STUDY}-bundle/${n}`).sort());
    const zipped = Object.fromEntries(Object.keys(json).map((name) => [name, new TextDecoder().decode(entries[`${STUDY}-bundle/${name}`])]));
    expect(exportAtAnyMoment(zipped)).toEqual(exportAtAnyMoment(json));

    const live = (await api(`/api/reports/${STUDY}`)).body;
    const fromZip = analyzeCli(zipFile, '--format', 'json');
    expect(fromZip.status, fromZip.stderr).toBe(0);
    const report = JSON.parse(fromZip.stdout);
    expect(report.listeners.total).toBe(live.listeners.total);
    expect(report.reliability.items).toBe(live.reliability.items);

    // Unzipped, the folder is a bundle directory analyze takes too.
    const dir = join(scratch, `${STUDY}-bundle`);
    mkdirSync(dir);
    for (const [name, bytes] of Object.entries(entries)) writeFileSync(join(scratch, name), bytes);
    const fromDir = analyzeCli(dir, '--format', 'json');
    expect(fromDir.status, fromDir.stderr).toBe(0);
    expect(JSON.parse(fromDir.stdout)).toEqual(report);
  });

  it('refuses a file that is not a bundle zip, naming the file and what a bundle zip holds', () => {
    const notZip = join(scratch, 'votes.csv');
    writeFileSync(notZip, 'item_id,listener_id,first,chosen\n');
    const a = analyzeCli(notZip);
    expect(a.status).toBe(1);
    expect(a.stderr).toContain(`refused: ${notZip}: is neither a bundle directory nor a zip archive`);

    const wrong = join(scratch, 'wrong.zip');
    writeFileSync(wrong, zipSync({ 'notes/readme.txt': strToU8('hello') }));
    const b = analyzeCli(wrong);
    expect(b.status).toBe(1);
    expect(b.stderr).toContain(`refused: ${wrong}: holds no items.csv (found notes/readme.txt)`);

    const two = join(scratch, 'two.zip');
    writeFileSync(two, zipSync({ 'a/items.csv': strToU8('x'), 'b/items.csv': strToU8('y') }));
    expect(analyzeCli(two).stderr).toContain('holds more than one bundle (items.csv in a, b)');

    // items.csv is the one file a bundle needs (docs/analysis-spec.md §1): without votes and judge scores it is analysed, with nothing to report.
    const partial = join(scratch, 'partial.zip');
    writeFileSync(partial, zipSync({ 'study/items.csv': strToU8('item_id,utterance_id,system_a,system_b,attention,expected\r\n') }));
    const c = analyzeCli(partial, '--format', 'json');
    expect(c.status, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout)).toMatchObject({ listeners: { total: 0 }, judges: [] });
  });
});

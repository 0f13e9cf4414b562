import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planHash, planOptions } from '../../analysis/analysis-plan';
import { BundleError, readBundle } from '../../analysis/bundle';
import { withZippedBundle } from '../../analysis/bundle-zip';
import { renderReportHtml } from '../../analysis/html';
import { paperFiles } from '../../analysis/paper/index';
import { analyzeStudy, reportHeader, resolveSettings } from '../../analysis/study-settings';
import { readStudyDefinition } from '../../studies/settings';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';

const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));
const demoYaml = (extra = '') =>
  readFileSync(join(DEMO, 'study.yaml'), 'utf8').replaceAll('audioRoot: audio', `audioRoot: ${join(DEMO, 'audio')}`) + extra;

let server: TestServer;
let researcher: string;
let work: string;
const api = (path: string, init: Parameters<typeof call>[1] = {}) => call(`${server.url}${path}`, { token: researcher, ...init });

async function createBuilt(study: string, yaml: string) {
  expect((await api('/api/studio/studies', { body: { name: study, yaml } })).status).toBe(201);
  for (const kind of ['captions', 'judges'] as const) {
    for (const name of readdirSync(join(DEMO, kind))) {
      expect((await api(`/api/studio/studies/${study}/files`, { body: { kind, name, content: readFileSync(join(DEMO, kind, name), 'utf8') } })).status).toBe(201);
    }
  }
  const built = await api(`/api/studio/studies/${study}/build`, { method: 'POST' });
  expect(built.status, built.text).toBe(200);
}

async function oneVote(study: string) {
  const start = await call(`${server.url}/api/sessions`, { body: { study, external: {} } });
  expect(start.status, start.text).toBe(201);
  const token = start.body.token as string;
  const { position } = (await call(`${server.url}/api/session`, { token })).body.trial;
  expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(position, 1) })).status).toBe(200);
}

/** The study's export, unzipped into a folder of its own. */
async function exported(study: string): Promise<string> {
  const zip = await fetch(`${server.url}/api/studio/studies/${study}/export.zip`, { headers: { authorization: `Bearer ${researcher}` } });
  expect(zip.status).toBe(200);
  const file = join(work, `${study}-${Date.now()}.zip`);
  writeFileSync(file, new Uint8Array(await zip.arrayBuffer()));
  const dir = join(work, `${study}-${Date.now()}`);
  await withZippedBundle(file, (unzipped) => cp(unzipped, dir, { recursive: true }));
  return dir;
}

/** A paper zip's files by their path inside its one folder. */
async function withZippedPaper(file: string): Promise<Map<string, string>> {
  const entries = unzipSync(new Uint8Array(await readFile(file)));
  return new Map(Object.entries(entries).filter(([name]) => !name.endsWith('/')).map(([name, bytes]) => [name.replace(/^[^/]+\//, ''), strFromU8(bytes)]));
}

const studyJsonOf = async (dir: string) => JSON.parse(await readFile(join(dir, 'study.json'), 'utf8'));
const withMinAttention = (yaml: string, value: number) => yaml.replace('minAttention: 0.75', `minAttention: ${value}`);

beforeAll(async () => {
  server = await startTestServer();
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
  work = mkdtempSync(join(tmpdir(), 'earmark-plan-'));
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the frozen analysis plan', () => {
  it('is frozen at opening, frozen again by an edit before the first vote, and refuses a change after it', async () => {
    await createBuilt('frozen', demoYaml());
    expect((await api('/api/studio/studies/frozen')).body.plan).toBeNull();
    expect((await api('/api/studio/studies/frozen/open', { method: 'POST' })).status).toBe(200);
    const opened = (await api('/api/studio/studies/frozen')).body.plan;
    expect(opened).toMatchObject({ hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), changes: [] });

    // No vote yet: the edit is applied at the next build and the plan is frozen again, with no change recorded.
    const yaml = withMinAttention(demoYaml(), 0.8);
    expect((await api('/api/studio/studies/frozen/definition', { method: 'PUT', body: { yaml } })).status).toBe(200);
    expect((await api('/api/studio/studies/frozen/build', { method: 'POST' })).status).toBe(200);
    const refrozen = (await api('/api/studio/studies/frozen')).body.plan;
    expect(refrozen.hash).not.toBe(opened.hash);
    expect(refrozen.changes).toEqual([]);

    await oneVote('frozen');
    const refused = await api('/api/studio/studies/frozen/definition', { method: 'PUT', body: { yaml: withMinAttention(demoYaml(), 0.9) } });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toBe('plan_frozen');
    expect(refused.body.message).toContain('minAttention: 0.8 → 0.9');
    expect(refused.body.message).toContain('analysis.planChanges: record');
    // The edit was taken back: the folder and the plan are as they were.
    expect((await api('/api/studio/studies/frozen')).body).toMatchObject({ yaml, plan: refrozen });
    // A wording edit keeps the plan and is applied.
    const reworded = yaml.replace(/^title: .*$/m, 'title: Reworded');
    expect((await api('/api/studio/studies/frozen/definition', { method: 'PUT', body: { yaml: reworded } })).status).toBe(200);
    expect((await api('/api/studio/studies/frozen')).body.plan).toEqual(refrozen);

    const dir = await exported('frozen');
    const study = await studyJsonOf(dir);
    expect(study.plan).toMatchObject({ hash: refrozen.hash, frozenAt: refrozen.frozenAt, changes: [] });
    expect(planHash(study.plan.settings)).toBe(study.plan.hash);
    expect(study.plan.settings).toMatchObject({ kind: 'pair', minAttention: 0.8, buckets: 5, bootstrap: 0 });
  });

  it('records a change after the first vote with its reason where the study says so, and the report lists it and every flag that departs from it', async () => {
    const record = demoYaml('\nanalysis:\n  planChanges: record\n  bootstrap: 40\n  bootstrapSeed: 7\n');
    await createBuilt('recorded', record);
    expect((await api('/api/studio/studies/recorded/open', { method: 'POST' })).status).toBe(200);
    await oneVote('recorded');
    const before = (await api('/api/studio/studies/recorded')).body.plan;

    const changed = withMinAttention(record, 0.7);
    const noReason = await api('/api/studio/studies/recorded/definition', { method: 'PUT', body: { yaml: changed } });
    expect(noReason.status, noReason.text).toBe(400);
    expect(noReason.body.field).toBe('reason');
    expect((await api('/api/studio/studies/recorded')).body.plan).toEqual(before);

    const saved = await api('/api/studio/studies/recorded/definition', { method: 'PUT', body: { yaml: changed, reason: 'two checks were ambiguous (pilot feedback)' } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.plan.changes).toEqual([
      { at: expect.any(String), reason: 'two checks were ambiguous (pilot feedback)', fromHash: before.hash, toHash: saved.body.plan.hash, changed: ['minAttention: 0.75 → 0.7'] },
    ]);

    const dir = await exported('recorded');
    const bundle = await readBundle(dir);
    // What the paper's methods quote goes with the plan: the texts verbatim, the design and the copies' processing.
    expect(bundle.study?.methods).toMatchObject({ design: expect.stringMatching(/^(crossed|incomplete)/), screening: { kind: 'none' }, processing: expect.stringContaining('16-bit PCM WAV') });
    const definition = readStudyDefinition(server.app.db, 'recorded');
    expect(bundle.study?.methods).toMatchObject({ instructions: definition.instructions, question: definition.question });
    expect(definition.instructions.length).toBeGreaterThan(20);
    const settings = resolveSettings(bundle.study);
    const header = reportHeader(bundle, settings, planOptions(bundle.study?.plan, {}));
    expect(header.plan).toMatchObject({ hash: saved.body.plan.hash, changes: saved.body.plan.changes, deviations: [] });
    // The plan's bootstrap is the report's unless a flag says otherwise; a flag is a deviation.
    expect(planOptions(bundle.study?.plan, {})).toEqual({ buckets: 5, btPrior: 0, bootstrap: { n: 40, seed: 7 } });
    const flagged = reportHeader(bundle, resolveSettings(bundle.study, { minAttention: 0.9 }), planOptions(bundle.study?.plan, { bootstrap: 0, buckets: 4 }));
    expect(flagged.plan!.deviations).toEqual(['minAttention: 0.7 → 0.9', 'buckets: 5 → 4', 'bootstrap: 40 → 0']);
    const page = renderReportHtml(analyzeStudy(bundle, settings, planOptions(bundle.study?.plan, { bootstrap: 0 })), flagged);
    expect(page).toContain(saved.body.plan.hash);
    expect(page).toContain('reason: two checks were ambiguous (pilot feedback)');
    expect(page).toContain('this analysis departs from it: minAttention: 0.7 → 0.9; buckets: 5 → 4; bootstrap: 40 → 0.');
  });

  it('gives the paper bundle from the studio as the command writes it from the export', async () => {
    const res = await fetch(`${server.url}/api/studio/studies/recorded/paper.zip`, { headers: { authorization: `Bearer ${researcher}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('recorded-paper.zip');
    const file = join(work, 'recorded-paper.zip');
    writeFileSync(file, new Uint8Array(await res.arrayBuffer()));
    const served = await withZippedPaper(file);
    const bundle = await readBundle(await exported('recorded'));
    const settings = resolveSettings(bundle.study);
    const options = planOptions(bundle.study?.plan, {});
    const offline = new Map(paperFiles(bundle, analyzeStudy(bundle, settings, options), reportHeader(bundle, settings, options), settings, { buckets: options.buckets, btPrior: options.btPrior, bootstrap: options.bootstrap }));
    expect([...served.keys()].sort()).toEqual([...offline.keys()].sort());
    // The same tables, numbers (the plan's bootstrap run in both), references and figures; methods.md differs only by the export time.
    for (const [name, text] of offline) if (name !== 'methods.md') expect(served.get(name), name).toBe(text);
    expect(served.get('numbers.json')).toContain('"');
    expect(served.get('methods.md')).toContain((await api('/api/studio/studies/recorded')).body.plan.hash);
  });

  it('refuses a bundle whose plan is not its settings, never re-analysing it silently', async () => {
    await createBuilt('tampered', demoYaml());
    expect((await api('/api/studio/studies/tampered/open', { method: 'POST' })).status).toBe(200);
    const dir = await exported('tampered');
    const study = await studyJsonOf(dir);
    const refusal = async (json: unknown) => {
      await writeFile(join(dir, 'study.json'), JSON.stringify(json));
      return readBundle(dir).then(() => null, (e: unknown) => e);
    };
    const edited = await refusal({ ...study, minAttention: 0.5 });
    expect(edited).toBeInstanceOf(BundleError);
    expect(edited).toMatchObject({ file: 'study.json', column: 'minAttention' });
    expect((edited as Error).message).toContain('minAttention: 0.75 → 0.5');
    const replanned = await refusal({ ...study, minAttention: 0.5, plan: { ...study.plan, settings: { ...study.plan.settings, minAttention: 0.5 } } });
    expect(replanned).toMatchObject({ file: 'study.json', column: 'plan.hash' });
    expect(await refusal(study)).toBeNull();
  });
});

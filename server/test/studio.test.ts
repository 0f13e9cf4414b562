import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundle } from '../../analysis/bundle';
import { analyze } from '../../analysis/report';
import { startTestServer, type TestServer } from '../testing/server';
import { call, takeScreening, voteFor } from '../testing/client';

const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));
/** The demo study's definition, pointed at the repository's demo audio by absolute path. */
const demoYaml = () =>
  readFileSync(join(DEMO, 'study.yaml'), 'utf8')
    .replaceAll('audioRoot: audio', `audioRoot: ${join(DEMO, 'audio')}`)
    .replace('screening: { kind: none, required: false }', 'screening: { kind: antiphase, required: false }')
    .replace('minAttention: 0.75', 'minAttention: 0.75\n  excludeFailedScreening: true');

let server: TestServer;
let researcher: string;
let analyst: string;
const api = (path: string, init: Parameters<typeof call>[1] = {}) => call(`${server.url}${path}`, { token: researcher, ...init });

async function upload(study: string, kind: 'captions' | 'judges', dir: string) {
  for (const name of readdirSync(dir)) {
    const r = await api(`/api/studio/studies/${study}/files`, { body: { kind, name, content: readFileSync(join(dir, name), 'utf8') } });
    expect(r.status, r.text).toBe(201);
  }
}

/**
 * One listener through the listener API: start, optionally screen, answer `answers` trials —
 * attention checks rightly (looked up in the database), other trials with the first caption.
 */
async function listen(study: string, answers: number, screening?: boolean) {
  const start = await call(`${server.url}/api/sessions`, { body: { study, external: {} } });
  expect(start.status, start.text).toBe(201);
  const token = start.body.token as string;
  if (screening !== undefined) {
    expect((await takeScreening(server.url, token, 'antiphase', screening)).status).toBe(200);
  }
  const listener = server.app.store.sessions.byToken(token)!;
  const expected = server.app.db.prepare(
    "SELECT a.first, i.expected FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? AND a.position = ?",
  );
  for (let n = 0; n < answers; n++) {
    const { position } = (await call(`${server.url}/api/session`, { token })).body.trial;
    const item = expected.get(listener.id, position) as { first: 'a' | 'b'; expected: 'a' | 'b' | null };
    const choice = item.expected === null || item.expected === item.first ? 1 : 2;
    const vote = await call(`${server.url}/api/session/votes`, { token, body: voteFor(position, choice) });
    expect(vote.status, vote.text).toBe(200);
  }
  return token;
}

beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'seeded' }] });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
  analyst = (await server.app.store.accessTokens.create('analyst')).token;
});
afterAll(() => server.close());

describe('studio access', () => {
  it('needs a token (401); studio writes need the researcher role (403); reports take analysts too', async () => {
    const create = { body: { name: 'x', template: 'metaset-caption-preference' } };
    expect((await call(`${server.url}/api/studio/studies`, { ...create })).status).toBe(401);
    expect((await call(`${server.url}/api/studio/studies`, { ...create, token: 'bogus.token' })).status).toBe(401);
    const denied = await call(`${server.url}/api/studio/studies`, { ...create, token: analyst });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'forbidden' });
    for (const path of ['/api/studio/studies/seeded/preview', '/api/studio/templates', '/api/studio/studies/seeded']) {
      expect((await call(`${server.url}${path}`, { token: analyst })).status, path).toBe(403);
    }
    expect((await call(`${server.url}/api/studio/studies/seeded/open`, { method: 'POST', token: analyst })).status).toBe(403);
    for (const path of ['/api/studio/studies/seeded/dashboard', '/api/reports/seeded']) {
      expect((await call(`${server.url}${path}`)).status, path).toBe(401);
      expect((await call(`${server.url}${path}`, { token: analyst })).status, path).toBe(200);
      expect((await call(`${server.url}${path}`, { token: researcher })).status, path).toBe(200);
    }
    const link = await call(`${server.url}/api/reports/seeded/html-link`, { method: 'POST', token: analyst });
    expect(link.status).toBe(200);
  });
});

describe('defining a study', () => {
  it('refuses a bad YAML with every problem at its line and field, and writes nothing', async () => {
    const yaml = demoYaml()
      .replace('targetListeners: 5', 'targetListeners: five\ncolour: red')
      .replace('  kind: crossed', '  kind: incomplete\n  itemsPerListener: 3');
    const r = await api('/api/studio/studies', { body: { name: 'broken', yaml } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_definition');
    const lines = yaml.split('\n');
    const lineOf = (text: string) => lines.findIndex((l) => l.includes(text)) + 1;
    expect(r.body.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'targetListeners', line: lineOf('targetListeners: five'), message: expect.stringMatching(/number/) }),
        expect.objectContaining({ field: 'colour', line: lineOf('colour: red'), message: 'unknown key' }),
        expect.objectContaining({ field: 'design.ratingsPerItem', message: 'required' }),
      ]),
    );
    expect(existsSync(join(server.dataDir, 'studies', 'broken'))).toBe(false);
    const syntax = await api('/api/studio/studies', { body: { name: 'broken', yaml: 'title: [unclosed\n' } });
    expect(syntax.status).toBe(400);
    expect(syntax.body.problems[0]).toMatchObject({ line: expect.any(Number), message: expect.stringMatching(/YAML syntax/) });
    const neither = await api('/api/studio/studies', { body: { name: 'broken' } });
    expect(neither.status, neither.text).toBe(400);
    expect(neither.body.field).toBe('yaml');
  });

  it('starts from a template, takes uploaded caption and judge files, and writes sources from them', async () => {
    const templates = await api('/api/studio/templates');
    expect(templates.body.templates.map((t: { id: string }) => t.id)).toEqual([
      'demo-ab', 'demo-abx', 'demo-caption-rating', 'demo-ccr', 'demo-mushra', 'describe-style', 'metaset-caption-preference', 'psc-style-tags', 'ravdess-audio-mos', 'ravdess-emotion-tags', 'ravdess-plan-preference', 'vctk-speaker-style',
    ]);
    const created = await api('/api/studio/studies', { body: { name: 'from-template', template: 'metaset-caption-preference' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ editable: true, built: false, status: 'draft' });
    await upload('from-template', 'captions', join(DEMO, 'captions'));
    await upload('from-template', 'judges', join(DEMO, 'judges'));
    const bad = await api('/api/studio/studies/from-template/files', { body: { kind: 'captions', name: '../escape.json', content: '[]' } });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('name');
    const notJson = await api('/api/studio/studies/from-template/files', { body: { kind: 'captions', name: 'x.json', content: '{nope' } });
    expect(notJson.status).toBe(400);
    const sources = await api('/api/studio/studies/from-template/sources', { body: { audioRoot: join(DEMO, 'audio') } });
    expect(sources.status, sources.text).toBe(200);
    expect(sources.body.files.captions).toEqual(['lyra.json', 'parrot-7b.json', 'sonnet-cap.json', 'whisper-style.json']);
    expect(sources.body.yaml).toContain(`{ kind: metaset, file: captions/lyra.json, system: lyra, audioRoot: ${join(DEMO, 'audio')} }`);
    expect(sources.body.yaml).toContain('{ kind: judge, file: judges/*.json }');
    expect(sources.body.yaml).toContain('systems: [ oracle, lyra, parrot-7b, sonnet-cap, whisper-style ]');
    // The template asks for 100 items; the demo files hold 16 utterances, 8 of them the generated attention
    // checks' and up to 8 more whose captions the checks show (never scored): refused at the line that asks too much.
    const validated = await api('/api/studio/studies/from-template/validate', { method: 'POST' });
    expect(validated.status, validated.text).toBe(400);
    const line = sources.body.yaml.split('\n').findIndex((l: string) => l.includes('count: 100')) + 1;
    expect(validated.body.problems).toEqual([
      expect.objectContaining({ field: 'items.count', line, message: expect.stringMatching(/asked for 100 items but only [0-8]0 caption pairs/) }),
    ]);
  });

  it('validates and builds a rating study, reporting its rating items (the rating template over the demo content)', async () => {
    // Created from the template as the studio's New study does: its study.yaml lives in the data dir, and the
    // demo files it rates are named by absolute paths there.
    const created = await api('/api/studio/studies', { body: { name: 'mos', template: 'demo-caption-rating' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.yaml).toContain(`file: ${join(DEMO, 'captions', 'lyra.json')}`);
    expect(created.body.yaml).toContain('# ACR: Bad, Poor, Fair, Good, Excellent');
    const valid = await api('/api/studio/studies/mos/validate', { method: 'POST' });
    expect(valid.status, valid.text).toBe(200);
    expect(valid.body).toMatchObject({ action: 'validated', items: { pair: 0, rating: 30, attention: 4, practice: 2 } });
    expect(server.app.store.studies.get('mos')).toBeUndefined();
    // The template's REPLACE-ME is a warning at validate and refused at build, at its line.
    expect(valid.body.notes).toContainEqual(expect.stringMatching(/^mos\/study\.yaml:\d+:\d+ completion\.code: "REPLACE-ME" is a placeholder/));
    const refused = await api('/api/studio/studies/mos/build', { method: 'POST' });
    expect(refused.status).toBe(400);
    expect(refused.body.problems).toEqual([expect.objectContaining({ field: 'completion.code', line: created.body.yaml.split('\n').findIndex((l: string) => l.includes('REPLACE-ME')) + 1 })]);
    expect((await api('/api/studio/studies/mos/definition', { method: 'PUT', body: { yaml: created.body.yaml.replace('REPLACE-ME', 'C7Q2X9LM') } })).status).toBe(200);
    const built = await api('/api/studio/studies/mos/build', { method: 'POST' });
    expect(built.status, built.text).toBe(200);
    expect(built.body).toMatchObject({ action: 'created', items: { pair: 0, rating: 30, attention: 4, practice: 2 } });
    expect((await api('/api/studio/studies/mos')).body.itemsByKind).toEqual({ pair: 0, rating: 30, ab: 0, abx: 0, ccr: 0, tags: 0, mushra: 0, describe: 0, attention: 4, practice: 2 });
    // The level its clips are served at, with the unit: the default P.56 active speech level.
    expect(valid.body.audio).toBeNull();
    expect(built.body.audio).toMatchObject({ level: '-26 dBov active speech level (ITU-T P.56 method B)', unit: 'dBov', dither: true, peakLimited: [] });
  });

  it('names every peak-limited clip in the build report, with its level in the study\'s unit', async () => {
    // -6 LUFS is beyond what the demo's clips reach under a -1 dBFS peak: every one is held below it.
    const yaml = `${demoYaml()}\nloudness:\n  measure: integrated\n  target: -6\n`;
    expect((await api('/api/studio/studies', { body: { name: 'loud', yaml } })).status).toBe(201);
    await upload('loud', 'captions', join(DEMO, 'captions'));
    await upload('loud', 'judges', join(DEMO, 'judges'));
    const built = await api('/api/studio/studies/loud/build', { method: 'POST' });
    expect(built.status, built.text).toBe(200);
    const audio = built.body.audio as { clips: number; unit: string; level: string; peakLimited: { clip: string; level: number; gainDb: number }[] };
    expect(audio).toMatchObject({ unit: 'LUFS', level: '-6 LUFS integrated loudness (ITU-R BS.1770-4, K-weighted, gated)' });
    expect(audio.peakLimited).toHaveLength(audio.clips);
    const names = server.app.db.prepare("SELECT corpus || ':' || path FROM clips WHERE id IN (SELECT clip_id FROM served_clips WHERE study_id = 'loud') ORDER BY 1").pluck().all();
    expect(audio.peakLimited.map((c) => c.clip).sort()).toEqual(names);
    for (const c of audio.peakLimited) expect(c.level).toBeLessThan(-6);
  });

  it('refuses references the manifest lacks, naming line and field', async () => {
    const yaml = demoYaml().replace('systems: [oracle, lyra,', 'systems: [oracle, nosuch-system, lyra,');
    expect((await api('/api/studio/studies', { body: { name: 'bad-refs', yaml } })).status).toBe(201);
    await upload('bad-refs', 'captions', join(DEMO, 'captions'));
    await upload('bad-refs', 'judges', join(DEMO, 'judges'));
    const r = await api('/api/studio/studies/bad-refs/build', { method: 'POST' });
    expect(r.status).toBe(400);
    expect(r.body.problems[0]).toMatchObject({
      field: 'items.systems[1]',
      line: yaml.split('\n').findIndex((l) => l.includes('nosuch-system')) + 1,
      message: expect.stringMatching(/nosuch-system is not in the study's sources/),
    });
    expect(server.app.store.studies.get('bad-refs')).toBeUndefined();
  });
});

describe('building, previewing and running a study', () => {
  const study = 'caps';

  it('builds from uploaded files, previews every trial as listeners get it without writing votes, and opens', async () => {
    expect((await api('/api/studio/studies', { body: { name: study, yaml: demoYaml() } })).status).toBe(201);
    await upload(study, 'captions', join(DEMO, 'captions'));
    await upload(study, 'judges', join(DEMO, 'judges'));
    const valid = await api(`/api/studio/studies/${study}/validate`, { method: 'POST' });
    expect(valid.status, valid.text).toBe(200);
    expect(valid.body).toMatchObject({ action: 'validated', items: { pair: 12, attention: 4, practice: 0 } });
    expect(server.app.store.studies.get(study)).toBeUndefined();

    const built = await api(`/api/studio/studies/${study}/build`, { method: 'POST' });
    expect(built.status, built.text).toBe(200);
    expect(built.body).toMatchObject({ action: 'created', status: 'draft', items: { pair: 12, attention: 4, practice: 0 } });
    expect(Object.values(built.body.sampler.perSystem as Record<string, number>).every((n) => n >= 4)).toBe(true);
    expect(built.body.sampler.buckets.reduce((n: number, b: { chosen: number }) => n + b.chosen, 0)).toBe(12);

    const preview = await api(`/api/studio/studies/${study}/preview`);
    expect(preview.status).toBe(200);
    expect(preview.body.trials).toHaveLength(16);
    const items = server.app.db.prepare('SELECT i.seq, i.kind, i.caption_a, i.caption_b, s.id AS clip_id FROM items i JOIN served_clips s ON s.study_id = i.study_id AND s.clip_id = i.clip_id WHERE i.study_id = ? ORDER BY i.seq').all(study) as any[];
    preview.body.trials.forEach((p: any, i: number) => {
      expect(p.kind).toBe(items[i].kind);
      expect(p.trial).toMatchObject({ position: items[i].seq, captions: [items[i].caption_a, items[i].caption_b], clip: { id: items[i].clip_id } });
      expect(Object.keys(p.trial).sort()).toEqual(['captions', 'clip', 'kind', 'position']);
    });
    const audio = await fetch(`${server.url}${preview.body.trials[0].trial.clip.audioUrl}`);
    expect(audio.status).toBe(200);
    expect((await audio.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    expect(server.app.db.prepare('SELECT count(*) AS n FROM votes').get()).toEqual({ n: 0 });

    const links = (await api(`/api/studio/studies/${study}`)).body.links;
    expect(links.plain).toBe(`${server.url}/s/${study}`);
    expect(links.prolific).toBe(`${server.url}/s/${study}?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}`);

    const opened = await api(`/api/studio/studies/${study}/open`, { method: 'POST' });
    expect(opened.status).toBe(200);
    expect(opened.body.status).toBe('open');
  });

  it('dashboard figures equal the database while listeners vote; failed screening and not-run checks are reported', async () => {
    await listen(study, 16, true); // complete, screened
    await listen(study, 16, false); // complete, failed the screening
    await listen(study, 5); // in progress, never screened
    await listen(study, 0); // started only
    const dash = await call(`${server.url}/api/studio/studies/${study}/dashboard`, { token: analyst });
    expect(dash.status, dash.text).toBe(200);
    const d = dash.body;
    const db = server.app.db;
    const one = (sql: string) => (db.prepare(sql).get(study) as { n: number }).n;
    expect(d.listeners.started).toBe(one('SELECT count(*) AS n FROM listeners WHERE study_id = ?'));
    expect(d.listeners.started).toBe(4);
    expect(d.listeners.completed).toBe(one('SELECT count(*) AS n FROM listeners WHERE study_id = ? AND completed_at IS NOT NULL'));
    expect(d.listeners.completed).toBe(2);
    expect(d.listeners.voted).toBe(one('SELECT count(DISTINCT v.listener_id) AS n FROM votes v JOIN listeners l ON l.id = v.listener_id WHERE l.study_id = ?'));
    expect(d.votes.total).toBe(one('SELECT count(*) AS n FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ?'));
    expect(d.votes.total).toBe(37); // 16 + 16 + 5
    const perItem = db.prepare('SELECT i.seq, count(v.id) AS votes FROM items i LEFT JOIN votes v ON v.item_id = i.id WHERE i.study_id = ? GROUP BY i.id ORDER BY i.seq').all(study);
    expect(d.votes.perItem.map(({ seq, votes }: any) => ({ seq, votes }))).toEqual(perItem);
    expect(d.completionMinutes).toHaveLength(2);
    const attention = db.prepare("SELECT count(*) AS answered, coalesce(sum(v.chosen = i.expected), 0) AS correct FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ? AND i.kind = 'attention'").get(study) as any;
    expect(d.attention).toMatchObject(attention);
    expect(d.screening).toEqual({ kind: 'antiphase', passed: 1, failed: 1, notRun: 2 });
    expect(d.attention.passRate).toBe(1);
    // The failed screening excludes one listener; the unscreened voter's screening is "not run", not a failure.
    expect(d.listeners).toMatchObject({ voted: 3, retained: 2, excluded: 1, excludedByReason: { screening: 1 } });
    expect(d.listeners.notRunByReason.screening).toBe(1);
    expect(d.listeners.rules.map((r: { reason: string }) => r.reason)).toEqual(['attention', 'screening']);
    expect(d.reliability.votes).toBeGreaterThan(0);
    expect(d.judges.length).toBeGreaterThan(0);
    for (const j of d.judges) expect(j.items).toBeGreaterThan(0);

    const report = await call(`${server.url}/api/reports/${study}`, { token: analyst });
    expect(report.body.listeners.total).toBe(d.listeners.voted);
    expect(report.body.reliability.krippendorff_alpha).toBe(d.reliability.krippendorffAlpha);
  });

  it('serves the HTML report through a single-use link, with a CSP that lets only its inline CSS in', async () => {
    const link = await api(`/api/reports/${study}/html-link`, { method: 'POST' });
    const page = await fetch(`${server.url}${link.body.url}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; style-src 'unsafe-inline'/);
    // a document under /api/: a page's headers
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    const text = await page.text();
    expect(text).toMatch(/Krippendorff/);
    // The header names the study, the moment of the figures and the rules with their thresholds.
    expect(text).toMatch(new RegExp(`<p data-header="study">Study: <b>[^<]+ \\(${study}\\)</b>\\. Exported \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\\.</p>`));
    expect(text).toContain('<p data-header="rules">Exclusion rules in force: attention checks ≥ 75% right; headphone screening passed.</p>');
    expect((await fetch(`${server.url}${link.body.url}`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/reports/${study}/html?ticket=forged`)).status).toBe(401);
  });

  it('refuses edits that would change voted items (409, offering a clone), applies wording edits, and clones', async () => {
    const before = (await api(`/api/studio/studies/${study}`)).body.yaml as string;
    const locked = await api(`/api/studio/studies/${study}/definition`, { method: 'PUT', body: { yaml: before.replace('seed: 2026', 'seed: 7') } });
    expect(locked.status, locked.text).toBe(409);
    expect(locked.body).toMatchObject({ error: 'study_locked', message: expect.stringMatching(/already has \d+ votes.*Clone it/) });
    expect((await api(`/api/studio/studies/${study}`)).body.yaml).toBe(before);
    const rebuild = await api(`/api/studio/studies/${study}/build`, { method: 'POST' });
    expect(rebuild.body.action).toBe('unchanged');

    const reworded = before.replace('title: Which caption describes how the voice speaks? (demo)', 'title: Reworded title');
    const saved = await api(`/api/studio/studies/${study}/definition`, { method: 'PUT', body: { yaml: reworded } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.title).toBe('Reworded title');
    expect((await call(`${server.url}/api/studies/${study}/intro`)).body.title).toBe('Reworded title');

    const clone = await api(`/api/studio/studies/${study}/clone`, { body: { name: `${study}-v2` } });
    expect(clone.status).toBe(201);
    expect(clone.body).toMatchObject({ built: false, editable: true, files: { captions: expect.arrayContaining(['lyra.json']) } });
    const edited = await api(`/api/studio/studies/${study}-v2/definition`, { method: 'PUT', body: { yaml: before.replace('count: 12', 'count: 10').replace('minPerSystem: 4', 'minPerSystem: 3') } });
    expect(edited.status, edited.text).toBe(200);
    expect((await api(`/api/studio/studies/${study}-v2/build`, { method: 'POST' })).body.items.pair).toBe(10);
    expect((await api(`/api/studio/studies/${study}/clone`, { body: { name: `${study}-v2` } })).status).toBe(409);
  });

  it('pauses and closes; a closed study stays closed', async () => {
    expect((await api(`/api/studio/studies/${study}/pause`, { method: 'POST' })).body.status).toBe('paused');
    expect((await api(`/api/studio/studies/${study}/close`, { method: 'POST' })).body.status).toBe('closed');
    const reopen = await api(`/api/studio/studies/${study}/open`, { method: 'POST' });
    expect(reopen.status).toBe(409);
    expect(reopen.body.message).toMatch(/closed study stays closed/);
    expect((await api(`/api/studio/studies/nope/open`, { method: 'POST' })).status).toBe(404);
    expect((await api(`/api/studio/studies/${study}/explode`, { method: 'POST' })).status).toBe(400);
  });

  it('exports with `npm run study -- export` and the bundle analyses like the live report', async () => {
    const out = mkdtempSync(join(tmpdir(), 'earmark-export-'));
    try {
      const run = spawnSync('npm', ['run', '--silent', 'study', '--', 'export', study, out, '--data', server.dataDir], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const bundle = await readBundle(out);
      const votes = server.app.db.prepare("SELECT count(*) AS n FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ? AND i.kind != 'practice'").get(study) as { n: number };
      expect(bundle.votes.length).toBe(votes.n);
      const report = analyze(bundle);
      expect(report.listeners.total).toBe((await api(`/api/reports/${study}`)).body.listeners.total);
      expect(report.reliability.krippendorff_alpha).not.toBeNull();
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

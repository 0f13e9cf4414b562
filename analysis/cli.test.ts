import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './cli.test-support';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'earmark-cli-'));
  const sim = await cli('simulate-cli.ts', ['--systems', '14', '--items', '100', '--listeners', '15', '--careless', '2', '--attention', '8', '--seed', '2', '--out', join(dir, 'bundle')]);
  expect(sim.code).toBe(0);
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('analyze CLI', () => {
  it('writes the JSON report of a simulated study', async () => {
    const out = join(dir, 'report.json');
    const r = await cli('cli.ts', [join(dir, 'bundle'), '--format', 'json', '--out', out, '--bootstrap', '20', '--seed', '4']);
    expect(r.code).toBe(0);
    const report = JSON.parse(await readFile(out, 'utf8'));
    expect(report.listeners.total).toBe(15);
    expect(report.listeners.excluded_by_reason).toEqual({ attention: 2 });
    expect(report.reliability.votes).toBe(1300);
    expect(report.judges.map((j: { judge: string }) => j.judge)).toEqual(['ensemble', 'judge-1', 'judge-2', 'judge-3']);
    expect(report.bradley_terry.systems).toHaveLength(14);
    expect(report.bootstrap.resamples).toBe(20);
  });

  it('writes one CSV per section and an HTML page', async () => {
    const csvDir = join(dir, 'csv');
    expect((await cli('cli.ts', [join(dir, 'bundle'), '--format', 'csv', '--out', csvDir])).code).toBe(0);
    expect((await readdir(csvDir)).sort()).toEqual(['bradley_terry.csv', 'buckets.csv', 'calibration.csv', 'calibration_bins.csv', 'excluded.csv',
      'excluded_by_reason.csv', 'item_votes.csv', 'judges.csv', 'listener_quality.csv', 'listeners.csv', 'ranking.csv', 'reliability.csv', 'system_means.csv']);
    expect((await readFile(join(csvDir, 'bradley_terry.csv'), 'utf8')).split('\r\n')).toHaveLength(16);
    const html = join(dir, 'r.html');
    expect((await cli('cli.ts', [join(dir, 'bundle'), '--format', 'html', '--out', html, '--buckets', '4'])).code).toBe(0);
    expect(await readFile(html, 'utf8')).toContain('B4');
  });

  it('analyses a bundle without judge_scores.csv, the HTML saying the judge sections are left out', async () => {
    const judgeless = join(dir, 'judgeless');
    await cp(join(dir, 'bundle'), judgeless, { recursive: true });
    await rm(join(judgeless, 'judge_scores.csv'));
    const r = await cli('cli.ts', [judgeless, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.judges).toEqual([]);
    expect(report.reliability.votes).toBe(1300);
    expect(report.bradley_terry.systems).toHaveLength(14);
    const html = join(dir, 'judgeless.html');
    expect((await cli('cli.ts', [judgeless, '--format', 'html', '--out', html])).code).toBe(0);
    const page = await readFile(html, 'utf8');
    expect(page).toContain('This bundle has no judge scores (judge_scores.csv is absent or empty), so the sections comparing a judge with the listeners are left out.');
    expect(page).not.toContain('Does the judge prefer what the human majority prefers?');
  });

  it('validates flags and refuses bad bundles naming file, line and column', async () => {
    const bad = await cli('cli.ts', [join(dir, 'bundle'), '--min-attention', '1.5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--min-attention');
    expect((await cli('cli.ts', [join(dir, 'bundle'), '--format', 'xml'])).stderr).toContain('--format');
    const votes = join(dir, 'bundle', 'votes.csv');
    const original = await readFile(votes, 'utf8');
    await writeFile(votes, original + 'item-001,L99,a,maybe,1\r\n');
    try {
      const refused = await cli('cli.ts', [join(dir, 'bundle')]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('votes.csv line 1622, column 4 (chosen)');
      const skipped = await cli('cli.ts', [join(dir, 'bundle'), '--skip-invalid']);
      expect(skipped.code).toBe(0);
      expect(JSON.parse(skipped.stdout).input).toEqual({ skipped_rows: 1, skipped_by_reason: { 'votes.csv: invalid chosen': 1 } });
    } finally {
      await writeFile(votes, original);
    }
  });
});

describe('analyze CLI on a rating study', () => {
  let ratingDir: string;
  beforeAll(async () => {
    ratingDir = await mkdtemp(join(tmpdir(), 'earmark-ratings-cli-'));
    const sim = await cli('simulate-cli.ts', ['--kind', 'rating', '--systems', '5', '--items', '150', '--listeners', '12', '--careless', '2',
      '--attention', '0', '--seed', '3', '--out', join(ratingDir, 'bundle')]);
    expect(sim.code).toBe(0);
    expect(sim.stdout).toContain('1800 ratings');
  });
  afterAll(async () => rm(ratingDir, { recursive: true, force: true }));

  it('excludes careless raters by --min-listener-correlation and reports MOS with both intervals', async () => {
    const truth = JSON.parse(await readFile(join(ratingDir, 'bundle', 'truth.json'), 'utf8'));
    const r = await cli('cli.ts', [join(ratingDir, 'bundle'), '--rating-scale', '1,5', '--min-listener-correlation', '0.3', '--bootstrap', '200', '--seed', '2']);
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
    const csvDir = join(ratingDir, 'csv');
    expect((await cli('cli.ts', [join(ratingDir, 'bundle'), '--format', 'csv', '--out', csvDir])).code).toBe(0);
    const files = await readdir(csvDir);
    for (const f of ['ratings.csv', 'ratings_summary.csv', 'listener_correlation.csv', 'rating_items.csv', 'rating_spread.csv', 'listener_quality.csv']) expect(files).toContain(f);
    expect(files).not.toContain('item_votes.csv'); // no pair table in a rating report
    const spread = (await readFile(join(csvDir, 'rating_spread.csv'), 'utf8')).split('\r\n');
    expect(spread[0]).toBe('system,n,score_1,score_2,score_3,score_4,score_5,median,q1,q3');
    expect(spread).toHaveLength(1 + 5 + 1);
    const quality = (await readFile(join(csvDir, 'listener_quality.csv'), 'utf8')).split('\r\n');
    expect(quality[0]).toBe('listener_id,retained,reasons,answers,attention_answered,attention_correct,attention_score,median_response_ms,panel_r,panel_n,panel_r_ci95_lo,panel_r_ci95_hi,flags');
    const ratings = (await readFile(join(csvDir, 'ratings.csv'), 'utf8')).split('\r\n');
    expect(ratings[0]).toBe('system,n,mos,sd,ci95_lo,ci95_hi,ci95_bootstrap_lo,ci95_bootstrap_hi,rank,rank_ci');
    expect(ratings).toHaveLength(1 + 5 + 1);
    expect((await readFile(join(csvDir, 'listener_correlation.csv'), 'utf8')).split('\r\n')).toHaveLength(1 + 12 + 1);
    const html = join(ratingDir, 'r.html');
    expect((await cli('cli.ts', [join(ratingDir, 'bundle'), '--format', 'html', '--out', html, '--bootstrap', '50'])).code).toBe(0);
    const page = await readFile(html, 'utf8');
    expect(page).toContain('How good is each system?');
    expect(page).toContain('listener bootstrap');
    expect(page).not.toContain('Do listeners agree? (reliability)'); // no pair votes
  });

  it('takes the rating scale and the correlation rule from study.json, flags overriding it', async () => {
    const withStudy = join(ratingDir, 'with-study');
    await cp(join(ratingDir, 'bundle'), withStudy, { recursive: true });
    const study = {
      study: 'mos-pilot', exportedAt: '2026-01-31T12:00:00.000Z', minAttention: 0.75, splitThreshold: 0.75,
      rules: { correlation: { minListenerCorrelation: 0.3 } }, linkParameters: [], ratingScale: [1, 5],
    };
    await writeFile(join(withStudy, 'study.json'), JSON.stringify(study));
    const fromStudy = await cli('cli.ts', [withStudy]);
    expect(fromStudy.code).toBe(0);
    expect(fromStudy.stderr).not.toContain('no study.json');
    const fromFlags = await cli('cli.ts', [join(ratingDir, 'bundle'), '--rating-scale', '1,5', '--min-listener-correlation', '0.3']);
    expect(JSON.parse(fromStudy.stdout)).toEqual(JSON.parse(fromFlags.stdout));
    expect(JSON.parse(fromStudy.stdout).listeners.excluded_by_reason).toEqual({ listener_correlation: 2 });
    expect(JSON.parse((await cli('cli.ts', [withStudy, '--min-listener-correlation=-1'])).stdout).listeners.excluded).toEqual([]);
    await writeFile(join(withStudy, 'study.json'), JSON.stringify({ ...study, ratingScale: [2, 5] }));
    const refused = await cli('cli.ts', [withStudy]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/ratings\.csv line \d+, column 5 \(score\): 1 is outside the study's scale 2–5/);
    expect((await cli('cli.ts', [withStudy, '--rating-scale', '1,5'])).code).toBe(0);
  });

  it('heads the HTML report with the study, its export time and every rule in force with its threshold', async () => {
    const headed = join(ratingDir, 'headed');
    await cp(join(ratingDir, 'bundle'), headed, { recursive: true });
    await writeFile(join(headed, 'study.json'), JSON.stringify({
      study: 'mos-pilot', title: 'Voice MOS <pilot>', exportedAt: '2026-01-31T12:00:00.000Z', minAttention: 0.8, splitThreshold: 0.75,
      rules: { correlation: { minListenerCorrelation: 0.3 }, fast: { minMedianResponseMs: 900 } }, linkParameters: [], ratingScale: [1, 5],
    }));
    const html = join(ratingDir, 'headed.html');
    expect((await cli('cli.ts', [headed, '--format', 'html', '--out', html])).code).toBe(0);
    const page = await readFile(html, 'utf8');
    expect(page).toContain('<title>Voice MOS &lt;pilot&gt; · Earmark study report</title>');
    expect(page).toContain('<p data-header="study">Study: <b>Voice MOS &lt;pilot&gt; (mos-pilot)</b>. Exported 2026-01-31 12:00:00 UTC.</p>');
    expect(page).toContain(
      '<p data-header="rules">Exclusion rules in force: attention checks ≥ 80% right; median response ≥ 900 ms; ratings correlate with the panel&#x27;s mean at r ≥ 0.3.</p>');
  });

  it('validates the rating flags and refuses scores off the scale naming file, line and column', async () => {
    expect((await cli('cli.ts', [join(ratingDir, 'bundle'), '--rating-scale', '5,1'])).stderr).toContain('--rating-scale');
    expect((await cli('cli.ts', [join(ratingDir, 'bundle'), '--min-listener-correlation', '2'])).stderr).toContain('--min-listener-correlation');
    const refused = await cli('cli.ts', [join(ratingDir, 'bundle'), '--rating-scale', '2,5']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/ratings\.csv line \d+, column 5 \(score\): 1 is outside the study's scale 2–5/);
    const ratings = join(ratingDir, 'bundle', 'ratings.csv');
    const original = await readFile(ratings, 'utf8');
    await writeFile(ratings, original + 'item-001,L99,tts-02,utt-01,4\r\n');
    try {
      const wrongSystem = await cli('cli.ts', [join(ratingDir, 'bundle')]);
      expect(wrongSystem.code).toBe(1);
      expect(wrongSystem.stderr).toContain('ratings.csv line 1802, column 3 (system)');
    } finally {
      await writeFile(ratings, original);
    }
  });
});

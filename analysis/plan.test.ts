/**
 * The frozen analysis plan as the report reads it: a study.json whose plan matches the analysis
 * shows its hash and no deviation; a rule changed after the first vote with its time and reason
 * is listed as recorded; a change nobody recorded (study.json edited, or a flag) is listed as
 * found; a plan whose settings no longer hash to its hash is reported as such (JSON, HTML page,
 * methods.md, CLI warning), never taken silently.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildBundle, writeBundle } from './bundle';
import { renderReportHtml } from './html';
import { paperFiles } from './paper/index';
import { canonicalJson, planHash, type PlanSettings, type StudyPlan } from './plan';
import { simulate } from './simulate';
import { analyzeStudy, reportHeader, resolveSettings, type AnalysisSettings, type StudySettings } from './study-settings';

const sim = simulate({ systems: 4, items: 24, listeners: 8, careless: 1, attention: 4, seed: 5 });
const FROZEN: PlanSettings = { minAttention: 0.75, splitThreshold: 0.75, rules: {}, buckets: 5, btPrior: 0, bootstrap: null, orientation: 'as listed' };
const frozen = (settings: PlanSettings = FROZEN, deviations: StudyPlan['deviations'] = []): StudyPlan => ({ hash: planHash(settings), frozenAt: '2026-12-01T09:00:00.000Z', settings, deviations });
const study = (plan: StudyPlan, over: Partial<StudySettings> = {}): StudySettings => ({
  study: 'planned', exportedAt: '2026-12-03T12:00:00.000Z', minAttention: 0.75, splitThreshold: 0.75, rules: {}, linkParameters: [], orientation: 'as listed', plan, ...over,
});

function run(s: StudySettings, flags: Partial<AnalysisSettings> = {}) {
  const bundle = buildBundle({ ...sim, study: s });
  const settings = resolveSettings(bundle.study, flags);
  const report = analyzeStudy(bundle, settings, { buckets: 5 });
  const header = reportHeader(bundle, settings);
  const methods = Object.fromEntries(paperFiles(bundle, report, header, settings, { buckets: 5, btPrior: 0, bootstrap: null }))['methods.md'];
  return { report, html: renderReportHtml(report, header), methods };
}

describe('the frozen analysis plan', () => {
  it('hashes the canonical JSON of its settings (key order does not matter)', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}');
    expect(planHash({ splitThreshold: 0.75, minAttention: 0.75 })).toBe(planHash({ minAttention: 0.75, splitThreshold: 0.75 }));
    expect(planHash(FROZEN)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(planHash({ ...FROZEN, minAttention: 0.5 })).not.toBe(planHash(FROZEN));
  });

  it('a study analysed as planned: the hash in the report, the page and methods.md, no deviation', () => {
    const { report, html, methods } = run(study(frozen()));
    expect(report.plan).toEqual({ hash: planHash(FROZEN), computed_hash: planHash(FROZEN), hash_matches: true, frozen_at: '2026-12-01T09:00:00.000Z', deviations: [] });
    expect(html).toContain(`<code>${planHash(FROZEN)}</code>`);
    expect(html).toContain('No deviations.');
    expect(methods).toContain(`- Frozen 2026-12-01T09:00:00.000Z, hash \`${planHash(FROZEN)}\`.`);
  });

  it('a rule changed after the first vote, recorded with its time and reason, is a recorded deviation', () => {
    const change = { at: '2026-12-02T10:00:00.000Z', reason: 'the attention checks were harder than piloted', field: 'minAttention', from: 0.75, to: 0.5 };
    const { report, html, methods } = run(study(frozen(FROZEN, [change]), { minAttention: 0.5 }));
    expect(report.plan!.hash_matches).toBe(true);
    expect(report.plan!.deviations).toEqual([{ field: 'minAttention', planned: 0.75, applied: 0.5, recorded: true, at: change.at, reason: change.reason }]);
    expect(html).toContain('minAttention: 0.75 → 0.5; recorded 2026-12-02 10:00:00 UTC: the attention checks were harder than piloted');
    expect(methods).toContain('  - minAttention: `0.75` → `0.5`; recorded 2026-12-02T10:00:00.000Z: the attention checks were harder than piloted');
  });

  it('a change nobody recorded — study.json edited, or a flag — is found and listed as not recorded', () => {
    const fast = { fast: { minMedianResponseMs: 800 } };
    const { report, html } = run(study(frozen(), { rules: fast }), { splitThreshold: 0.8 });
    expect(report.plan!.deviations).toEqual([
      { field: 'splitThreshold', planned: 0.75, applied: 0.8, recorded: false, at: null, reason: null },
      { field: 'rules', planned: {}, applied: fast, recorded: false, at: null, reason: null },
    ]);
    expect(html).toContain('splitThreshold: 0.75 → 0.8; not recorded in the plan');
    expect(html).toContain('Deviations (2):');
  });

  it('a plan whose settings no longer match its hash is reported as such', async () => {
    const tampered = { ...frozen(), settings: { ...FROZEN, minAttention: 0.5 } };
    const s = study(tampered, { minAttention: 0.5 });
    const { report, html, methods } = run(s);
    expect(report.plan!.hash_matches).toBe(false);
    expect(report.plan!.computed_hash).toBe(planHash({ ...FROZEN, minAttention: 0.5 }));
    expect(html).toContain('does NOT match its settings');
    expect(methods).toContain('**does not match its settings**');
    const dir = await mkdtemp(join(tmpdir(), 'earmark-plan-'));
    try {
      await writeBundle(dir, { ...sim, study: s });
      const r = await promisify(execFile)(join(process.cwd(), 'node_modules/.bin/tsx'), [join('analysis', 'cli.ts'), dir, '--format', 'json']);
      expect(r.stderr).toContain(`warning: the analysis plan's hash ${tampered.hash} does not match its settings`);
      expect(JSON.parse(r.stdout).plan.hash_matches).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a report without a plan has none', () => {
    const bundle = buildBundle({ ...sim, study: { ...study(frozen()), plan: undefined } });
    expect(analyzeStudy(bundle, resolveSettings(bundle.study)).plan).toBeUndefined();
  });
});


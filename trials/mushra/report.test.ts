/**
 * MUSHRA's analysis (analysis-spec §5.3): `npm run simulate -- --kind mushra` from known truth, then
 * `npm run analyze` (the compiled commands, as a user runs them) recovers the truth's order of the
 * systems and excludes the listener who scores the hidden reference low; the post-screening's
 * fractions, exempt items and box plot figures on small cases worked by hand; bad rows refused.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Bundle, BundleItem } from '../../analysis/bundle';
import type { KindAnswer } from '../../analysis/kinds/types';
import { mushraAnalysis, mushraScreening, mushraSection, type MushraRow, type MushraSection } from './report';

const root = fileURLToPath(new URL('../..', import.meta.url));
const earmark = (...args: string[]) => spawnSync(process.execPath, [join(root, 'bin', 'earmark.mjs'), ...args], { cwd: root, encoding: 'utf8' });
const dir = mkdtempSync(join(tmpdir(), 'earmark-mushra-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run simulate -- --kind mushra → npm run analyze', () => {
  it('recovers the truth’s order of the systems, with the anchors below and the hidden reference on top, and excludes the listener who scores the hidden reference low', () => {
    const bundle = join(dir, 'bundle');
    const simulated = earmark('simulate', '--kind', 'mushra', '--systems', '5', '--items', '12', '--listeners', '12', '--miss-reference', '1', '--seed', '7', '--out', bundle);
    expect(simulated.status, simulated.stderr).toBe(0);
    expect(simulated.stdout).toMatch(/12 MUSHRA pages, 1152 scores/);
    const truth = JSON.parse(readFileSync(join(bundle, 'truth.json'), 'utf8')) as { scores: Record<string, number>; missesReference: string[] };
    const out = join(dir, 'report.json');
    const analyzed = earmark('analyze', bundle, '--out', out);
    expect(analyzed.status, analyzed.stderr).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    const section = report.mushra as MushraSection;
    expect(section.items).toBe(12);
    expect(section.listeners).toBe(11);
    expect(section.screening.excluded.map((e) => e.listener_id)).toEqual(truth.missesReference);
    expect(section.screening.excluded[0].reference_below_90).toBeGreaterThan(0.15);
    expect(report.listeners.excluded.map((e: { listener_id: string; reason: string }) => [e.listener_id, e.reason])).toEqual([[truth.missesReference[0], 'mushra']]);
    const conditions = section.systems.filter((s) => s.role === 'condition');
    const byTruth = Object.entries(truth.scores).sort((a, b) => b[1] - a[1]).map(([s]) => s);
    expect(conditions.map((s) => s.system)).toEqual(byTruth);
    expect(conditions.map((s) => s.rank)).toEqual([1, 2, 3, 4, 5]);
    for (const s of conditions) {
      expect(Math.abs(s.mean! - truth.scores[s.system]), s.system).toBeLessThan(5);
      expect(s.ci95![0]).toBeLessThan(s.mean!);
      expect(s.iqr![0]).toBeLessThanOrEqual(s.median!);
      expect(s.whiskers![0]).toBeLessThanOrEqual(s.iqr![0]);
    }
    expect(section.systems[0]).toMatchObject({ system: 'reference', role: 'reference', rank: null });
    expect(section.systems.at(-1)).toMatchObject({ system: 'anchor35', role: 'anchor35' });
    const csv = join(dir, 'csv');
    expect(earmark('analyze', bundle, '--format', 'csv', '--out', csv).status).toBe(0);
    expect(readFileSync(join(csv, 'mushra_systems.csv'), 'utf8').split(/\r?\n/)[0]).toBe('system,role,n,mean,sd,ci95_low,ci95_high,median,q1,q3,whisker_low,whisker_high,rank,rank_ci');
    expect(readFileSync(join(csv, 'mushra_screening.csv'), 'utf8')).toMatch(new RegExp(`^listener_id,reference_below_90,anchor70_above_90\\r?\\n${truth.missesReference[0]},1,`));
  }, 120_000);
});

describe('BS.1534-3 post-screening and the section, by hand', () => {
  const items: BundleItem[] = Array.from({ length: 10 }, (_, i) => ({ kind: 'mushra', item_id: `i${i}`, utterance_id: `u${i}`, system_a: 'ref', system_b: '', attention: false, expected: null }));
  const page = (reference: number, anchor70: number, sys: number): MushraRow[] => [
    { system: 'ref', role: 'reference', score: reference },
    { system: 'anchor70', role: 'anchor70', score: anchor70 },
    { system: 'sys', role: 'condition', score: sys },
  ];
  // L0: reference below 90 on 2 of 10 items (20 % > 15 %); L1: on 1 of 10 (10 %, kept);
  // L2: anchor70 above 90 on 2 of the 9 non-exempt items (22 %); item i9 exempt: 2 of 4 listeners (50 % > 25 %) scored its anchor70 above 90.
  const answers: KindAnswer<MushraRow>[] = [];
  for (let l = 0; l < 4; l++) {
    items.forEach((_, i) => {
      const reference = (l === 0 && i < 2) || (l === 1 && i === 0) ? 80 : 100;
      const anchor70 = (l === 2 && (i < 2 || i === 9)) || (l === 3 && i === 9) ? 95 : 40;
      answers.push({ item: i, listener: l, rows: page(reference, anchor70, 50 + l), line: answers.length + 2 });
    });
  }
  const bundle = { items, listeners: ['L0', 'L1', 'L2', 'L3'], stimuli: null, study: null } as unknown as Bundle;

  it('gives each listener the two fractions and exempts the item most listeners scored anchor70 above 90', () => {
    const s = mushraScreening(bundle, answers);
    expect([...s.exempt]).toEqual(['i9']);
    expect(s.listeners.get('L0')).toEqual({ listener_id: 'L0', reference_below_90: 0.2, anchor70_above_90: 0 });
    expect(s.listeners.get('L1')).toEqual({ listener_id: 'L1', reference_below_90: 0.1, anchor70_above_90: 0 });
    expect(s.listeners.get('L2')).toEqual({ listener_id: 'L2', reference_below_90: 0, anchor70_above_90: 2 / 9 });
    const rule = mushraAnalysis.rules!(bundle, answers, null)[0];
    expect(['L0', 'L1', 'L2', 'L3'].map((id) => rule.evaluate(id).outcome)).toEqual(['fail', 'pass', 'fail', 'pass']);
    expect(mushraAnalysis.rules!(bundle, answers, { trial: { kind: 'mushra', excludeMushraScreening: false } } as never)).toEqual([]);
  });

  it('reports mean, t interval, R type 7 quartiles and Tukey whiskers of retained listeners', () => {
    const section = mushraSection(bundle, answers, Uint8Array.from([0, 1, 0, 1]));
    expect(section.screening.excluded.map((e) => e.listener_id)).toEqual(['L0', 'L2']);
    expect(section.listeners).toBe(2);
    const sys = section.systems.find((s) => s.system === 'sys')!;
    // Scores 51 ×10 and 53 ×10: mean 52, quartiles 51 and 53, whiskers 51 and 53.
    expect(sys).toMatchObject({ n: 20, mean: 52, median: 52, iqr: [51, 53], whiskers: [51, 53], rank: 1, rank_ci: 1 });
    expect(sys.ci95![1] - 52).toBeCloseTo((2.093 * Math.sqrt(20 / 19)) / Math.sqrt(20), 2);
  });

  it('refuses bad rows naming the file, line and column', () => {
    const item = items[0];
    const row = { item_id: 'i0', listener_id: 'L', system: 'ref', role: 'reference', score: '100' };
    expect(String(mushraAnalysis.row({ ...row, score: '101' }, item, 5))).toMatch(/mushra\.csv line 5, column score: must be an integer from 0 to 100/);
    expect(String(mushraAnalysis.row({ ...row, role: 'hidden' }, item, 6))).toMatch(/line 6, column role: must be one of reference, anchor35, anchor70, condition/);
    expect(String(mushraAnalysis.row({ ...row, system: 'other' }, item, 7))).toMatch(/line 7, column system: must be the item's reference \(ref/);
    expect(String(mushraAnalysis.row({ ...row, role: 'anchor35', system: 'x' }, item, 8))).toMatch(/line 8, column system: must be anchor35 for role anchor35/);
    expect(String(mushraAnalysis.item({ item_id: 'c', utterance_id: 'u', system_a: 'ref', system_b: '', attention: '1', expected: '' }, 9))).toMatch(/items\.csv line 9, column 5 \(attention\): a MUSHRA item has no attention check/);
  });
});

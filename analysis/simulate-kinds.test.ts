/**
 * `npm run simulate -- --kind abx|ccr` then `npm run analyze` (both CLIs, real files): the report
 * reads abx.csv / ccr.csv and recovers the truth. ABX: every pair's d′ is positive, the pairs rank
 * by d′ as by their true distance, and the systems' order along the line (the farthest pair holds
 * its ends; the rest sort by d′ from the first end) is the truth's. CCR: the systems rank by CMOS
 * as by their true CMOS, and the order effect section shows the simulated recency pull (> 0).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const run = promisify(execFile);
const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
const dir = mkdtempSync(join(tmpdir(), 'earmark-simulate-kinds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function simulateAndAnalyze(kind: string, args: string[]) {
  const bundle = join(dir, kind);
  await run(tsx, ['analysis/simulate-cli.ts', '--kind', kind, ...args, '--out', bundle]);
  const out = join(dir, `${kind}.json`);
  await run(tsx, ['analysis/cli.ts', bundle, '--format', 'json', '--out', out]);
  return { report: JSON.parse(readFileSync(out, 'utf8')), truth: JSON.parse(readFileSync(join(bundle, 'truth.json'), 'utf8')) };
}

const byValue = (values: Record<string, number>) => Object.keys(values).sort((a, b) => values[b] - values[a]);

it('ABX: simulate → analyze recovers the systems’ order from the pairs’ d′, every d′ positive', async () => {
  const { report, truth } = await simulateAndAnalyze('abx', ['--systems', '3', '--items', '90', '--listeners', '12', '--attention', '3', '--seed', '1']);
  const pairs = report.abx.pairs as { system_a: string; system_b: string; n: number; d_prime_independent: number }[];
  const dPrime = Object.fromEntries(pairs.map((p) => [`${p.system_a}|${p.system_b}`, p.d_prime_independent]));
  expect(Object.keys(dPrime).sort()).toEqual(Object.keys(truth.dPrime).sort());
  // A truth whose distances are close could not be recovered; this seed's are ≥ 0.9 apart.
  const distances = Object.values(truth.dPrime as Record<string, number>).sort((a, b) => a - b);
  for (let i = 1; i < distances.length; i++) expect(distances[i] - distances[i - 1]).toBeGreaterThan(0.9);
  for (const p of pairs) {
    expect(p.n).toBeGreaterThan(0);
    expect(p.d_prime_independent).toBeGreaterThan(0);
  }
  expect(byValue(dPrime)).toEqual(byValue(truth.dPrime));
  const farthest = byValue(dPrime)[0].split('|');
  const start = farthest.find((s) => s === byValue(truth.theta)[0]) ?? farthest[0];
  const from = (s: string) => (s === start ? 0 : dPrime[[start, s].sort().join('|')]);
  const recovered = Object.keys(truth.theta).sort((a, b) => from(a) - from(b));
  expect(recovered).toEqual(byValue(truth.theta));
}, 60_000);

it('CCR: simulate → analyze ranks the systems by CMOS as the truth does and reports the order effect', async () => {
  const { report, truth } = await simulateAndAnalyze('ccr', ['--systems', '3', '--items', '90', '--listeners', '12', '--attention', '3', '--seed', '5', '--recency', '0.4']);
  // This seed's true CMOS are ≥ 0.8 apart, which 360 answers per system resolve.
  const truths = Object.values(truth.cmos as Record<string, number>).sort((a, b) => a - b);
  for (let i = 1; i < truths.length; i++) expect(truths[i] - truths[i - 1]).toBeGreaterThan(0.8);
  const systems = report.ccr.systems as { system: string; reference_system: string; cmos: number; rank: number }[];
  expect(systems.map((s) => s.system)).toEqual(byValue(truth.cmos));
  for (const s of systems) expect(s.cmos).toBeCloseTo(truth.cmos[s.system], 0);
  expect(systems.map((s) => s.rank)).toEqual([1, 2, 3]);
  expect(report.ccr).toHaveProperty('order_effect');
  expect(report.ccr.reference_first.n).toBeGreaterThan(0);
  expect(report.ccr.processed_first.n).toBeGreaterThan(0);
  expect(report.ccr.order_effect).toBeGreaterThan(0.3);
}, 60_000);

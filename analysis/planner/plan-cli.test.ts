import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli.test-support';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'earmark-plan-'));
  const sim = await cli('simulate-cli.ts', ['--systems', '8', '--items', '200', '--listeners', '20', '--careless', '2', '--attention', '10', '--ratings-per-item', '2', '--seed', '7', '--out', join(dir, 'pilot')]);
  expect(sim.code).toBe(0);
  const rating = await cli('simulate-cli.ts', ['--kind', 'rating', '--systems', '6', '--items', '300', '--listeners', '15', '--careless', '1', '--attention', '8', '--seed', '4', '--out', join(dir, 'rating')]);
  expect(rating.code).toBe(0);
}, 60_000);
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('plan CLI', () => {
  it('plans a pair study from a simulated pilot, as JSON', async () => {
    const r = await cli('plan-cli.ts', [join(dir, 'pilot'), '--target', 'bt-ci=0.3', '--design', 'itemsPerListener=30', '--seed', '2', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan.model.itemsPerListener).toBe(30);
    expect(plan.votes).toBe(plan.listeners * 30);
    expect(plan.predictedWidth).toBeLessThanOrEqual(0.3);
    expect(plan.listeners).toBeGreaterThan(10);
  }, 60_000);

  it('says why it cannot plan', async () => {
    const unknown = await cli('plan-cli.ts', [join(dir, 'pilot'), '--target', 'kappa=0.2']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown target statistic "kappa"/);
    const wrongKind = await cli('plan-cli.ts', [join(dir, 'pilot'), '--target', 'mos-ci=0.1']);
    expect(wrongKind.code).toBe(1);
    expect(wrongKind.stderr).toMatch(/pair \/ A\/B study: use bt-ci/);
    const unreachable = await cli('plan-cli.ts', [join(dir, 'pilot'), '--target', 'bt-ci=0.001', '--max-listeners', '50']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/not reached by 50 listeners/);
  }, 60_000);

  it('plans from a simulated pilot of listeners who differ in sensitivity; the spread is refused for other kinds', async () => {
    const spread = await cli('simulate-cli.ts', ['--systems', '8', '--items', '200', '--listeners', '20', '--careless', '2', '--attention', '10', '--ratings-per-item', '2', '--seed', '7', '--listener-spread', '0.4', '--out', join(dir, 'spread')]);
    expect(spread.code).toBe(0);
    const r = await cli('plan-cli.ts', [join(dir, 'spread'), '--target', 'bt-ci=0.3', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).predictedWidth).toBeLessThanOrEqual(0.3);
    const ab = await cli('simulate-cli.ts', ['--kind', 'ab', '--listener-spread', '0.4', '--out', join(dir, 'ab')]);
    expect(ab.code).toBe(2);
    expect(ab.stderr).toMatch(/--listener-spread: simulates caption-pair listeners only \(--kind pair\), not --kind ab/);
  }, 60_000);

  it('plans a rating study for mos-ci and refuses bt-ci on it', async () => {
    const r = await cli('plan-cli.ts', [join(dir, 'rating'), '--target', 'mos-ci=0.15', '--seed', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+ listeners, \d+ votes \(\d+ per listener, plus 8 attention checks each\)/);
    const width = Number(/predicted mean mos-ci half-width ([\d.]+)/.exec(r.stdout)?.[1]);
    expect(width).toBeGreaterThan(0.1);
    expect(width).toBeLessThanOrEqual(0.15);
    expect(r.stdout).toMatch(/listener bias SD/);
    const wrong = await cli('plan-cli.ts', [join(dir, 'rating'), '--target', 'bt-ci=0.3']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/no pair or A\/B items: use mos-ci/);
  }, 60_000);
});

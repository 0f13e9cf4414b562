import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BradleyTerryNotIdentifiedError, fitBradleyTerry } from './bradley-terry';

// Agresti, A. (2002). Categorical Data Analysis, 2nd ed., p. 438: 1987 American League East
// results (home/away combined, no home advantage), as distributed in the R package
// BradleyTerry2 (data set `baseball`). Published log-strengths relative to Baltimore:
// Boston 1.1077, Cleveland 0.6839, Detroit 1.4364, Milwaukee 1.5814, New York 1.2476,
// Toronto 1.2945.
const teams = ['Baltimore', 'Boston', 'Cleveland', 'Detroit', 'Milwaukee', 'New York', 'Toronto'];
const games: Array<[string, string, number, number]> = [
  ['Milwaukee', 'Detroit', 4, 3], ['Milwaukee', 'Toronto', 4, 2], ['Milwaukee', 'New York', 4, 3],
  ['Milwaukee', 'Boston', 6, 1], ['Milwaukee', 'Cleveland', 4, 2], ['Milwaukee', 'Baltimore', 6, 0],
  ['Detroit', 'Milwaukee', 3, 3], ['Detroit', 'Toronto', 4, 2], ['Detroit', 'New York', 4, 3],
  ['Detroit', 'Boston', 6, 0], ['Detroit', 'Cleveland', 6, 1], ['Detroit', 'Baltimore', 4, 3],
  ['Toronto', 'Milwaukee', 2, 5], ['Toronto', 'Detroit', 4, 3], ['Toronto', 'New York', 2, 4],
  ['Toronto', 'Boston', 4, 3], ['Toronto', 'Cleveland', 4, 2], ['Toronto', 'Baltimore', 6, 0],
  ['New York', 'Milwaukee', 3, 3], ['New York', 'Detroit', 5, 1], ['New York', 'Toronto', 2, 5],
  ['New York', 'Boston', 4, 3], ['New York', 'Cleveland', 4, 2], ['New York', 'Baltimore', 6, 1],
  ['Boston', 'Milwaukee', 5, 1], ['Boston', 'Detroit', 2, 5], ['Boston', 'Toronto', 3, 3],
  ['Boston', 'New York', 4, 2], ['Boston', 'Cleveland', 5, 2], ['Boston', 'Baltimore', 6, 0],
  ['Cleveland', 'Milwaukee', 2, 5], ['Cleveland', 'Detroit', 3, 3], ['Cleveland', 'Toronto', 3, 4],
  ['Cleveland', 'New York', 4, 3], ['Cleveland', 'Boston', 4, 2], ['Cleveland', 'Baltimore', 2, 4],
  ['Baltimore', 'Milwaukee', 2, 5], ['Baltimore', 'Detroit', 1, 5], ['Baltimore', 'Toronto', 1, 6],
  ['Baltimore', 'New York', 2, 4], ['Baltimore', 'Boston', 1, 6], ['Baltimore', 'Cleveland', 3, 4],
];
const published: Record<string, number> = {
  Boston: 1.1077, Cleveland: 0.6839, Detroit: 1.4364, Milwaukee: 1.5814, 'New York': 1.2476, Toronto: 1.2945,
};

function table(k: number, results: Array<[number, number, number]>): Float64Array {
  const w = new Float64Array(k * k);
  for (const [i, j, c] of results) w[i * k + j] += c;
  return w;
}

describe('fitBradleyTerry', () => {
  it('reproduces the published baseball fit (Agresti 2002) to 1e-4', () => {
    const k = teams.length;
    const idx = (t: string) => teams.indexOf(t);
    const wins = table(k, games.flatMap(([h, a, hw, aw]) => [[idx(h), idx(a), hw], [idx(a), idx(h), aw]] as Array<[number, number, number]>));
    const fit = fitBradleyTerry(wins, k);
    const base = fit.theta[0];
    for (const [team, value] of Object.entries(published)) {
      expect(Math.abs(fit.theta[idx(team)] - base - value)).toBeLessThan(1e-4);
    }
    expect(fit.method).toBe('mle');
  });

  it('matches the two-system closed form to 1e-6: θ1 − θ2 = log(a/b), SE(θ1) = ½√(1/a + 1/b)', () => {
    const a = 7;
    const b = 3;
    const fit = fitBradleyTerry(table(2, [[0, 1, a], [1, 0, b]]), 2);
    expect(Math.abs(fit.theta[0] - fit.theta[1] - Math.log(a / b))).toBeLessThan(1e-6);
    expect(Math.abs(fit.theta[0] - Math.log(a / b) / 2)).toBeLessThan(1e-6);
    expect(Math.abs(fit.se![0] - 0.5 * Math.sqrt(1 / a + 1 / b))).toBeLessThan(1e-6);
  });

  it('matches the ridge MAP closed form for two systems', () => {
    // Two systems, θ = (t, −t): ∂/∂t [a·log σ(2t) + b·log σ(−2t) − λt²] = 0 ⇒ 2a − 2(a+b)σ(2t) = 2λt.
    const a = 5;
    const b = 0;
    const lambda = 0.5;
    const fit = fitBradleyTerry(table(2, [[0, 1, a]]), 2, { lambda });
    const t = fit.theta[0];
    const s = 1 / (1 + Math.exp(-2 * t));
    expect(Math.abs(a - (a + b) * s - lambda * t)).toBeLessThan(1e-8);
    expect(fit.method).toBe('map');
  });

  it('names the systems that never lose when the graph is not strongly connected', () => {
    // A beats B and C; B and C trade wins; A never loses.
    const wins = table(3, [[0, 1, 3], [0, 2, 2], [1, 2, 1], [2, 1, 1]]);
    try {
      fitBradleyTerry(wins, 3, {}, ['oracle', 'sysB', 'sysC']);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(BradleyTerryNotIdentifiedError);
      expect((e as Error).message).toContain('{oracle} never lost');
      expect((e as BradleyTerryNotIdentifiedError).neverLose).toEqual([[0]]);
    }
  });

  const votes = fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })).filter(([i, j]) => i !== j), { minLength: 1, maxLength: 80 });
  it('log-strengths sum to 0 and do not depend on vote order', () => {
    fc.assert(fc.property(votes, fc.integer(), (v, seed) => {
      // a ridge prior keeps every random sample identified
      const fitOf = (list: Array<[number, number]>) => fitBradleyTerry(table(4, list.map(([i, j]) => [i, j, 1])), 4, { lambda: 0.1 });
      const shuffled = [...v].sort((x, y) => ((x[0] * 7 + x[1] * 13 + seed) % 5) - ((y[0] * 7 + y[1] * 13 + seed) % 5));
      const a = fitOf(v);
      const b = fitOf(shuffled);
      const sum = a.theta.reduce((s, t) => s + t, 0);
      return Math.abs(sum) < 1e-9 && a.theta.every((t, i) => Math.abs(t - b.theta[i]) < 1e-9);
    }));
  });

  it('CIs contain the estimate and SEs are positive', () => {
    fc.assert(fc.property(votes, (v) => {
      const fit = fitBradleyTerry(table(4, v.map(([i, j]) => [i, j, 1])), 4, { lambda: 0.1 });
      return fit.se!.every((s) => s > 0 && Number.isFinite(s));
    }));
  });
});

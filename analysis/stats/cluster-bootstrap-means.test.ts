import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normal, seededRandom } from '../random';
import { clusterBootstrapMeans } from './cluster-bootstrap-means';

describe('clusterBootstrapMeans', () => {
  it('with one score per cluster approaches mean ± 1.96 × plug-in SE (Efron & Tibshirani 1993, §5.2, §13.3)', () => {
    // For the mean of n i.i.d. values the ideal bootstrap SE is the plug-in SE
    // √(Σ(x − x̄)²/n)/√n, and for large n the percentile interval is x̄ ± 1.96 of it.
    const random = seededRandom(7);
    const x = Array.from({ length: 400 }, () => 3 + normal(random));
    const mean = x.reduce((a, b) => a + b, 0) / x.length;
    const plugInSe = Math.sqrt(x.reduce((a, v) => a + (v - mean) ** 2, 0) / x.length) / Math.sqrt(x.length);
    const [ci] = clusterBootstrapMeans(x, x.map(() => 1), x.length, 1, { resamples: 4000, seed: 3 });
    // Monte Carlo error of a 2.5% quantile with B = 4000 is about 4% of the half-width.
    const half = 1.959963984540054 * plugInSe;
    expect(Math.abs(ci![0] - (mean - half))).toBeLessThan(0.1 * half);
    expect(Math.abs(ci![1] - (mean + half))).toBeLessThan(0.1 * half);
  });

  it('keeps a cluster’s scores together: a listener bias widens the interval beyond the naive one', () => {
    // 10 listeners × 20 scores; listener biases dominate, so the cluster interval must be far
    // wider than one that treats the 200 scores as independent.
    const random = seededRandom(11);
    const sums: number[] = [];
    const counts: number[] = [];
    const all: number[] = [];
    for (let l = 0; l < 10; l++) {
      const bias = normal(random);
      let s = 0;
      for (let k = 0; k < 20; k++) {
        const v = 3 + bias + 0.2 * normal(random);
        s += v;
        all.push(v);
      }
      sums.push(s);
      counts.push(20);
    }
    const [cluster] = clusterBootstrapMeans(sums, counts, 10, 1, { resamples: 2000, seed: 1 });
    const [naive] = clusterBootstrapMeans(all, all.map(() => 1), all.length, 1, { resamples: 2000, seed: 1 });
    expect(cluster![1] - cluster![0]).toBeGreaterThan(3 * (naive![1] - naive![0]));
  });

  it('handles a single cluster, a group nobody scored, and is reproducible from its seed', () => {
    expect(clusterBootstrapMeans([12, 0], [3, 0], 1, 2, { resamples: 50, seed: 1 })).toEqual([[4, 4], null]);
    const a = clusterBootstrapMeans([1, 5, 9, 2], [1, 2, 3, 1], 2, 2, { resamples: 100, seed: 9 });
    expect(clusterBootstrapMeans([1, 5, 9, 2], [1, 2, 3, 1], 2, 2, { resamples: 100, seed: 9 })).toEqual(a);
  });

  const study = fc.integer({ min: 1, max: 8 }).chain((clusters) => fc.tuple(
    fc.constant(clusters),
    fc.array(fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 4 })), { minLength: clusters * 2, maxLength: clusters * 2 }),
  ));

  it('lies within the range of the clusters’ own means and shifts with the scores', () => {
    fc.assert(fc.property(study, fc.integer({ min: -3, max: 3 }), fc.nat(1000), ([clusters, cells], shift, seed) => {
      const counts = cells.map(([, n]) => n);
      const sums = cells.map(([score, n]) => score * n);
      const shifted = sums.map((s, i) => s + shift * counts[i]);
      const ci = clusterBootstrapMeans(sums, counts, clusters, 2, { resamples: 60, seed });
      const ciShifted = clusterBootstrapMeans(shifted, counts, clusters, 2, { resamples: 60, seed });
      return ci.every((interval, g) => {
        const means = Array.from({ length: clusters }, (_, c) => counts[c * 2 + g] > 0 ? sums[c * 2 + g] / counts[c * 2 + g] : null)
          .filter((m): m is number => m !== null);
        if (!interval) return ciShifted[g] === null;
        return interval[0] >= Math.min(...means) - 1e-9 && interval[1] <= Math.max(...means) + 1e-9 && interval[0] <= interval[1] &&
          Math.abs(ciShifted[g]![0] - interval[0] - shift) < 1e-9 && Math.abs(ciShifted[g]![1] - interval[1] - shift) < 1e-9;
      });
    }));
  });
});

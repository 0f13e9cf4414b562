import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gammaln } from 'simple-statistics';
import { binomialTest } from './binomial-test';

describe('binomialTest (two-sided, scipy.stats.binomtest rule)', () => {
  it('11 of 15 at p = 0.5 → 0.1185 (issue 3; scipy.stats.binomtest(11, 15).pvalue = 0.118469…)', () => {
    expect(binomialTest(11, 15, 0.5)).toBeCloseTo(0.11846923828125, 12);
  });

  it('matches exact sums for symmetric and extreme cases', () => {
    // 0 or 5 successes of 5 at 0.5: P = 2/32.
    expect(binomialTest(0, 5)).toBeCloseTo(0.0625, 14);
    expect(binomialTest(5, 5)).toBeCloseTo(0.0625, 14);
    // k at the mean → 1.
    expect(binomialTest(5, 10)).toBe(1);
    // 3 of 15 at p = 0.1 (asymmetric; the scipy.stats.binomtest documentation example):
    // P(0), P(1), P(2) all exceed P(3), so only the upper tail counts: 0.18406106910639114.
    const pmf = (i: number) => comb(15, i) * 0.1 ** i * 0.9 ** (15 - i);
    expect(binomialTest(3, 15, 0.1)).toBeCloseTo(1 - pmf(0) - pmf(1) - pmf(2), 12);
    expect(binomialTest(3, 15, 0.1)).toBeCloseTo(0.18406106910639114, 12);
  });

  it('is null for n = 0 and rejects impossible counts', () => {
    expect(binomialTest(0, 0)).toBeNull();
    expect(() => binomialTest(6, 5)).toThrow();
  });

  it('gives, to the bit, the sum over every outcome 0…n (the skipped ones are 0 in double precision)', () => {
    // The rule summed term by term over all n + 1 outcomes, as before the range was narrowed.
    const everyOutcome = (k: number, n: number, p: number) => {
      const logPmf = (i: number) => gammaln(n + 1) - gammaln(i + 1) - gammaln(n - i + 1) + i * Math.log(p) + (n - i) * Math.log1p(-p);
      const threshold = logPmf(k) + Math.log1p(1e-7);
      let total = 0;
      for (let i = 0; i <= n; i++) if (logPmf(i) <= threshold) total += Math.exp(logPmf(i));
      return Math.min(1, total);
    };
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 60_000 }).chain((n) => fc.tuple(fc.integer({ min: 0, max: n }), fc.constant(n), fc.constantFrom(0.5, 0.1, 0.37, 0.9, 1e-3))),
      ([k, n, p]) => {
        if (k === n * p) return;
        expect(binomialTest(k, n, p)).toBe(everyOutcome(k, n, p));
      },
    ), { numRuns: 300 });
    // Far tails and the mode's neighbourhood, where the range's bounds lie close to k.
    for (const [k, n] of [[0, 20_000], [7_270, 20_000], [7_300, 20_000], [7_354, 20_000], [9_000, 20_000], [9_950, 20_000], [10_001, 20_000], [20_000, 20_000], [1, 3]]) {
      expect(binomialTest(k, n)).toBe(everyOutcome(k, n, 0.5));
    }
  });

  it('is a probability, symmetric at 0.5', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 400 }).chain((n) => fc.tuple(fc.integer({ min: 0, max: n }), fc.constant(n))), ([k, n]) => {
      const p = binomialTest(k, n)!;
      return p >= 0 && p <= 1 && Math.abs(p - binomialTest(n - k, n)!) < 1e-12;
    }));
  });
});

function comb(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { wilsonInterval } from './wilson-interval';

describe('wilsonInterval', () => {
  // Newcombe, R. G. (1998). Two-sided confidence intervals for the single proportion: comparison
  // of seven methods. Statistics in Medicine 17:857–872, Table II, method 3 (score interval):
  // 81/263 → 0.2553–0.3662; 15/148 → 0.0624–0.1605; 0/20 → 0–0.1611; 1/29 → 0.0061–0.1718.
  it('reproduces Newcombe (1998) score intervals', () => {
    const cases: Array<[number, number, number, number]> = [
      [81, 263, 0.2553, 0.3662], [15, 148, 0.0624, 0.1605], [0, 20, 0, 0.1611], [1, 29, 0.0061, 0.1718],
    ];
    for (const [x, n, lo, hi] of cases) {
      const ci = wilsonInterval(x, n)!;
      expect(ci[0]).toBeCloseTo(lo, 4);
      expect(ci[1]).toBeCloseTo(hi, 4);
    }
  });

  it('is null for n = 0', () => expect(wilsonInterval(0, 0)).toBeNull());

  it('lies in [0, 1] and contains the point estimate', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 5000 }).chain((n) => fc.tuple(fc.integer({ min: 0, max: n }), fc.constant(n))), ([x, n]) => {
      const [lo, hi] = wilsonInterval(x, n)!;
      return lo >= 0 && hi <= 1 && lo <= x / n + 1e-12 && x / n <= hi + 1e-12;
    }));
  });
});

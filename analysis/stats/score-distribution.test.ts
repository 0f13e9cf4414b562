import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { scoreDistribution } from './score-distribution';

/** R type 7 on a sorted copy, the direct way. */
function type7(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = (s.length - 1) * q;
  const lo = Math.floor(h);
  return lo + 1 < s.length ? s[lo] + (h - lo) * (s[lo + 1] - s[lo]) : s[lo];
}

describe('scoreDistribution', () => {
  it('counts each scale point and gives R type 7 quartiles, worked by hand', () => {
    // 1 2 2 3 4 4 4 5 on 1–5: n = 8; Q(¼): h = 1.75 → 2 + .75·(2 − 2) = 2; median h = 3.5 → 3 + .5·(4 − 3) = 3.5;
    // Q(¾): h = 5.25 → 4 + .25·(4 − 4) = 4. (numpy.quantile([1,2,2,3,4,4,4,5], [.25,.5,.75]) = 2, 3.5, 4.)
    expect(scoreDistribution([4, 1, 2, 4, 3, 5, 2, 4], [1, 5])).toEqual({ n: 8, counts: [1, 2, 1, 3, 1], median: 3.5, iqr: [2, 4] });
    // 1 3 on 1–5: Q(¼) = 1.5, median 2, Q(¾) = 2.5.
    expect(scoreDistribution([3, 1], [1, 5])).toEqual({ n: 2, counts: [1, 0, 1, 0, 0], median: 2, iqr: [1.5, 2.5] });
  });

  it('agrees with sorting for any scores', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 60 }), (xs) => {
      const d = scoreDistribution(xs, [-3, 3]);
      expect(d.median).toBeCloseTo(type7(xs, 0.5), 12);
      expect(d.iqr![0]).toBeCloseTo(type7(xs, 0.25), 12);
      expect(d.iqr![1]).toBeCloseTo(type7(xs, 0.75), 12);
      expect(d.counts.reduce((a, b) => a + b, 0)).toBe(xs.length);
    }));
  });

  it('has no quantiles without scores and refuses scores off the scale', () => {
    expect(scoreDistribution([], [1, 5])).toEqual({ n: 0, counts: [0, 0, 0, 0, 0], median: null, iqr: null });
    expect(() => scoreDistribution([6], [1, 5])).toThrow(RangeError);
  });
});

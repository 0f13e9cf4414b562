import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { kendallTauB } from './kendall-tau';

describe('kendallTauB', () => {
  // scipy.stats.kendalltau documentation example: [12,2,1,12,2] vs [1,4,7,1,0] → τ-b
  // = −0.47140452079103173 (ties in both series).
  it('reproduces the scipy example with ties', () => {
    expect(kendallTauB([12, 2, 1, 12, 2], [1, 4, 7, 1, 0])).toBeCloseTo(-0.47140452079103173, 12);
  });
  it('is ±1 for identical / reversed orders and null for a constant series', () => {
    expect(kendallTauB([1, 2, 3, 4], [10, 20, 30, 40])).toBe(1);
    expect(kendallTauB([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1);
    expect(kendallTauB([2, 2, 2], [1, 2, 3])).toBeNull();
  });
  it('lies in [−1, 1] and is symmetric in its arguments', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 })), { minLength: 2, maxLength: 25 }), (pairs) => {
      const x = pairs.map((p) => p[0]);
      const y = pairs.map((p) => p[1]);
      const t = kendallTauB(x, y);
      if (t === null) return kendallTauB(y, x) === null;
      return t >= -1 - 1e-12 && t <= 1 + 1e-12 && Math.abs(t - kendallTauB(y, x)!) < 1e-12;
    }));
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { spearmanRho } from './spearman';

describe('spearmanRho', () => {
  // scipy.stats.spearmanr documentation example: [1,2,3,4,5] vs [5,6,7,8,7] → 0.8207826816681233
  // (a tie in y, so average ranks matter).
  it('reproduces the scipy example with a tie', () => {
    expect(spearmanRho([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])).toBeCloseTo(0.8207826816681233, 12);
  });
  it('is null for a constant series or fewer than 2 points', () => {
    expect(spearmanRho([1, 1, 1], [1, 2, 3])).toBeNull();
    expect(spearmanRho([1], [2])).toBeNull();
  });
  it('is unchanged by adding a constant and lies in [−1, 1]', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: -5, max: 5 }), fc.integer({ min: -5, max: 5 })), { minLength: 2, maxLength: 20 }), fc.integer({ min: -100, max: 100 }), (pairs, c) => {
      const x = pairs.map((p) => p[0]);
      const y = pairs.map((p) => p[1]);
      const r = spearmanRho(x, y);
      const s = spearmanRho(x, y.map((v) => v + c));
      if (r === null) return s === null;
      return Math.abs(r - s!) < 1e-9 && r >= -1 - 1e-12 && r <= 1 + 1e-12;
    }));
  });
});

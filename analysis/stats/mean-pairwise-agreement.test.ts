import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { meanPairwiseAgreement } from './mean-pairwise-agreement';

describe('meanPairwiseAgreement', () => {
  it('averages per-pair shares over pairs with common items (hand-computed)', () => {
    // item 0: L0=a, L1=a, L2=b ; item 1: L0=b, L1=a ; item 2: L2=a
    // pairs: (0,1): 1 of 2 → 0.5 ; (0,2): 0 of 1 → 0 ; (1,2): 0 of 1 → 0 ; mean = 1/6
    const itemStart = [0, 3, 5, 6];
    const listener = [0, 1, 2, 0, 1, 2];
    const label = [0, 0, 1, 1, 0, 0];
    expect(meanPairwiseAgreement(itemStart, listener, label, 3)).toBeCloseTo(1 / 6, 14);
  });
  it('is null when no pair shares an item', () => {
    expect(meanPairwiseAgreement([0, 1, 2], [0, 1], [0, 0], 2)).toBeNull();
  });
  it('is unchanged by relabelling and lies in [0, 1]', () => {
    fc.assert(fc.property(fc.array(fc.array(fc.integer({ min: -1, max: 1 }), { minLength: 4, maxLength: 4 }), { minLength: 1, maxLength: 10 }), (matrix) => {
      const itemStart = [0];
      const listener: number[] = [];
      const label: number[] = [];
      for (const row of matrix) {
        row.forEach((v, l) => { if (v >= 0) { listener.push(l); label.push(v); } });
        itemStart.push(listener.length);
      }
      const a = meanPairwiseAgreement(itemStart, listener, label, 4);
      const b = meanPairwiseAgreement(itemStart, listener, label.map((v) => 1 - v), 4);
      if (a === null) return b === null;
      return a === b && a >= 0 && a <= 1;
    }));
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { krippendorffAlphaNominal, unitCountsFromMatrix } from './krippendorff-alpha';

describe('krippendorffAlphaNominal', () => {
  // Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
  // Communication, University of Pennsylvania. Section C: 4 observers, 12 units, values 1–5,
  // missing data; nominal α = 0.743.
  const reliabilityData = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
    [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
  ];

  it('reproduces the published nominal example with missing values (α = 0.743)', () => {
    const alpha = krippendorffAlphaNominal(unitCountsFromMatrix(reliabilityData))!;
    expect(alpha).toBeCloseTo(0.743, 3);
  });

  it('drops units with a single value (unit 12 in the example)', () => {
    const counts = unitCountsFromMatrix(reliabilityData);
    const without12 = counts.slice(0, 11);
    expect(krippendorffAlphaNominal(without12)).toBe(krippendorffAlphaNominal(counts));
  });

  it('is 1 for perfect agreement and null when only one category is used', () => {
    expect(krippendorffAlphaNominal([[3, 0], [0, 2], [4, 0]])).toBe(1);
    expect(krippendorffAlphaNominal([[3, 0], [2, 0]])).toBeNull();
    expect(krippendorffAlphaNominal([[1, 0]])).toBeNull();
  });

  const units = fc.array(fc.tuple(fc.nat(6), fc.nat(6)), { minLength: 1, maxLength: 30 });

  it('is unchanged by relabelling a↔b across all units', () => {
    fc.assert(fc.property(units, (u) => {
      const a = krippendorffAlphaNominal(u);
      const b = krippendorffAlphaNominal(u.map(([x, y]) => [y, x]));
      if (a === null) return b === null;
      return Math.abs(a - b!) < 1e-12;
    }));
  });

  it('never exceeds 1', () => {
    fc.assert(fc.property(units, (u) => {
      const a = krippendorffAlphaNominal(u);
      return a === null || a <= 1 + 1e-12;
    }));
  });
});

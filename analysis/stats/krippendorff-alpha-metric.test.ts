import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { krippendorffAlpha } from './krippendorff-alpha-metric';
import { krippendorffAlphaNominal } from './krippendorff-alpha';

/** The reliability data matrix (rows = observers, columns = units, null = missing) as units. */
const unitsOf = (matrix: Array<Array<number | null>>): number[][] =>
  matrix[0].map((_, u) => matrix.map((row) => row[u]).filter((v): v is number => v !== null));

describe('krippendorffAlpha (nominal, ordinal, interval, ratio)', () => {
  // Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
  // Communication, University of Pennsylvania, §C–§E: 4 observers, 12 units, values 1–5, with
  // missing values. Published: nominal α = 0.743, ordinal 0.815, interval 0.849, ratio 0.797.
  const reliabilityData = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
    [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
  ];
  const units = unitsOf(reliabilityData);

  it('reproduces the published worked example for every metric', () => {
    expect(krippendorffAlpha(units, 'nominal')).toBeCloseTo(0.743, 3);
    expect(krippendorffAlpha(units, 'ordinal')).toBeCloseTo(0.815, 3);
    expect(krippendorffAlpha(units, 'interval')).toBeCloseTo(0.849, 3);
    expect(krippendorffAlpha(units, 'ratio')).toBeCloseTo(0.797, 3);
  });

  it('matches the example’s exact fractions (n = 40 pairable values)', () => {
    // Nominal: the off-diagonal coincidences come from unit 2 (2,2,3,2: 6 ordered pairs / 3 = 2),
    // unit 6 (1,2,3,4: 12 / 3 = 4) and unit 8 (1,1,2,1: 6 / 3 = 2), Σ_{c≠k} o_ck = 8; the margins
    // n_c = 9, 13, 10, 5, 3 give Σ_{c≠k} n_c·n_k = 40² − 384 = 1216 → α = 1 − 39·8/1216 = 0.743421…
    expect(krippendorffAlpha(units, 'nominal')).toBeCloseTo(1 - (39 * 8) / 1216, 12);
    // Interval: Σ o_ck(c − k)² = 52/3 and Σ n_c·n_k(c − k)² = 4480 → α = 1 − 39·(52/3)/4480
    // = 951/1120 = 0.849107… (the paper prints .849).
    expect(krippendorffAlpha(units, 'interval')).toBeCloseTo(951 / 1120, 12);
  });

  it('leaves out units with a single value (unit 12 in the example)', () => {
    for (const metric of ['nominal', 'ordinal', 'interval', 'ratio'] as const) {
      expect(krippendorffAlpha(units.slice(0, 11), metric)).toBe(krippendorffAlpha(units, metric));
    }
  });

  it('is 1 for perfect agreement and null without expected disagreement', () => {
    expect(krippendorffAlpha([[1, 1], [3, 3, 3], [5, 5]], 'interval')).toBe(1);
    expect(krippendorffAlpha([[2, 2], [2, 2, 2]], 'ordinal')).toBeNull();
    expect(krippendorffAlpha([[2], [3]], 'interval')).toBeNull();
    expect(krippendorffAlpha([], 'nominal')).toBeNull();
  });

  const unitArb = fc.array(fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 0, maxLength: 8 }), { minLength: 1, maxLength: 25 });
  const close = (a: number | null, b: number | null, tol = 1e-9) => (a === null ? b === null : b !== null && Math.abs(a - b) <= tol);

  it('nominal equals the count-based module used for pair votes', () => {
    fc.assert(fc.property(unitArb, (u) => {
      const counts = u.map((unit) => [1, 2, 3, 4, 5, 6, 7].map((v) => unit.filter((x) => x === v).length));
      return close(krippendorffAlpha(u, 'nominal'), krippendorffAlphaNominal(counts));
    }));
  });

  it('interval α is unchanged by an affine rescaling; ordinal by any increasing map', () => {
    fc.assert(fc.property(unitArb, fc.double({ min: 0.1, max: 10, noNaN: true }), fc.integer({ min: -5, max: 5 }), (u, a, b) =>
      close(krippendorffAlpha(u, 'interval'), krippendorffAlpha(u.map((unit) => unit.map((x) => a * x + b)), 'interval'))));
    fc.assert(fc.property(unitArb, (u) =>
      close(krippendorffAlpha(u, 'ordinal'), krippendorffAlpha(u.map((unit) => unit.map((x) => x ** 3 + 10)), 'ordinal'))));
  });

  it('never exceeds 1', () => {
    fc.assert(fc.property(unitArb, fc.constantFrom('nominal', 'ordinal', 'interval', 'ratio' as const), (u, metric) => {
      const a = krippendorffAlpha(u, metric);
      return a === null || a <= 1 + 1e-12;
    }));
  });
});

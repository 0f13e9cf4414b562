import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { studentTQuantile } from './student-t-quantile';

describe('studentTQuantile', () => {
  // Closed forms (Shaw 2006, §3; also Hill 1970): ν = 1: t = tan(π(p − ½));
  // ν = 2: t = (2p − 1)/√(2p(1 − p)); ν = 4: with α = 4p(1 − p), q = cos(⅓·arccos √α)/√α,
  // t = sign(p − ½)·2·√(q − 1).
  const nu1 = (p: number) => Math.tan(Math.PI * (p - 0.5));
  const nu2 = (p: number) => (2 * p - 1) / Math.sqrt(2 * p * (1 - p));
  const nu4 = (p: number) => {
    const alpha = 4 * p * (1 - p);
    const q = Math.cos(Math.acos(Math.sqrt(alpha)) / 3) / Math.sqrt(alpha);
    return Math.sign(p - 0.5) * 2 * Math.sqrt(q - 1);
  };

  it('matches the closed forms for ν = 1, 2, 4 to 1e-10 relative', () => {
    for (const p of [0.6, 0.9, 0.95, 0.975, 0.995, 0.9995, 0.025, 0.3]) {
      expect(studentTQuantile(p, 1)).toBeCloseTo(nu1(p), 8);
      expect(Math.abs(studentTQuantile(p, 1) / nu1(p) - 1)).toBeLessThan(1e-10);
      expect(Math.abs(studentTQuantile(p, 2) / nu2(p) - 1)).toBeLessThan(1e-10);
      expect(Math.abs(studentTQuantile(p, 4) / nu4(p) - 1)).toBeLessThan(1e-10);
    }
  });

  it('reproduces the printed table of t(0.975, ν) (NIST/SEMATECH e-Handbook §1.3.6.7.2, 3 decimals)', () => {
    const table: Array<[number, number]> = [
      [1, 12.706], [2, 4.303], [3, 3.182], [4, 2.776], [5, 2.571], [6, 2.447], [7, 2.365], [8, 2.306], [9, 2.262],
      [10, 2.228], [15, 2.131], [20, 2.086], [25, 2.060], [30, 2.042], [40, 2.021], [60, 2.000], [100, 1.984],
    ];
    for (const [df, t] of table) expect(Math.abs(studentTQuantile(0.975, df) - t)).toBeLessThanOrEqual(5e-4);
  });

  it('agrees with scipy.stats.t.ppf (SciPy 1.17, Boost) to 1e-9', () => {
    // Values printed by scipy.stats.t.ppf(p, df).
    const reference: Array<[number, number, number]> = [
      [0.975, 3, 3.1824463052837078], [0.975, 5, 2.5705818356363146], [0.975, 7, 2.364624251592784],
      [0.975, 10, 2.228138851986274], [0.975, 20, 2.085963447265864], [0.975, 29, 2.045229642132703],
      [0.975, 60, 2.0002978220142604], [0.975, 120, 1.9799304050824402], [0.975, 1000, 1.9623390808264083],
      [0.995, 3, 5.840909309733355], [0.9, 2.5, 1.7302509288071766], [0.025, 7, -2.3646242515927844],
    ];
    for (const [p, df, t] of reference) expect(Math.abs(studentTQuantile(p, df) - t)).toBeLessThan(1e-9);
  });

  it('handles the edges', () => {
    expect(studentTQuantile(0.5, 3)).toBe(0);
    expect(studentTQuantile(1, 3)).toBe(Infinity);
    expect(studentTQuantile(0, 3)).toBe(-Infinity);
    expect(() => studentTQuantile(1.2, 3)).toThrow(RangeError);
    expect(() => studentTQuantile(0.9, 0)).toThrow(RangeError);
    expect(() => studentTQuantile(Number.NaN, 3)).toThrow(RangeError);
  });

  const p = fc.double({ min: 1e-6, max: 1 - 1e-6, noNaN: true });
  const df = fc.double({ min: 0.5, max: 1e5, noNaN: true });

  it('is odd: t(1 − p) = −t(p)', () => {
    fc.assert(fc.property(p, df, (q, v) => Math.abs(studentTQuantile(1 - q, v) + studentTQuantile(q, v)) <= 1e-9 * (1 + Math.abs(studentTQuantile(q, v)))));
  });

  it('increases with p and, for p > ½, falls towards the normal quantile as ν grows', () => {
    fc.assert(fc.property(p, p, df, (a, b, v) => {
      const [lo, hi] = a < b ? [a, b] : [b, a];
      // Below ~1e-9 apart the probabilities differ by less than the solver's resolution.
      if (hi - lo < 1e-9) return true;
      return studentTQuantile(lo, v) < studentTQuantile(hi, v);
    }));
    fc.assert(fc.property(df, fc.double({ min: 1.01, max: 10, noNaN: true }), (v, factor) =>
      studentTQuantile(0.975, v * factor) <= studentTQuantile(0.975, v) + 1e-12 && studentTQuantile(0.975, v * factor) > 1.959963984540054));
  });
});

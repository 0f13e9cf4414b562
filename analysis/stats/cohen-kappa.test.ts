import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cohenKappa } from './cohen-kappa';

function fromTable(yy: number, yn: number, ny: number, nn: number): [string[], string[]] {
  const r1: string[] = [];
  const r2: string[] = [];
  const add = (n: number, a: string, b: string) => { for (let i = 0; i < n; i++) { r1.push(a); r2.push(b); } };
  add(yy, 'yes', 'yes'); add(yn, 'yes', 'no'); add(ny, 'no', 'yes'); add(nn, 'no', 'no');
  return [r1, r2];
}

describe('cohenKappa', () => {
  // Textbook 2×2 example (Wikipedia, "Cohen's kappa", worked example: 50 grant proposals read
  // by two readers; 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no): p_o = 0.7, p_e = 0.5, κ = 0.4.
  it('reproduces the 50-proposal example (κ = 0.4)', () => {
    expect(cohenKappa(...fromTable(20, 5, 10, 15))).toBeCloseTo(0.4, 12);
  });

  // Same source, "same percentage agreement, different kappa": 45/15/25/15 → κ = 0.1304 and
  // 25/35/5/35 → κ = 0.2593 (both p_o = 0.60).
  it('reproduces the two equal-agreement tables (κ = 0.1304 and 0.2593)', () => {
    expect(cohenKappa(...fromTable(45, 15, 25, 15))).toBeCloseTo(0.1304, 4);
    expect(cohenKappa(...fromTable(25, 35, 5, 35))).toBeCloseTo(0.2593, 4);
  });

  it('is null when both raters use one and the same label, and for no items', () => {
    expect(cohenKappa(['a', 'a'], ['a', 'a'])).toBeNull();
    expect(cohenKappa([], [])).toBeNull();
  });

  const pairs = fc.array(fc.tuple(fc.constantFrom('a', 'b'), fc.constantFrom('a', 'b')), { minLength: 1, maxLength: 60 });
  it('is unchanged by relabelling a↔b and never exceeds 1', () => {
    fc.assert(fc.property(pairs, (p) => {
      const swap = (x: string) => (x === 'a' ? 'b' : 'a');
      const k = cohenKappa(p.map((x) => x[0]), p.map((x) => x[1]));
      const s = cohenKappa(p.map((x) => swap(x[0])), p.map((x) => swap(x[1])));
      if (k === null) return s === null;
      return Math.abs(k - s!) < 1e-12 && k <= 1 + 1e-12;
    }));
  });
});

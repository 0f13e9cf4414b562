import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fleissKappa } from './fleiss-kappa';

describe('fleissKappa', () => {
  // Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
  // Bulletin 76(5):378–382, Table 1: 30 patients, 6 psychiatrists each, categories depression,
  // personality disorder, schizophrenia, neurosis, other. Published κ = 0.430.
  const table1 = [
    [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
    [0, 0, 5, 0, 1], [3, 0, 0, 1, 2], [5, 1, 0, 0, 0], [0, 2, 0, 4, 0], [1, 0, 2, 0, 3],
    [0, 0, 0, 0, 6], [0, 1, 0, 5, 0], [0, 2, 0, 1, 3], [2, 0, 0, 4, 0], [1, 0, 0, 4, 1],
    [0, 5, 0, 1, 0], [4, 0, 0, 0, 2], [0, 2, 0, 4, 0], [1, 0, 5, 0, 0], [0, 0, 0, 0, 6],
  ];

  it('reproduces Fleiss (1971) κ = 0.430', () => {
    expect(fleissKappa(table1)).toBeCloseTo(0.430, 3);
  });

  it('is null for unequal numbers of ratings or fewer than 2 per subject', () => {
    expect(fleissKappa([[2, 1], [1, 1]])).toBeNull();
    expect(fleissKappa([[1, 0], [0, 1]])).toBeNull();
    expect(fleissKappa([])).toBeNull();
  });

  const table = fc.integer({ min: 2, max: 8 }).chain((m) =>
    fc.array(fc.nat(m).map((a) => [a, m - a]), { minLength: 1, maxLength: 25 }));

  it('is unchanged by relabelling a↔b and never exceeds 1', () => {
    fc.assert(fc.property(table, (t) => {
      const k = fleissKappa(t);
      const swapped = fleissKappa(t.map(([a, b]) => [b, a]));
      if (k === null) return swapped === null;
      return Math.abs(k - swapped!) < 1e-12 && k <= 1 + 1e-12;
    }));
  });
});

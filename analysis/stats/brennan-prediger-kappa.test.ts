import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { brennanPredigerKappa } from './brennan-prediger-kappa';
import { fleissKappa } from './fleiss-kappa';

describe('brennanPredigerKappa', () => {
  // Gwet, irrCAC (CRAN), dataset cont3x3abstractors: two abstractors classify 100 pregnancies
  // as Ectopic / AIU / NIU; contingency table rows = abstractor 1, columns = abstractor 2:
  //   13 0 0 / 0 20 7 / 0 4 56. Published bp2.table(...) coefficient: 0.835.
  const table = [[13, 0, 0], [0, 20, 7], [0, 4, 56]];
  const subjects: number[][] = [];
  table.forEach((row, r) => row.forEach((n, c) => {
    for (let k = 0; k < n; k++) {
      const counts = [0, 0, 0];
      counts[r]++;
      counts[c]++;
      subjects.push(counts);
    }
  }));

  it('reproduces irrCAC cont3x3abstractors: κ_BP = 0.835', () => {
    expect(subjects).toHaveLength(100);
    expect(brennanPredigerKappa(subjects)).toBeCloseTo(0.835, 12);
  });

  it('works by hand on two categories: P̄ = (1 + 1/3 + 1/3)/3, κ = 2P̄ − 1', () => {
    // [3,0]: P = 1; [2,1]: P = 2/6; [1,2]: P = 2/6; [1,0] has one rating and drops out.
    expect(brennanPredigerKappa([[3, 0], [2, 1], [1, 2], [1, 0]])).toBeCloseTo(2 * (5 / 9) - 1, 14);
  });

  it('is null without a subject rated twice or with fewer than two categories', () => {
    expect(brennanPredigerKappa([[1, 0], [0, 1]])).toBeNull();
    expect(brennanPredigerKappa([])).toBeNull();
    expect(brennanPredigerKappa([[3]], 1)).toBeNull();
  });

  const units = fc.array(fc.tuple(fc.nat(8), fc.nat(8)), { minLength: 1, maxLength: 30 });

  it('is unchanged when a and b are swapped on any subset of items (Fleiss κ is not)', () => {
    fc.assert(fc.property(units, fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), (t, flip) => {
      const k = brennanPredigerKappa(t);
      const swapped = brennanPredigerKappa(t.map(([a, b], i) => (flip[i] ? [b, a] : [a, b])));
      return k === null ? swapped === null : Math.abs(k - swapped!) < 1e-12;
    }));
    // A table where the swap does move Fleiss' κ, so the property above is not vacuous.
    const t = [[3, 1], [4, 0], [1, 3]];
    expect(fleissKappa(t)).not.toBeCloseTo(fleissKappa([[1, 3], [4, 0], [1, 3]])!, 6);
    expect(brennanPredigerKappa(t)).toBeCloseTo(brennanPredigerKappa([[1, 3], [4, 0], [1, 3]])!, 14);
  });

  it('lies in [−1, 1] for two categories and is 1 exactly when every rated item is unanimous', () => {
    fc.assert(fc.property(units, (t) => {
      const k = brennanPredigerKappa(t);
      if (k === null) return t.every(([a, b]) => a + b < 2);
      const unanimous = t.every(([a, b]) => a + b < 2 || a === 0 || b === 0);
      return k >= -1 - 1e-12 && k <= 1 + 1e-12 && (k === 1) === unanimous;
    }));
  });
});

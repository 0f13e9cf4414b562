import { describe, expect, it } from 'vitest';
import { jaccardDistance, masiDistance, type MasiWeights } from './set-distance';
import { krippendorffAlphaDistance, setKey } from './krippendorff-alpha-distance';
import { krippendorffAlphaNominal, unitCountsFromMatrix } from './krippendorff-alpha';

const s = (...v: string[]): Set<string> => new Set(v);
/** nltk's masi_distance weights (nltk/metrics/distance.py), rounded: not what Passonneau's M is. */
const NLTK_ROUNDED: MasiWeights = { subset: 0.67, overlap: 0.33 };

describe('MASI and Jaccard distances', () => {
  it('uses M = 1, 2/3, 1/3, 0 exactly', () => {
    expect(masiDistance(s('a', 'b'), s('b', 'a'))).toBe(0);
    expect(masiDistance(s('a'), s('a', 'b'))).toBeCloseTo(1 - (1 / 2) * (2 / 3), 15);
    expect(masiDistance(s('a', 'b'), s('b', 'c'))).toBeCloseTo(1 - (1 / 3) * (1 / 3), 15);
    expect(masiDistance(s('a'), s('b'))).toBe(1);
    expect(masiDistance(s(), s())).toBe(0);
    expect(masiDistance(s(), s('a'))).toBe(1);
    expect(jaccardDistance(s(), s())).toBe(0);
    expect(jaccardDistance(s('a', 'b'), s('b', 'c'))).toBeCloseTo(2 / 3, 15);
  });

  it("differs from nltk's doctest, which uses the rounded 0.67/0.33", () => {
    // nltk/test/metrics.doctest: s1 = {1,2,3,4}, s2 = {3,4,5}: jaccard_distance 0.6, masi_distance 0.868.
    const s1 = s('1', '2', '3', '4');
    const s2 = s('3', '4', '5');
    expect(jaccardDistance(s1, s2)).toBeCloseTo(0.6, 15);
    expect(masiDistance(s1, s2, NLTK_ROUNDED)).toBeCloseTo(0.868, 15);
    expect(masiDistance(s1, s2)).toBeCloseTo(1 - 0.4 / 3, 15); // 0.8666…
    expect(masiDistance(s1, s2)).not.toBeCloseTo(0.868, 3);
  });
});

describe('krippendorffAlphaDistance on sets (worked by hand)', () => {
  // Three items, two listeners each: {a}|{a}; {a,b}|{a} (subset); {a,b}|{b,c} (overlap). n = 6.
  // MASI exact: within-unit ordered-pair distances 0, 2·(2/3), 2·(8/9) → Σ = 28/9, D_o = 28/54 = 14/27.
  // The six values are {a}×3, {a,b}×2, {b,c}×1; unordered pairs of different values:
  // {a}-{a,b} 6 × 2/3 = 4, {a}-{b,c} 3 × 1 = 3, {a,b}-{b,c} 2 × 8/9 = 16/9 → 79/9, ordered 158/9,
  // D_e = (158/9)/(6·5) = 79/135 → α = 1 − (14/27)/(79/135) = 1 − 70/79 = 9/79 = 0.113924…
  const units = [[s('a'), s('a')], [s('a', 'b'), s('a')], [s('a', 'b'), s('b', 'c')]];

  it('gives 9/79 with exact MASI', () => {
    expect(krippendorffAlphaDistance(units, masiDistance, setKey)).toBeCloseTo(9 / 79, 12);
  });

  it('gives 1.99/17.54 with nltk’s rounded weights', () => {
    // d(subset) = 1 − 0.5·0.67 = 0.665, d(overlap) = 1 − (1/3)·0.33 = 0.89:
    // D_o = (2·0.665 + 2·0.89)/6 = 3.11/6; D_e = 2·(6·0.665 + 3 + 2·0.89)/30 = 17.54/30;
    // α = 1 − 15.55/17.54 = 1.99/17.54 = 0.113455… (exact: 0.113924…).
    const rounded = krippendorffAlphaDistance(units, (a, b) => masiDistance(a, b, NLTK_ROUNDED), setKey)!;
    expect(rounded).toBeCloseTo(1.99 / 17.54, 12);
    expect(Math.abs(rounded - 9 / 79)).toBeGreaterThan(4e-4);
  });

  it('gives 9/44 with Jaccard', () => {
    // d(subset) = 1/2, d(overlap) = 2/3: D_o = (1 + 4/3)/6 = 7/18; D_e = 2·(3 + 3 + 4/3)/30 = 22/45;
    // α = 1 − (7/18)/(22/45) = 1 − 315/396 = 9/44.
    expect(krippendorffAlphaDistance(units, jaccardDistance, setKey)).toBeCloseTo(9 / 44, 12);
  });

  it('is the nominal α on singletons and on the Krippendorff (2011) example', () => {
    const data = [
      [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
      [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
    ];
    const setUnits = data[0].map((_, u) => data.map((row) => row[u]).filter((v) => v !== null).map((v) => s(String(v))));
    const alpha = krippendorffAlphaDistance(setUnits, masiDistance, setKey);
    expect(alpha).toBeCloseTo(krippendorffAlphaNominal(unitCountsFromMatrix(data))!, 12);
    expect(alpha).toBeCloseTo(0.743, 3);
  });

  it('is 1 on perfect agreement, null without pairable values or expected disagreement', () => {
    expect(krippendorffAlphaDistance([[s('a'), s('a')], [s('b', 'c'), s('c', 'b')]], masiDistance, setKey)).toBe(1);
    expect(krippendorffAlphaDistance([[s('a')], [s('b')]], masiDistance, setKey)).toBeNull();
    expect(krippendorffAlphaDistance([[s(), s()], [s(), s()]], masiDistance, setKey)).toBeNull();
  });
});

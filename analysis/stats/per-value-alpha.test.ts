import { describe, expect, it } from 'vitest';
import { perValueAlpha } from './per-value-alpha';
import { krippendorffAlphaNominal } from './krippendorff-alpha';
import { multiMajority, singleMajority } from './label-majority';

const s = (...v: string[]): Set<string> => new Set(v);

describe('perValueAlpha', () => {
  const units = [[s('husky'), s('husky', 'deep')], [s(), s('deep')], [s('deep'), s('deep')], [s('crisp')]];

  it('counts prevalence over every answer and α over "contains it" per item', () => {
    const [husky, deep, crisp, shrill] = perValueAlpha(units, ['husky', 'deep', 'crisp', 'shrill']);
    expect(husky.prevalence).toBeCloseTo(2 / 7, 15);
    expect(deep.prevalence).toBeCloseTo(4 / 7, 15);
    expect(crisp.prevalence).toBeCloseTo(1 / 7, 15);
    expect(shrill).toEqual({ value: 'shrill', prevalence: 0, alpha: null });
    // "deep": items (0,1), (0,1), (1,1), (0) → counts [1,1], [1,1], [0,2], [1,0] (last unpairable):
    // n = 6, Σ_{c≠k} o = 2 + 2 = 4, margins n0 = 2, n1 = 4 → α = 1 − 5·4/(2·2·4) = −0.25.
    expect(deep.alpha).toBeCloseTo(1 - (5 * 4) / 16, 12);
    // "husky": both answers of item 0 contain it, none of items 1–2 do → no observed disagreement.
    expect(husky.alpha).toBe(1);
    expect(husky.alpha).toBe(krippendorffAlphaNominal([[0, 2], [2, 0], [2, 0], [1, 0]]));
  });

  it('gives null prevalence without answers', () => {
    expect(perValueAlpha([], ['a'])).toEqual([{ value: 'a', prevalence: null, alpha: null }]);
  });
});

describe('majorities', () => {
  it('needs more than half for single, ties give none', () => {
    expect(singleMajority(['angry', 'angry', 'sad'])).toBe('angry');
    expect(singleMajority(['angry', 'sad'])).toBeNull();
    expect(singleMajority([])).toBeNull();
  });

  it('keeps the values in more than half of the answers for multi', () => {
    expect(multiMajority([s('a', 'b'), s('a'), s('b', 'c')])).toEqual(s('a', 'b'));
    expect(multiMajority([s('a'), s()])).toEqual(s());
    expect(multiMajority([])).toBeNull();
  });
});

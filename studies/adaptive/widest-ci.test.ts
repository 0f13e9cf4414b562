import { describe, expect, it } from 'vitest';
import { chooseRatingItem, mosHalfWidth, type ScoreTally } from './widest-ci';
import { keyedRandom } from '../../analysis/random';

const tally = (scores: number[]): ScoreTally => ({ n: scores.length, sum: scores.reduce((a, b) => a + b, 0), sumSquares: scores.reduce((a, b) => a + b * b, 0) });

describe('widest-CI rating rule', () => {
  it('computes 1.96·sd/√n, infinite below two scores', () => {
    expect(mosHalfWidth(tally([3]))).toBe(Infinity);
    // scores 1,3,5: sd = 2, n = 3
    expect(mosHalfWidth(tally([1, 3, 5]))).toBeCloseTo((1.96 * 2) / Math.sqrt(3), 10);
    expect(mosHalfWidth(tally([1, 3, 5]), 1)).toBeCloseTo((1.96 * 2) / 2, 10);
  });

  it('picks the widest system, then its least-loaded item', () => {
    const scores = new Map([
      ['tight', tally([4, 4, 4, 5, 4, 4])],
      ['loose', tally([1, 7, 2, 6, 1, 7])],
    ]);
    const candidates = [
      { itemId: 't1', system: 'tight', load: 0 },
      { itemId: 'l1', system: 'loose', load: 3 },
      { itemId: 'l2', system: 'loose', load: 1 },
    ];
    expect(chooseRatingItem({ scores, pending: new Map(), candidates, random: keyedRandom(1, 'x').next })).toBe('l2');
  });

  it('rates an unrated system first and counts pending votes', () => {
    const scores = new Map([['a', tally([1, 2])], ['b', tally([5])]]);
    const candidates = [{ itemId: 'a1', system: 'a', load: 0 }, { itemId: 'b1', system: 'b', load: 0 }, { itemId: 'c1', system: 'c', load: 0 }];
    const random = keyedRandom(1, 'y').next;
    expect(chooseRatingItem({ scores, pending: new Map(), candidates, random })).toBe('c1');
    // c already has two pending votes: b (one score) is now the emptiest infinitely wide system.
    expect(chooseRatingItem({ scores, pending: new Map([['c', 2]]), candidates, random })).toBe('b1');
    expect(chooseRatingItem({ scores, pending: new Map(), candidates: [], random })).toBeNull();
  });
});

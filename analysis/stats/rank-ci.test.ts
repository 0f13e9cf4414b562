import { describe, expect, it } from 'vitest';
import { ranksByEstimate, ranksFromIntervals } from './rank-ci';

describe('rank and rank_ci', () => {
  it('ranks by estimate with 1 = strongest', () => {
    expect(ranksByEstimate([0.1, 0.9, -1])).toEqual([2, 1, 3]);
  });
  it('lets systems with overlapping intervals share a rank', () => {
    // A [0.5,1.3] and B [0.2,1.0] overlap → both rank 1; C [−1,−0.5] lies below both → rank 3.
    expect(ranksFromIntervals([[0.5, 1.3], [0.2, 1.0], [-1, -0.5]])).toEqual([1, 1, 3]);
    expect(ranksFromIntervals([[0, 1], null])).toEqual([1, null]);
  });
});

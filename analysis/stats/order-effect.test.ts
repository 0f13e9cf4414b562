import { describe, expect, it } from 'vitest';
import { orderEffect } from './order-effect';

describe('CCR order effect', () => {
  it('is the mean score with the reference first minus the mean with the processed first', () => {
    // A panel that adds +1 to whichever version came second: true CMOS 0.5.
    const scores = [
      { first: 'reference' as const, score: 2 }, { first: 'reference' as const, score: 1 },
      { first: 'processed' as const, score: -1 }, { first: 'processed' as const, score: 0 },
    ];
    expect(orderEffect(scores)).toEqual({ order_effect: 2, reference_first: { n: 2, mean: 1.5 }, processed_first: { n: 2, mean: -0.5 } });
  });
  it('is null when one order was never played', () => {
    expect(orderEffect([{ first: 'reference', score: 1 }]).order_effect).toBeNull();
    expect(orderEffect([]).reference_first).toEqual({ n: 0, mean: null });
  });
});

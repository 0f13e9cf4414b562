import { describe, expect, it } from 'vitest';
import { tieCounts } from './tie-counts';

describe('tieCounts', () => {
  it('adds up each unordered system pair, named and sorted in ordinal order, whichever side each system was on', () => {
    expect(tieCounts([
      { systemA: 'b', systemB: 'a', votes: 3, ties: 1 },
      { systemA: 'a', systemB: 'b', votes: 4, ties: 2 },
      { systemA: 'c', systemB: 'B', votes: 2, ties: 0 },
      { systemA: 'a', systemB: 'c', votes: 0, ties: 0 },
    ])).toEqual({
      votes: 3,
      per_system_pair: [
        // 'B' (U+0042) sorts before 'a' (U+0061): ordinal, not locale order
        { system_a: 'B', system_b: 'c', ties: 0, votes: 2 },
        { system_a: 'a', system_b: 'b', ties: 3, votes: 7 },
        { system_a: 'a', system_b: 'c', ties: 0, votes: 0 },
      ],
    });
  });

  it('gives no pairs and no ties for no items', () => {
    expect(tieCounts([])).toEqual({ votes: 0, per_system_pair: [] });
  });
});

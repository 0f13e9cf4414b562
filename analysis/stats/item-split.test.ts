import { describe, expect, it } from 'vitest';
import { countSplitClasses, splitClass } from './item-split';

describe('splitClass', () => {
  it('classifies by the majority share against the threshold (13 listeners)', () => {
    expect(splitClass(13, 0)).toBe('unanimous');
    expect(splitClass(10, 3)).toBe('lopsided'); // 10/13 = 0.769 ≥ 0.75
    expect(splitClass(9, 4)).toBe('split'); // 9/13 = 0.692
    expect(splitClass(3, 9)).toBe('lopsided'); // exactly 0.75 counts as lopsided
    expect(splitClass(0, 0)).toBeNull();
  });
  it('counts classes and honours a custom threshold', () => {
    expect(countSplitClasses([13, 10, 9, 0], [0, 3, 4, 0])).toEqual({ unanimous: 1, lopsided: 1, split: 1 });
    expect(countSplitClasses([9], [4], 0.6)).toEqual({ unanimous: 0, lopsided: 1, split: 0 });
  });
});

import { describe, expect, it } from 'vitest';
import { majorityAgreement } from './majority-agreement';

describe('majorityAgreement', () => {
  it('compares each vote with the majority of the other listeners, worked by hand', () => {
    // Item 0: listeners 0, 1, 2 vote a, a, b (tallies a = 2 of 3).
    //   L0: others a = 1 of 2 → tie, no majority; L1 the same; L2: others a = 2 of 2 → a, L2 chose b → disagree.
    // Item 1: L0, L1, L2, L3 vote a, a, a, b (a = 3 of 4).
    //   L0: others 2 of 3 → a, agree; L1, L2 likewise; L3: others 3 of 3 → a, disagree.
    // Item 2: L3 (excluded, not counted) votes b; L0 and L1 vote b (b = 2 of 2).
    //   L3: others (nothing subtracted) b = 2 of 2 → b, agree; L0: others 1 of 1 → b, agree; L1 the same.
    const item = [0, 0, 0, 1, 1, 1, 1, 2, 2, 2];
    const listener = [0, 1, 2, 0, 1, 2, 3, 3, 0, 1];
    const chosenA = [1, 1, 0, 1, 1, 1, 0, 0, 0, 0];
    const counted = [1, 1, 1, 1, 1, 1, 1, 0, 1, 1];
    const out = majorityAgreement(item, listener, chosenA, counted, [2, 3, 0], [3, 4, 2], 5);
    expect(out).toEqual([
      { n: 2, agree: 2 },
      { n: 2, agree: 2 },
      { n: 2, agree: 1 },
      { n: 2, agree: 1 },
      { n: 0, agree: 0 },
    ]);
  });

  it('gives a random clicker about half, whatever the panel', () => {
    // 200 items, 9 listeners always choosing a, one alternating: the alternating one agrees on 100.
    const item: number[] = [], listener: number[] = [], chosenA: number[] = [], counted: number[] = [];
    for (let i = 0; i < 200; i++) for (let l = 0; l < 10; l++) {
      item.push(i); listener.push(l); chosenA.push(l === 9 ? i % 2 : 1); counted.push(1);
    }
    const votesA = Array.from({ length: 200 }, (_, i) => 9 + (i % 2));
    const out = majorityAgreement(item, listener, chosenA, counted, votesA, Array(200).fill(10), 10);
    expect(out[9]).toEqual({ n: 200, agree: 100 });
    expect(out[0]).toEqual({ n: 200, agree: 200 });
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { listenerCorrelations } from './listener-correlation';

/** Ratings given as [item, listener, score] triples. */
const run = (ratings: Array<[number, number, number]>, listeners: number) =>
  listenerCorrelations(ratings.map((r) => r[0]), ratings.map((r) => r[1]), ratings.map((r) => r[2]), listeners);

describe('listenerCorrelations', () => {
  it('correlates each listener with the other listeners’ mean (worked by hand)', () => {
    // Items 0–3; L0 rates 5 4 2 1, L1 rates 4 5 1 2, L2 rates 5 3 2 2.
    // For L0 the others' means are (4+5)/2 = 4.5, (5+3)/2 = 4, (1+2)/2 = 1.5, (2+2)/2 = 2.
    // x̄ = 3, ȳ = 3; deviations x: 2 1 −1 −2, y: 1.5 1 −1.5 −1;
    // Σdx·dy = 3 + 1 + 1.5 + 2 = 7.5, Σdx² = 10, Σdy² = 6.5 → r = 7.5/√65 = 0.930261…
    const scores = [[5, 4, 2, 1], [4, 5, 1, 2], [5, 3, 2, 2]];
    const ratings = scores.flatMap((row, l) => row.map((s, i) => [i, l, s] as [number, number, number]));
    const out = run(ratings, 3);
    expect(out[0].n).toBe(4);
    expect(out[0].pearson_r).toBeCloseTo(7.5 / Math.sqrt(65), 12);
  });

  it('leaves out items nobody else rated, and gives null below 3 pairs or without variance', () => {
    // L0 rated item 9 alone: only items 0 and 1 pair up → n = 2 → null.
    const out = run([[0, 0, 5], [0, 1, 4], [1, 0, 2], [1, 1, 1], [9, 0, 3]], 2);
    expect(out[0]).toEqual({ pearson_r: null, n: 2 });
    // A listener who always answers 3 has no variance.
    const flat = run([[0, 0, 3], [1, 0, 3], [2, 0, 3], [0, 1, 1], [1, 1, 3], [2, 1, 5]], 2);
    expect(flat[0].pearson_r).toBeNull();
    expect(run([], 1)).toEqual([{ pearson_r: null, n: 0 }]);
  });

  it('with a threshold, drops the lowest listener below it from the panel and measures again (worked by hand)', () => {
    // L0 5 4 2 1, L1 4 5 1 2, L2 1 2 4 5 (reversed). One pass: L0 against (2.5 3.5 2.5 3.5) has
    // r = −1/√10 = −0.316, L1 against (3 3 3 3) none, L2 against (4.5 4.5 1.5 1.5) r = −9/√90 = −0.949:
    // L2 is the lowest below 0.25 and leaves; then L0 and L1 are each other's panel:
    // x 5 4 2 1 against 4 5 1 2 → Σdx·dy = 2·1 + 1·2 + (−1)(−2) + (−2)(−1) = 8, Σdx² = Σdy² = 10 → r = 0.8.
    // L2 is measured against the final panel's mean 4.5 4.5 1.5 1.5 again.
    const scores = [[5, 4, 2, 1], [4, 5, 1, 2], [1, 2, 4, 5]];
    const ratings = scores.flatMap((row, l) => row.map((s, i) => [i, l, s] as [number, number, number]));
    const oneRound = run(ratings, 3);
    const out = listenerCorrelations(ratings.map((r) => r[0]), ratings.map((r) => r[1]), ratings.map((r) => r[2]), 3, 0.25);
    expect(out[0].pearson_r).toBeCloseTo(0.8, 12);
    expect(out[1].pearson_r).toBeCloseTo(0.8, 12);
    expect(out[2]).toEqual(oneRound[2]);
    expect(oneRound[0].pearson_r).toBeCloseTo(-1 / Math.sqrt(10), 12);
    expect(oneRound[1].pearson_r).toBeNull();
    expect(out[2].pearson_r).toBeCloseTo(-9 / Math.sqrt(90), 12);
  });

  /** 15 items of true quality 1–5; careful listener k is off by one on items (i + k) % 4 = 0; listener 0 inverts the scale. */
  function reverserPanel(listeners: number) {
    const truth = Array.from({ length: 15 }, (_, i) => 1 + (i % 5));
    return Array.from({ length: listeners }, (_, l) =>
      truth.map((q, i) => (l === 0 ? 6 - q : (i + l) % 4 === 0 ? Math.min(5, q + 1) : q)));
  }

  for (const size of [3, 10]) {
    it(`keeps every careful listener of a ${size}-listener panel with one scale-reverser above r = 0.25`, () => {
      const scores = reverserPanel(size);
      const r = asRatings(scores);
      const out = listenerCorrelations(r.map((x) => x[0]), r.map((x) => x[1]), r.map((x) => x[2]), size, 0.25);
      expect(out[0].pearson_r!).toBeLessThan(0);
      for (let l = 1; l < size; l++) {
        expect(out[l].n).toBe(15);
        expect(out[l].pearson_r!, `listener ${l}`).toBeGreaterThan(0.25);
      }
    });
  }

  const panel = fc.array(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 6, maxLength: 6 }), { minLength: 3, maxLength: 6 });
  const asRatings = (scores: number[][]) => scores.flatMap((row, l) => row.map((s, i) => [i, l, s] as [number, number, number]));

  it('lies in [−1, 1] and is unchanged when a listener rescales their own scores', () => {
    fc.assert(fc.property(panel, fc.integer({ min: 1, max: 3 }), fc.integer({ min: -2, max: 2 }), (scores, a, b) => {
      const before = run(asRatings(scores), scores.length);
      const rescaled = scores.map((row, l) => (l === 0 ? row.map((s) => a * s + b) : row));
      const after = run(asRatings(rescaled), scores.length)[0];
      const inRange = before.every((c) => c.pearson_r === null || Math.abs(c.pearson_r) <= 1 + 1e-12);
      const same = before[0].pearson_r === null ? after.pearson_r === null : Math.abs(after.pearson_r! - before[0].pearson_r) < 1e-9;
      return inRange && same;
    }));
  });

  it('is 1 for a listener who rates exactly as the panel does', () => {
    fc.assert(fc.property(panel, (scores) => {
      // Listener 0 copies the mean of the others (in an affine copy, to stay on integers).
      const others = scores.slice(1);
      const copy = scores[0].map((_, i) => others.reduce((s, row) => s + row[i], 0));
      const r = run(asRatings([copy, ...others]), scores.length)[0].pearson_r;
      return r === null || Math.abs(r - 1) < 1e-9;
    }));
  });
});

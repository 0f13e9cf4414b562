import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normal, seededRandom } from '../random';
import { meanOpinionScore } from './mean-opinion-score';
import { studentTQuantile } from './student-t-quantile';

describe('meanOpinionScore', () => {
  it('reproduces a P.808-style per-condition interval worked by hand', () => {
    // Ten ACR votes for one condition: 4 5 3 4 4 5 3 4 2 4.
    //   Σx = 38, n = 10 → MOS = 3.8
    //   deviations .2 1.2 −.8 .2 .2 1.2 −.8 .2 −1.8 .2; squares sum to
    //   .04 + 1.44 + .64 + .04 + .04 + 1.44 + .64 + .04 + 3.24 + .04 = 7.6
    //   s² = 7.6 / 9 = 0.84444…, s = 0.918936583
    //   t(0.975, 9) = 2.262157163 (printed tables: 2.262)
    //   s/√n = 0.918936583 / 3.162277660 = 0.290593262
    //   half-width = 2.262157163 × 0.290593262 = 0.657367631
    //   CI95 = [3.8 − 0.657367631, 3.8 + 0.657367631] = [3.142632369, 4.457367631]
    const r = meanOpinionScore([4, 5, 3, 4, 4, 5, 3, 4, 2, 4])!;
    expect(r.n).toBe(10);
    expect(r.mos).toBeCloseTo(3.8, 12);
    expect(r.sd!).toBeCloseTo(0.918936583, 9);
    expect(r.ci95![0]).toBeCloseTo(3.142632369, 8);
    expect(r.ci95![1]).toBeCloseTo(4.457367631, 8);
  });

  it('handles n = 0, n = 1 and constant scores', () => {
    expect(meanOpinionScore([])).toBeNull();
    expect(meanOpinionScore([4])).toEqual({ n: 1, mos: 4, sd: null, ci95: null });
    expect(meanOpinionScore(new Int32Array([3, 3, 3]))).toEqual({ n: 3, mos: 3, sd: 0, ci95: [3, 3] });
  });

  const scores = fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 2, maxLength: 200 });

  it('is symmetric about the MOS, lies within the t bound, and shifts with the scores', () => {
    fc.assert(fc.property(scores, fc.integer({ min: -3, max: 3 }), (x, shift) => {
      const r = meanOpinionScore(x)!;
      const [lo, hi] = r.ci95!;
      const half = (studentTQuantile(0.975, x.length - 1) * r.sd!) / Math.sqrt(x.length);
      const shifted = meanOpinionScore(x.map((v) => v + shift))!;
      return Math.abs(r.mos - lo - (hi - r.mos)) < 1e-9 && Math.abs(hi - lo - 2 * half) < 1e-9 &&
        Math.abs(shifted.mos - r.mos - shift) < 1e-9 && Math.abs(shifted.sd! - r.sd!) < 1e-9;
    }));
  });

  it('narrows like 1/√n when the same votes are repeated', () => {
    fc.assert(fc.property(scores, (x) => {
      const once = meanOpinionScore(x)!;
      const four = meanOpinionScore([...x, ...x, ...x, ...x])!;
      return four.ci95![1] - four.ci95![0] <= once.ci95![1] - once.ci95![0] + 1e-12;
    }));
  });

  it('covers the true mean of normal scores in 95% of samples, even for n = 5', () => {
    // 4000 samples: the binomial SD of the coverage is 0.34%, so 94–96% is a ±3 SD band.
    const random = seededRandom(21);
    let covered = 0;
    for (let k = 0; k < 4000; k++) {
      const [lo, hi] = meanOpinionScore(Array.from({ length: 5 }, () => 3.5 + 0.8 * normal(random)))!.ci95!;
      if (lo <= 3.5 && 3.5 <= hi) covered++;
    }
    expect(covered / 4000).toBeGreaterThanOrEqual(0.94);
    expect(covered / 4000).toBeLessThanOrEqual(0.96);
  });
});

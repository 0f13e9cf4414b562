import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitSimpleLogistic } from './logistic-regression';

describe('fitSimpleLogistic', () => {
  // Wikipedia, "Logistic regression", example "Probability of passing an exam versus hours of
  // study" (20 students). Published fit (as R's glm): intercept −4.0777 (SE 1.7610),
  // hours 1.5046 (SE 0.6287).
  const hours = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, 4, 4.25, 4.5, 4.75, 5, 5.5];
  const pass = [0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1];

  it('reproduces the published coefficients and standard errors', () => {
    const fit = fitSimpleLogistic(hours, pass)!;
    expect(fit.beta0).toBeCloseTo(-4.0777, 4);
    expect(fit.beta1).toBeCloseTo(1.5046, 4);
    expect(fit.seBeta0).toBeCloseTo(1.7610, 4);
    expect(fit.seBeta1).toBeCloseTo(0.6287, 4);
  });

  it('weights equal repeated rows', () => {
    const w = hours.map((_, i) => (i % 3) + 1);
    const xs: number[] = [];
    const ys: number[] = [];
    hours.forEach((h, i) => { for (let r = 0; r < w[i]; r++) { xs.push(h); ys.push(pass[i]); } });
    const a = fitSimpleLogistic(hours, pass, w)!;
    const b = fitSimpleLogistic(xs, ys)!;
    expect(a.beta1).toBeCloseTo(b.beta1, 8);
    expect(a.seBeta1).toBeCloseTo(b.seBeta1, 8);
  });

  it('returns null under complete separation and for no data', () => {
    expect(fitSimpleLogistic([1, 2, 3, 4], [0, 0, 1, 1])).toBeNull();
    expect(fitSimpleLogistic([], [])).toBeNull();
  });

  it('shifting x changes only the intercept', () => {
    const a = fitSimpleLogistic(hours, pass)!;
    const b = fitSimpleLogistic(hours.map((h) => h + 10), pass)!;
    expect(b.beta1).toBeCloseTo(a.beta1, 8);
    expect(b.seBeta1).toBeCloseTo(a.seBeta1, 8);
  });

  it('gives a −0 predictor the fit of +0, to the bit (both are grouped as one x)', () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.integer({ min: -3, max: 3 }), fc.boolean(), fc.integer({ min: 1, max: 5 })), { minLength: 4, maxLength: 60 }),
      (rows) => {
        const ys = rows.map(([, y]) => (y ? 1 : 0));
        const ws = rows.map(([, , w]) => w);
        const plus = fitSimpleLogistic(rows.map(([x]) => x + 0), ys, ws);
        const minus = fitSimpleLogistic(rows.map(([x]) => (x === 0 ? -0 : x)), ys, ws);
        expect(minus).toStrictEqual(plus);
      },
    ));
  });
});

import { describe, expect, it } from 'vitest';
import { abxDPrime, abxSensitivity, correctedRate, unbiasedProportionCorrect } from './abx-d-prime';
import { normalCdf, normalQuantile } from './normal';
import { binomialUpperTail } from './binomial-upper-tail';

// Reference values: scipy.stats.norm / scipy.optimize.brentq on the same equations (M&C ch. 9).
describe('ABX d′ (Macmillan & Creelman, both observer models)', () => {
  it('H = 0.7, F = 0.2 (the pysdt/DetectionTheory.jl dprimeABX example)', () => {
    expect(unbiasedProportionCorrect(0.7, 0.2)).toBeCloseTo(0.752700014046897, 7);
    const d = abxDPrime(0.7, 0.2);
    expect(d.independent).toBeCloseTo(1.8049945738197681, 5);
    expect(d.differencing).toBeCloseTo(2.0371480742175563, 5);
  });
  it.each([
    [0.6, 1.0019552620495815, 1.1152210431675844],
    [0.75, 1.7904342888943523, 2.0200391930396036],
    [0.9, 2.8072943379852995, 3.2630918373185325],
    [0.99, 4.687187791252755, 5.700868247916694],
  ])('unbiased p_c %f → d′ %f (independent), %f (differencing)', (pc, io, diff) => {
    // H = p_c, F = 1 − p_c gives exactly that unbiased p_c.
    const d = abxDPrime(pc, 1 - pc);
    expect(d.independent).toBeCloseTo(io, 5);
    expect(d.differencing).toBeCloseTo(diff, 5);
  });
  it('is 0 at chance and negative (the swapped rates’ d′) when H < F', () => {
    expect(abxDPrime(0.4, 0.4)).toEqual({ independent: 0, differencing: 0 });
    const d = abxDPrime(0.2, 0.7);
    expect(d.independent).toBeCloseTo(-1.8049945738197681, 5);
    expect(d.differencing).toBeCloseTo(-2.0371480742175563, 5);
  });
  it('replaces rates of 0 and 1 by 1/(2m) and 1 − 1/(2m)', () => {
    expect(correctedRate(10, 10)).toBe(0.95);
    expect(correctedRate(0, 10)).toBe(0.05);
    expect(correctedRate(3, 10)).toBe(0.3);
    expect(correctedRate(0, 0)).toBeNull();
    const s = abxSensitivity(10, 10, 0, 10);
    expect(s.hit_rate).toBe(0.95);
    expect(s.false_alarm_rate).toBe(0.05);
    expect(s.p_c_unbiased).toBeCloseTo(normalCdf(normalQuantile(0.95)), 7);
    expect(abxSensitivity(3, 5, 0, 0).d_prime_independent).toBeNull();
  });
});

describe('normal distribution', () => {
  it('matches scipy.stats.norm', () => {
    expect(normalQuantile(0.7)).toBeCloseTo(0.5244005127080407, 8);
    expect(normalQuantile(0.2)).toBeCloseTo(-0.8416212335729143, 8);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306167813, 7);
    expect(normalCdf(1)).toBeCloseTo(0.8413447460685429, 7);
    expect(normalQuantile(0)).toBe(-Infinity);
  });
});

describe('one-sided exact binomial P(K ≥ k | n, ½)', () => {
  it('matches scipy.stats.binom.sf(k − 1, n, ½)', () => {
    expect(binomialUpperTail(8, 10)).toBeCloseTo(0.0546875, 12);
    expect(binomialUpperTail(15, 20)).toBeCloseTo(0.020694732666015625, 12);
    expect(binomialUpperTail(60, 100)).toBeCloseTo(0.028443966820490444, 10);
    expect(binomialUpperTail(0, 7)).toBe(1);
    expect(binomialUpperTail(0, 0)).toBeNull();
    expect(() => binomialUpperTail(11, 10)).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import { ANTIPHASE, antiphaseTrial, fft, hugginsNoise, hugginsTrial, shuffled } from './headphone';

const rate = 8000;

function rms(x: Float32Array, from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i] * x[i];
  return Math.sqrt(s / (to - from));
}

function seeded(seed: number) {
  return () => (seed = (seed * 16807) % 2147483647) / 2147483647;
}

describe('antiphaseTrial', () => {
  const order = ['antiphase', 'standard', 'quiet'] as const;
  const { left, right } = antiphaseTrial(order, rate);
  const tone = ANTIPHASE.toneSeconds * rate;
  const gap = ANTIPHASE.gapSeconds * rate;
  const segment = (k: number) => [k * (tone + gap), k * (tone + gap) + tone] as const;

  it('lasts three tones and two gaps, silent between tones', () => {
    expect(left.length).toBe(3 * tone + 2 * gap);
    expect(rms(left, tone, tone + gap)).toBe(0);
  });

  it('makes the quiet tone 6 dB below the standard one', () => {
    const db = 20 * Math.log10(rms(left, ...segment(2)) / rms(left, ...segment(1)));
    expect(db).toBeCloseTo(-6.02, 2);
  });

  it('inverts only the antiphase tone between the ears', () => {
    const [a0, a1] = segment(0);
    const [s0, s1] = segment(1);
    for (let i = a0; i < a1; i += 97) expect(right[i]).toBeCloseTo(-left[i], 7);
    for (let i = s0; i < s1; i += 97) expect(right[i]).toBeCloseTo(left[i], 7);
    expect(rms(left, a0, a1)).toBeCloseTo(rms(left, s0, s1), 6);
  });
});

describe('fft', () => {
  it('inverts itself and finds a pure tone in its bin', () => {
    const n = 64;
    const re = Float64Array.from({ length: n }, (_, i) => Math.cos((2 * Math.PI * 5 * i) / n));
    const im = new Float64Array(n);
    const orig = re.slice();
    fft(re, im);
    expect(re[5]).toBeCloseTo(n / 2, 9);
    expect(Math.abs(re[6])).toBeLessThan(1e-9);
    fft(re, im, true);
    orig.forEach((x, i) => expect(re[i]).toBeCloseTo(x, 9));
  });
});

describe('hugginsNoise', () => {
  it('flips the phase of the 600 Hz ±6% band in one ear and leaves the rest identical', () => {
    const n = 8192;
    const { left, right } = hugginsNoise(n, rate, true, seeded(3));
    const spec = (x: Float32Array) => {
      const re = Float64Array.from(x);
      const im = new Float64Array(n);
      fft(re, im);
      return { re, im };
    };
    const L = spec(left);
    const R = spec(right);
    const bin = (hz: number) => Math.round((hz * n) / rate);
    for (const hz of [600, 570, 630]) {
      expect(R.re[bin(hz)]).toBeCloseTo(-L.re[bin(hz)], 6);
      expect(R.im[bin(hz)]).toBeCloseTo(-L.im[bin(hz)], 6);
    }
    for (const hz of [300, 500, 700, 2000]) {
      expect(R.re[bin(hz)]).toBeCloseTo(L.re[bin(hz)], 6);
      expect(R.im[bin(hz)]).toBeCloseTo(L.im[bin(hz)], 6);
    }
  });

  it('is identical in both ears when not inverted', () => {
    const { left, right } = hugginsNoise(1024, rate, false, seeded(5));
    expect(Array.from(right)).toEqual(Array.from(left));
  });

  it('builds a trial of three ramped one-second intervals', () => {
    const { left } = hugginsTrial(1, rate, seeded(9));
    expect(left.length).toBe(3 * rate + 2 * 0.5 * rate);
    expect(left[0]).toBe(0);
    expect(Math.max(...left.map(Math.abs))).toBeLessThanOrEqual(0.2 + 1e-6);
  });
});

describe('shuffled', () => {
  it('is a permutation', () => {
    const r = seeded(11);
    for (let t = 0; t < 20; t++) expect(shuffled([1, 2, 3, 4, 5], r).sort()).toEqual([1, 2, 3, 4, 5]);
  });
});

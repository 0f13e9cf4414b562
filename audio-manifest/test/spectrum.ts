/**
 * Measuring a filter on noise, for the anchors' tests: seeded white noise, its Welch power spectrum by
 * FFT (Hann, 4096 points, half overlap; headphone.ts's radix-2 FFT), and the attenuation of the loudest
 * bin from a frequency up to Nyquist relative to the passband's mean from 200 Hz.
 */
import { mulberry32 } from '../dither';
import { fft } from '../headphone';

const SEGMENT = 4096;

/** Near-Gaussian white noise (Irwin–Hall of four mulberry32 uniforms), sd 0.25·√(1/3)·… ≈ −17 dBFS RMS. */
export function whiteNoise(seconds: number, sampleRate: number, seed: number): Float32Array {
  const random = mulberry32(seed);
  const out = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < out.length; i++) out[i] = 0.25 * (random() + random() + random() + random() - 2);
  return out;
}

/** The Welch power spectrum of x: bin k is k·fs/4096 Hz. */
export function powerSpectrum(x: Float32Array): Float64Array {
  const power = new Float64Array(SEGMENT / 2 + 1);
  const hann = Float64Array.from({ length: SEGMENT }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / SEGMENT));
  for (let start = 0; start + SEGMENT <= x.length; start += SEGMENT / 2) {
    const re = Float64Array.from({ length: SEGMENT }, (_, i) => x[start + i] * hann[i]);
    const im = new Float64Array(SEGMENT);
    fft(re, im);
    for (let k = 0; k < power.length; k++) power[k] += re[k] * re[k] + im[k] * im[k];
  }
  return power;
}

const bin = (f: number, sampleRate: number) => Math.round((f * SEGMENT) / sampleRate);

/** Power summed over the bins from lo to hi Hz. */
export function bandPower(spectrum: Float64Array, sampleRate: number, lo: number, hi: number): number {
  let sum = 0;
  for (let k = bin(lo, sampleRate); k <= bin(hi, sampleRate); k++) sum += spectrum[k];
  return sum;
}

/** dB below the passband's mean (200 Hz – passTo) of the loudest bin at or above `from` Hz. */
export function attenuation(spectrum: Float64Array, sampleRate: number, passTo: number, from: number): number {
  const pass = bandPower(spectrum, sampleRate, 200, passTo) / (bin(passTo, sampleRate) - bin(200, sampleRate) + 1);
  let worst = 0;
  for (let k = Math.ceil((from * SEGMENT) / sampleRate); k < spectrum.length; k++) worst = Math.max(worst, spectrum[k]);
  return 10 * Math.log10(pass / worst);
}

/** The BS.1534-3 mask points of both anchors, measured on `anchor35` and `anchor70` (null above Nyquist). */
export function anchorMask(a35: Float32Array, a70: Float32Array, sampleRate: number) {
  const at = (x: Float32Array, passTo: number, from: number) => (from < sampleRate / 2 ? attenuation(powerSpectrum(x), sampleRate, passTo, from) : null);
  return { a35at4k: at(a35, 3000, 4000), a35at45k: at(a35, 3000, 4500), a70at8k: at(a70, 6000, 8000), a70at9k: at(a70, 6000, 9000) };
}

/**
 * Stimuli of the two headphone screening tests, computed as stereo sample arrays (no files).
 *
 * Antiphase (Woods et al., 2017, "Headphone screening to facilitate web-based auditory
 * experiments"): three 200 Hz tones; one is 6 dB softer, one has its right channel inverted.
 * Over headphones the soft one is clearly quietest; over loudspeakers the antiphase one partly
 * cancels in the air and sounds quieter, so loudspeaker listeners fail.
 *
 * Huggins pitch (Milne et al., 2021): three noise intervals; in one, a narrow band around 600 Hz
 * is phase-inverted in one ear. Only with one signal per ear does that band stand out as a faint
 * tone, so a single earbud or loudspeakers cannot pass.
 *
 * The server renders each round (server/store/screening.ts): the browser receives the sound it
 * plays and never which interval is the target.
 */
import { wavFile } from './wav';

export interface Stereo {
  left: Float32Array;
  right: Float32Array;
}

export type AntiphaseTone = 'standard' | 'quiet' | 'antiphase';

export const ANTIPHASE = { frequency: 200, toneSeconds: 1, gapSeconds: 0.5, rampSeconds: 0.1, amplitude: 0.25 } as const;
export const HUGGINS = { centre: 600, halfWidth: 0.06, noiseSeconds: 1, gapSeconds: 0.5, rampSeconds: 0.02, amplitude: 0.2 } as const;

/** Raised-cosine onset and offset, so tones start and stop without clicks. */
function ramp(x: Float32Array, rampSamples: number, offset: number, length: number): void {
  for (let i = 0; i < rampSamples && i < length / 2; i++) {
    const g = 0.5 - 0.5 * Math.cos((Math.PI * i) / rampSamples);
    x[offset + i] *= g;
    x[offset + length - 1 - i] *= g;
  }
}

/** The three-tone sequence of one antiphase trial, in the given order. */
export function antiphaseTrial(order: readonly AntiphaseTone[], sampleRate: number): Stereo {
  const { frequency, toneSeconds, gapSeconds, rampSeconds, amplitude } = ANTIPHASE;
  const tone = Math.round(toneSeconds * sampleRate);
  const gap = Math.round(gapSeconds * sampleRate);
  const total = order.length * tone + (order.length - 1) * gap;
  const left = new Float32Array(total);
  const right = new Float32Array(total);
  order.forEach((kind, k) => {
    const offset = k * (tone + gap);
    const a = kind === 'quiet' ? amplitude / 2 : amplitude; // −6 dB is half the amplitude
    for (let i = 0; i < tone; i++) {
      const s = a * Math.sin((2 * Math.PI * frequency * i) / sampleRate);
      left[offset + i] = s;
      right[offset + i] = kind === 'antiphase' ? -s : s;
    }
    ramp(left, Math.round(rampSeconds * sampleRate), offset, tone);
    ramp(right, Math.round(rampSeconds * sampleRate), offset, tone);
  });
  return { left, right };
}

/** A steady in-phase 200 Hz tone at the standard level, for setting a comfortable volume. */
export function calibrationTone(sampleRate: number, seconds = 2): Stereo {
  const { left } = antiphaseTrial(['standard'], sampleRate);
  const n = Math.round(seconds * sampleRate);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = left[i % left.length];
  return { left: out, right: out.slice() };
}

/** In-place radix-2 FFT (inverse when `inverse`); n must be a power of two. */
export function fft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const angle = ((inverse ? 2 : -2) * Math.PI) / len;
    const wr = Math.cos(angle);
    const wi = Math.sin(angle);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const tr = re[b] * cr - im[b] * ci;
        const ti = re[b] * ci + im[b] * cr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
        const next = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = next;
      }
    }
  }
  if (inverse) for (let i = 0; i < n; i++) (re[i] /= n), (im[i] /= n);
}

/**
 * White noise of n samples (power of two) built in the frequency domain, identical in both ears
 * except that, when `inverted`, the band centre·(1 ± halfWidth) has its phase flipped in the right ear.
 */
export function hugginsNoise(n: number, sampleRate: number, inverted: boolean, random: () => number = Math.random): Stereo {
  const { centre, halfWidth, amplitude } = HUGGINS;
  const lre = new Float64Array(n);
  const lim = new Float64Array(n);
  const rre = new Float64Array(n);
  const rim = new Float64Array(n);
  const lo = (centre * (1 - halfWidth) * n) / sampleRate;
  const hi = (centre * (1 + halfWidth) * n) / sampleRate;
  for (let k = 1; k < n / 2; k++) {
    const phase = 2 * Math.PI * random();
    const re = Math.cos(phase);
    const im = Math.sin(phase);
    const sign = inverted && k >= lo && k <= hi ? -1 : 1;
    lre[k] = re;
    lim[k] = im;
    rre[k] = sign * re;
    rim[k] = sign * im;
    // Conjugate symmetry keeps the signal real.
    lre[n - k] = re;
    lim[n - k] = -im;
    rre[n - k] = sign * re;
    rim[n - k] = -sign * im;
  }
  fft(lre, lim, true);
  fft(rre, rim, true);
  let peak = 0;
  for (let i = 0; i < n; i++) peak = Math.max(peak, Math.abs(lre[i]), Math.abs(rre[i]));
  const scale = amplitude / peak;
  return { left: Float32Array.from(lre, (x) => x * scale), right: Float32Array.from(rre, (x) => x * scale) };
}

/** Three noise intervals with the Huggins band in interval `target` (0-based). */
export function hugginsTrial(target: number, sampleRate: number, random: () => number = Math.random): Stereo {
  const { noiseSeconds, gapSeconds, rampSeconds } = HUGGINS;
  const len = Math.round(noiseSeconds * sampleRate);
  const gap = Math.round(gapSeconds * sampleRate);
  const n = 2 ** Math.ceil(Math.log2(len));
  const total = 3 * len + 2 * gap;
  const left = new Float32Array(total);
  const right = new Float32Array(total);
  for (let k = 0; k < 3; k++) {
    const noise = hugginsNoise(n, sampleRate, k === target, random);
    const offset = k * (len + gap);
    left.set(noise.left.subarray(0, len), offset);
    right.set(noise.right.subarray(0, len), offset);
    ramp(left, Math.round(rampSeconds * sampleRate), offset, len);
    ramp(right, Math.round(rampSeconds * sampleRate), offset, len);
  }
  return { left, right };
}

/** A uniformly shuffled copy (Fisher–Yates). */
export function shuffled<T>(items: readonly T[], random: () => number = Math.random): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A stereo stimulus as a 16-bit PCM WAV file, the form the browser fetches and decodes. */
export function stereoWav(s: Stereo, sampleRate: number): Uint8Array {
  const pcm = new Int16Array(s.left.length * 2);
  for (let i = 0; i < s.left.length; i++) {
    pcm[2 * i] = Math.max(-32768, Math.min(32767, Math.round(s.left[i] * 32768)));
    pcm[2 * i + 1] = Math.max(-32768, Math.min(32767, Math.round(s.right[i] * 32768)));
  }
  return wavFile(pcm, 2, sampleRate);
}

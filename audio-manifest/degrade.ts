/**
 * The clearly degraded copy of a rendition: the A/B attention check's worse side (issue 19 item 4). A
 * listener who hears both sides prefers the intact one; one who picks the degraded copy was not listening.
 *
 * What is done, in this order, in double precision on each channel:
 *
 * 1. **Low-pass**: a 4th-order Butterworth low-pass at fc = 1 kHz (fs/4 when the sample rate is below
 *    4 kHz), made of two biquad sections (Q = 1/(2·cos(π/8)) ≈ 0.5412 and Q = 1/(2·cos(3π/8)) ≈ 1.3066)
 *    by the bilinear transform with the cutoff prewarped (the Audio EQ Cookbook's LPF, R. Bristow-Johnson),
 *    run forward from rest. Its magnitude is that of the analogue prototype, 1/√(1 + (Ω/Ωc)⁸) with
 *    Ω = tan(π·f/fs): −3.01 dB at 1 kHz, and, as degrade.test.ts measures on steady tones,
 *    −25.50 dB at 2 kHz and −56.11 dB at 4 kHz at 16 kHz (−24.25 dB and −48.92 dB at 48 kHz), flat
 *    (−0.02 dB) at 500 Hz, and −15 dB at 1.5 kHz, falling 24 dB per octave beyond. Speech keeps its
 *    first formants and loses what makes it crisp above 1.5 kHz (second formants, the fricatives s, f,
 *    sh at 3–8 kHz, the consonants' bursts): it sounds muffled, as through a wall.
 * 2. **White noise** at a signal-to-noise ratio of 10 dB: noise power = (the low-passed clip's mean
 *    power over all its samples and channels) / 10, so pauses count and speech is a little above
 *    10 dB over the noise. The noise is full-band, so over the muffled speech there is a plain hiss
 *    where the speech's high frequencies were: two faults at once, each audible on its own on any
 *    headphones or loudspeaker. Each noise sample is the sum of four uniforms of mulberry32 (dither.ts),
 *    centred and scaled to unit variance (Irwin–Hall, near-Gaussian), seeded with the first 32 bits of
 *    the source file's sha256: the same source gives the same copy, sample for sample (only + − × and
 *    √, which IEEE 754 rounds exactly, touch the noise; the filter's coefficients come from tan/sin/cos
 *    once per sample rate).
 * 3. **Level**: scaled so the copy's RMS equals the source's (the A/B difference is the quality, not
 *    the loudness; served copies are loudness-normalised again anyway), lowered if needed so that no
 *    sample exceeds −1 dBFS.
 *
 * Edge cases: digital silence (or a clip with nothing left after the low-pass) stays silence, with no
 * noise (there is no level to be 10 dB under). The copy has the source's sample rate, channel count and
 * length; channels are filtered independently and get independent noise.
 */
import { mulberry32 } from './dither';

/** The degraded copy's low-pass cutoff, Hz. */
export const LOWPASS_HZ = 1000;
/** The degraded copy's signal-to-noise ratio, dB (low-passed signal over added white noise). */
export const SNR_DB = 10;
/** No sample of a degraded copy goes above this. */
const PEAK_CEILING = 10 ** (-1 / 20);
const BUTTERWORTH_Q = [1 / (2 * Math.cos(Math.PI / 8)), 1 / (2 * Math.cos((3 * Math.PI) / 8))];

/** What every degraded system's name starts with. */
export const DEGRADED_PREFIX = 'degraded:';

/**
 * The system name of system's degraded copies: `degraded:<system>`. Its rendition of utterance U is the
 * degraded copy of system's rendition of U. Real system names cannot contain ':' (the renditions importer
 * refuses them), so this name is never a system's own.
 */
export function degradedSystem(system: string): string {
  return `${DEGRADED_PREFIX}${system}`;
}

/** The system whose renditions a degraded system's are copies of; null for any other system. */
export function cleanSystemOf(system: string): string | null {
  return system.startsWith(DEGRADED_PREFIX) ? system.slice(DEGRADED_PREFIX.length) : null;
}

export interface Pcm {
  /** One array of samples in [-1, 1] per channel. */
  channels: Float32Array[];
  sampleRate: number;
}

interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

/** One cookbook LPF section (normalised by a0). */
function lowPassSection(cutoff: number, sampleRate: number, q: number): Biquad {
  const w0 = (2 * Math.PI * cutoff) / sampleRate;
  const cos = Math.cos(w0);
  const alpha = Math.sin(w0) / (2 * q);
  const a0 = 1 + alpha;
  return { b0: (1 - cos) / 2 / a0, b1: (1 - cos) / a0, b2: (1 - cos) / 2 / a0, a1: (-2 * cos) / a0, a2: (1 - alpha) / a0 };
}

/** The 4th-order Butterworth low-pass of step 1 (file comment), in doubles. */
export function lowPass(channel: Float32Array, sampleRate: number): Float64Array {
  const cutoff = Math.min(LOWPASS_HZ, sampleRate / 4);
  const out = Float64Array.from(channel);
  for (const q of BUTTERWORTH_Q) {
    const { b0, b1, b2, a1, a2 } = lowPassSection(cutoff, sampleRate, q);
    // Transposed direct form II: two state variables per section.
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < out.length; i++) {
      const x = out[i];
      const y = b0 * x + s1;
      s1 = b1 * x - a1 * y + s2;
      s2 = b2 * x - a2 * y;
      out[i] = y;
    }
  }
  return out;
}

/** The PRNG's seed: the first 32 bits of the source's sha256 (hex). */
function seedOf(sha256: string): number {
  const seed = Number.parseInt(sha256.slice(0, 8), 16);
  if (!/^[0-9a-f]{8}/i.test(sha256) || !Number.isFinite(seed)) throw new Error(`degrade: seed must be a sha256 in hex, got ${JSON.stringify(sha256)}`);
  return seed;
}

function meanSquare(channels: readonly (Float32Array | Float64Array)[]): number {
  let sum = 0;
  let count = 0;
  for (const channel of channels) {
    for (let i = 0; i < channel.length; i++) sum += channel[i] * channel[i];
    count += channel.length;
  }
  return count === 0 ? 0 : sum / count;
}

/**
 * The clearly degraded copy of `pcm` (file comment): low-passed at 1 kHz, white noise at 10 dB SNR,
 * at the source's RMS. `sourceSha256` (the source file's sha256, hex) seeds the noise.
 */
export function degrade(pcm: Pcm, sourceSha256: string): Float32Array[] {
  const random = mulberry32(seedOf(sourceSha256));
  const filtered = pcm.channels.map((channel) => lowPass(channel, pcm.sampleRate));
  const signalPower = meanSquare(filtered);
  if (signalPower === 0) return pcm.channels.map((channel) => new Float32Array(channel.length));
  const noiseRms = Math.sqrt(signalPower / 10 ** (SNR_DB / 10));
  // Irwin–Hall with four uniforms: mean 2, variance 1/3; centred and scaled to unit variance.
  const scale = noiseRms * Math.sqrt(3);
  for (const channel of filtered) {
    for (let i = 0; i < channel.length; i++) channel[i] += scale * (random() + random() + random() + random() - 2);
  }
  return atLevelOf(pcm.channels, filtered);
}

/**
 * `processed` scaled so its RMS equals `source`'s, lowered if needed so that no sample exceeds −1 dBFS
 * (step 3 of the file comment; the MUSHRA anchors' level too, anchors.ts). Silence stays silence.
 */
export function atLevelOf(source: readonly Float32Array[], processed: readonly Float64Array[]): Float32Array[] {
  const power = meanSquare(processed);
  if (power === 0) return processed.map((channel) => new Float32Array(channel.length));
  let gain = Math.sqrt(meanSquare(source) / power);
  let peak = 0;
  for (const channel of processed) for (let i = 0; i < channel.length; i++) peak = Math.max(peak, Math.abs(channel[i]));
  if (peak * gain > PEAK_CEILING) gain = PEAK_CEILING / peak;
  return processed.map((channel) => {
    const out = new Float32Array(channel.length);
    for (let i = 0; i < channel.length; i++) out[i] = channel[i] * gain;
    return out;
  });
}

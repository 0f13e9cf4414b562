/**
 * The degraded copy's signal processing (degrade.ts), measured on tones: the low-pass's attenuation
 * figures the doc comment states, the noise's SNR, the level, determinism, and what "clearly worse" means
 * for a signal with low and high content.
 */
import { describe, expect, it } from 'vitest';
import { cleanSystemOf, degrade, degradedSystem, lowPass, SNR_DB } from '../degrade';
import { rmsDb, sine } from './audio';

const SHA = 'a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9';
const OTHER_SHA = '0badc0ffee0ddf00d0000000000000000000000000000000000000000000000';
const tone = (seconds: number, rate: number, hz: number, amplitude = 0.5) => Float32Array.from(sine(seconds, rate, hz, amplitude));
/** Steady state: the filter's start transient (well under 50 ms at 1 kHz) left out. */
const steady = (x: ArrayLike<number>, rate: number) => Array.from(x).slice(Math.round(0.25 * rate));

/**
 * The least-squares fit of a sinusoid at `hz` to x (over whole periods, sine and cosine are orthogonal):
 * its level in dB (of its amplitude) and what is left of x without it.
 */
function fit(x: number[], rate: number, hz: number): { db: number; residual: number[] } {
  const w = (2 * Math.PI * hz) / rate;
  let s = 0;
  let c = 0;
  for (let i = 0; i < x.length; i++) {
    s += x[i] * Math.sin(w * i);
    c += x[i] * Math.cos(w * i);
  }
  const [a, b] = [(2 * s) / x.length, (2 * c) / x.length];
  return { db: 20 * Math.log10(Math.hypot(a, b)), residual: x.map((v, i) => v - a * Math.sin(w * i) - b * Math.cos(w * i)) };
}

describe('the degraded copy', () => {
  it('low-passes with the 4th-order Butterworth response the doc comment states: −3 dB at 1 kHz, −25.5 dB at 2 kHz, −56.1 dB at 4 kHz (16 kHz), −24.3 and −48.9 dB (48 kHz)', () => {
    const measured = (rate: number, hz: number) => {
      const x = tone(1.25, rate, hz);
      return rmsDb(steady(lowPass(x, rate), rate)) - rmsDb(steady(x, rate));
    };
    // The doc comment's figures, to its rounding.
    const figures: [number, number, number][] = [
      [16000, 500, -0.02], [16000, 1000, -3.01], [16000, 2000, -25.5], [16000, 4000, -56.11],
      [48000, 500, -0.02], [48000, 1000, -3.01], [48000, 2000, -24.25], [48000, 4000, -48.92],
    ];
    for (const [rate, hz, db] of figures) expect(measured(rate, hz), `${hz} Hz at ${rate} Hz`).toBeCloseTo(db, 1);
    // And the bilinear-transformed prototype's magnitude, 1/√(1 + (Ω/Ωc)⁸) with Ω = tan(πf/fs), at other points.
    const prototype = (rate: number, hz: number) => -10 * Math.log10(1 + (Math.tan((Math.PI * hz) / rate) / Math.tan((Math.PI * 1000) / rate)) ** 8);
    for (const [rate, hz] of [[16000, 1500], [22050, 3000], [44100, 6000]]) expect(measured(rate, hz)).toBeCloseTo(prototype(rate, hz), 1);
  });

  it('adds white noise 10 dB under the low-passed signal and keeps the source RMS, the peak under −1 dBFS', () => {
    const rate = 16000;
    const x = tone(2, rate, 440, 0.3);
    const [y] = degrade({ channels: [x], sampleRate: rate }, SHA);
    expect(y).toHaveLength(x.length);
    expect(rmsDb(y)).toBeCloseTo(rmsDb(x), 2);
    // The 440 Hz component (the low-pass passes it at −0.00 dB), and the rest: the noise. A sine's RMS is its amplitude − 3.01 dB.
    const { db, residual } = fit(steady(y, rate), rate, 440);
    const snr = db - 3.01 - rmsDb(residual);
    expect(snr).toBeGreaterThan(SNR_DB - 0.3);
    expect(snr).toBeLessThan(SNR_DB + 0.3);

    // A source near full scale: the copy is lowered so no sample is above −1 dBFS.
    const loud = Float32Array.from(tone(1, rate, 300, 0.99), (v) => Math.sign(v) * Math.min(0.99, Math.abs(v) * 3));
    const [limited] = degrade({ channels: [loud], sampleRate: rate }, SHA);
    expect(Math.max(...limited.map(Math.abs))).toBeLessThanOrEqual(10 ** (-1 / 20) + 1e-7);
  });

  it('is clearly worse: of equal low and high tones, the high one ends 40 dB under the low one, below the noise', () => {
    const rate = 16000;
    const low = tone(2, rate, 300, 0.25);
    const high = tone(2, rate, 3000, 0.25);
    const both = low.map((v, i) => v + high[i]);
    const [y] = degrade({ channels: [both], sampleRate: rate }, SHA);
    const balance = (x: ArrayLike<number>) => fit(steady(x, rate), rate, 3000).db - fit(steady(x, rate), rate, 300).db;
    const [before, after] = [balance(both), balance(y)];
    expect(before).toBeCloseTo(0, 1);
    expect(after).toBeLessThan(-40);
  });

  it('is deterministic: the same source and sha256 give the same samples, another sha256 other noise; silence stays silence', () => {
    const rate = 22050;
    const stereo = [tone(0.5, rate, 250), tone(0.5, rate, 700, 0.2)];
    const a = degrade({ channels: stereo, sampleRate: rate }, SHA);
    const b = degrade({ channels: stereo.map((ch) => ch.slice()), sampleRate: rate }, SHA);
    expect(a).toHaveLength(2);
    expect(Buffer.from(a[0].buffer).equals(Buffer.from(b[0].buffer))).toBe(true);
    expect(Buffer.from(a[1].buffer).equals(Buffer.from(b[1].buffer))).toBe(true);
    // Channels get independent noise, and another source's sha256 other noise.
    const other = degrade({ channels: stereo, sampleRate: rate }, OTHER_SHA);
    expect(Buffer.from(other[0].buffer).equals(Buffer.from(a[0].buffer))).toBe(false);
    // The source is not modified.
    expect(stereo[0]).toEqual(tone(0.5, rate, 250));
    const [silent] = degrade({ channels: [new Float32Array(1000)], sampleRate: rate }, SHA);
    expect(silent.every((v) => v === 0)).toBe(true);
    expect(() => degrade({ channels: stereo, sampleRate: rate }, 'not-a-hash')).toThrow(/sha256 in hex/);
  });

  it('names a system\'s degraded copies degraded:<system>, and a degraded system its clean one', () => {
    expect(degradedSystem('espeak-en-slow')).toBe('degraded:espeak-en-slow');
    expect(cleanSystemOf(degradedSystem('espeak-en-slow'))).toBe('espeak-en-slow');
    expect(cleanSystemOf('espeak-en-slow')).toBeNull();
  });
});

/**
 * The MUSHRA anchors meet BS.1534-3's mask (anchors.ts): seeded white noise through each anchor's
 * filter, its Welch power spectrum by FFT (Hann, 4096 points, half overlap), and the attenuation of
 * every bin from the mask's frequency up relative to the passband's mean (200 Hz – 3 kHz, or 6 kHz).
 */
import { describe, expect, it } from 'vitest';
import { anchor, ANCHORS, lowPassTaps } from './anchors';
import { mulberry32 } from './dither';
import { fft } from './headphone';

const SEGMENT = 4096;

function whiteNoise(seconds: number, sampleRate: number, seed: number): Float32Array {
  const random = mulberry32(seed);
  const out = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < out.length; i++) out[i] = 0.25 * (random() + random() + random() + random() - 2);
  return out;
}

/** The Welch power spectrum of x: bin k is k·fs/SEGMENT Hz. */
function powerSpectrum(x: Float32Array): Float64Array {
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

/** dB below the passband's mean of the loudest bin at or above `from` Hz (up to Nyquist). */
function attenuation(spectrum: Float64Array, sampleRate: number, passTo: number, from: number): number {
  const bin = (f: number) => Math.round((f * SEGMENT) / sampleRate);
  let pass = 0;
  for (let k = bin(200); k <= bin(passTo); k++) pass += spectrum[k] / (bin(passTo) - bin(200) + 1);
  let worst = 0;
  for (let k = Math.ceil((from * SEGMENT) / sampleRate); k < spectrum.length; k++) worst = Math.max(worst, spectrum[k]);
  return 10 * Math.log10(pass / worst);
}

describe('MUSHRA anchors (BS.1534-3 mask)', () => {
  for (const sampleRate of [48000, 44100, 16000]) {
    it(`meets the mask at ${sampleRate} Hz: anchor35 ≥ 25 dB from 4 kHz and ≥ 50 dB from 4.5 kHz; anchor70 ≥ 25 dB from 8 kHz and ≥ 50 dB from 9 kHz`, () => {
      const noise = whiteNoise(6, sampleRate, 0x5eed);
      const input = powerSpectrum(noise);
      const a35 = powerSpectrum(anchor({ channels: [noise], sampleRate }, 'anchor35')[0]);
      const a70 = powerSpectrum(anchor({ channels: [noise], sampleRate }, 'anchor70')[0]);
      const measured = {
        a35at4k: attenuation(a35, sampleRate, 3000, 4000),
        a35at45k: attenuation(a35, sampleRate, 3000, 4500),
        a70at8k: sampleRate > 16000 ? attenuation(a70, sampleRate, 6000, 8000) : null,
        a70at9k: sampleRate > 18000 ? attenuation(a70, sampleRate, 6000, 9000) : null,
        // The input noise itself is flat: its "attenuation" is about 0 dB, so the measure is not the filter's alone.
        inputAt45k: attenuation(input, sampleRate, 3000, 4500),
      };
      console.log(`anchors at ${sampleRate} Hz (dB):`, JSON.stringify(Object.fromEntries(Object.entries(measured).map(([k, v]) => [k, v === null ? null : Math.round(v * 10) / 10]))));
      expect(measured.a35at4k).toBeGreaterThanOrEqual(25);
      expect(measured.a35at45k).toBeGreaterThanOrEqual(50);
      if (measured.a70at8k !== null) expect(measured.a70at8k).toBeGreaterThanOrEqual(25);
      if (measured.a70at9k !== null) expect(measured.a70at9k).toBeGreaterThanOrEqual(50);
      expect(Math.abs(measured.inputAt45k)).toBeLessThan(3);
      // The passband is kept: anchor70 passes 200 Hz – 6 kHz within 1 dB of the input (level aside).
      const band = (s: Float64Array, lo: number, hi: number) => {
        let sum = 0;
        for (let k = Math.round((lo * SEGMENT) / sampleRate); k <= Math.round((hi * SEGMENT) / sampleRate); k++) sum += s[k];
        return sum;
      };
      const tilt = (s: Float64Array) => 10 * Math.log10(band(s, 200, 1500) / band(s, 1500, 3000));
      expect(Math.abs(tilt(a35) - tilt(input))).toBeLessThan(1);
    });
  }

  it('keeps the source’s RMS, length and alignment: a 1 kHz tone passes through anchor35 unchanged, sample for sample', () => {
    const sampleRate = 48000;
    const tone = Float32Array.from({ length: sampleRate }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 1000 * i) / sampleRate));
    const [out] = anchor({ channels: [tone], sampleRate }, 'anchor35');
    expect(out.length).toBe(tone.length);
    const taps = lowPassTaps(ANCHORS.anchor35.cutoffHz, ANCHORS.anchor35.transitionHz, sampleRate);
    // Away from the clip's edges (the filter's half length), the tone comes out as it went in: no delay.
    let err = 0;
    for (let i = taps.length; i < tone.length - taps.length; i++) err = Math.max(err, Math.abs(out[i] - tone[i]));
    expect(err).toBeLessThan(2e-3);
    expect(anchor({ channels: [new Float32Array(100)], sampleRate }, 'anchor70')[0].every((v) => v === 0)).toBe(true);
  });
});

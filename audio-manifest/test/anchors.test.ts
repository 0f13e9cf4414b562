/**
 * The MUSHRA anchors meet BS.1534-3's mask (anchors.ts): seeded white noise through each anchor's
 * filter, its Welch power spectrum by FFT, and the attenuation of every bin from the mask's frequency
 * up relative to the passband's mean (spectrum.ts). The served copies are measured in degraded.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { anchor, ANCHORS, lowPassTaps } from '../anchors';
import { anchorMask, attenuation, bandPower, powerSpectrum, whiteNoise } from './spectrum';

const round = (m: Record<string, number | null>) => JSON.stringify(Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v === null ? null : Math.round(v * 10) / 10])));

describe('MUSHRA anchors (BS.1534-3 mask)', () => {
  for (const sampleRate of [48000, 44100, 16000]) {
    it(`meets the mask at ${sampleRate} Hz: anchor35 ≥ 25 dB from 4 kHz and ≥ 50 dB from 4.5 kHz; anchor70 ≥ 25 dB from 8 kHz and ≥ 50 dB from 9 kHz`, () => {
      const noise = whiteNoise(6, sampleRate, 0x5eed);
      const pcm = { channels: [noise], sampleRate };
      const [a35] = anchor(pcm, 'anchor35');
      const [a70] = anchor(pcm, 'anchor70');
      const mask = anchorMask(a35, a70, sampleRate);
      console.log(`anchors at ${sampleRate} Hz, attenuation (dB):`, round(mask));
      expect(mask.a35at4k!).toBeGreaterThanOrEqual(25);
      expect(mask.a35at45k!).toBeGreaterThanOrEqual(50);
      if (mask.a70at8k !== null) expect(mask.a70at8k).toBeGreaterThanOrEqual(25);
      if (mask.a70at9k !== null) expect(mask.a70at9k).toBeGreaterThanOrEqual(50);
      // The measure is the filter's: the input noise itself is flat (about 0 dB "attenuation").
      const input = powerSpectrum(noise);
      expect(Math.abs(attenuation(input, sampleRate, 3000, 4500))).toBeLessThan(3);
      // The passband is kept: the spectrum's tilt over 200 Hz – 3 kHz is the input's within 1 dB.
      const tilt = (s: Float64Array) => 10 * Math.log10(bandPower(s, sampleRate, 200, 1500) / bandPower(s, sampleRate, 1500, 3000));
      expect(Math.abs(tilt(powerSpectrum(a35)) - tilt(input))).toBeLessThan(1);
    });
  }

  it('keeps the source’s length and alignment: a 1 kHz tone passes through anchor35 unchanged, sample for sample; silence stays silence', () => {
    const sampleRate = 48000;
    const tone = Float32Array.from({ length: sampleRate }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 1000 * i) / sampleRate));
    const [out] = anchor({ channels: [tone], sampleRate }, 'anchor35');
    expect(out.length).toBe(tone.length);
    const taps = lowPassTaps(ANCHORS.anchor35.cutoffHz, ANCHORS.anchor35.transitionHz, sampleRate);
    let err = 0;
    for (let i = taps.length; i < tone.length - taps.length; i++) err = Math.max(err, Math.abs(out[i] - tone[i]));
    expect(err).toBeLessThan(2e-3);
    expect(anchor({ channels: [new Float32Array(100)], sampleRate }, 'anchor70')[0].every((v) => v === 0)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { Loudness } from '../../contract/study-definition';
import { onPcm16Grid, toPcm16 } from '../dither';
import { activeSpeechLevel, integratedLoudness, measureLevel, rmsDbfs } from '../loudness';
import { kWeighting } from '../loudness/bs1770';
import { renderServedCopy } from '../served';
import { readCanonicalWav, rmsDb, sine, wavBytes } from './audio';

const FS = 48000;
const tone = (seconds: number, dbfs: number, frequency = 1000, fs = FS) => Float32Array.from(sine(seconds, fs, frequency, 10 ** (dbfs / 20)));
const join = (...parts: Float32Array[]) => {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), (at += p.length);
  return out;
};
const silence = (seconds: number, fs = FS) => new Float32Array(Math.round(seconds * fs));

describe('ITU-R BS.1770-4 integrated loudness (LUFS)', () => {
  it('has the standard\'s K-weighting coefficients at 48 kHz', () => {
    const [shelf, highPass] = kWeighting(48000);
    // BS.1770-4 Tables 1 and 2.
    expect(shelf.b0).toBeCloseTo(1.53512485958697, 10);
    expect(shelf.b1).toBeCloseTo(-2.69169618940638, 10);
    expect(shelf.b2).toBeCloseTo(1.19839281085285, 10);
    expect(shelf.a1).toBeCloseTo(-1.69065929318241, 10);
    expect(shelf.a2).toBeCloseTo(0.73248077421585, 10);
    expect(highPass.a1).toBeCloseTo(-1.99004745483398, 10);
    expect(highPass.a2).toBeCloseTo(0.99007225036621, 10);
  });

  it('reads a 0 dBFS 997 Hz sine in one channel as -3.01 LKFS, and so a -20 dBFS one as -23.01 (§2.1)', () => {
    expect(integratedLoudness([tone(5, 0, 997)], FS)).toBeCloseTo(-3.01, 1);
    expect(integratedLoudness([tone(5, -20, 997)], FS)).toBeCloseTo(-23.01, 1);
    // The same at 16 kHz, where the filters come from the bilinear transform rather than the table.
    expect(integratedLoudness([tone(5, -20, 997, 16000)], 16000)).toBeCloseTo(-23.01, 1);
  });

  it('passes EBU Tech 3341 cases 1, 2, 3 and 5 (stereo 1 kHz): the gates drop the quiet parts, not the loud', () => {
    const stereo = (x: Float32Array) => [x, x];
    const within = (v: number | null, expected: number) => expect(Math.abs(v! - expected)).toBeLessThanOrEqual(0.1);
    within(integratedLoudness(stereo(tone(20, -23)), FS), -23); // case 1
    within(integratedLoudness(stereo(tone(20, -33)), FS), -33); // case 2
    within(integratedLoudness(stereo(join(tone(10, -36), tone(60, -23), tone(10, -36))), FS), -23); // case 3: relative gate
    within(integratedLoudness(stereo(join(tone(20, -26), tone(20.1, -20), tone(20, -26))), FS), -23); // case 5
    // Case 4's −72 dBFS parts sit under the −70 LKFS absolute gate.
    within(integratedLoudness(stereo(join(tone(10, -72), tone(10, -36), tone(60, -23), tone(10, -36), tone(10, -72))), FS), -23);
  });

  it('has no level for silence or a clip under the absolute gate, and measures a clip shorter than a block as one block', () => {
    expect(integratedLoudness([silence(1)], FS)).toBeNull();
    expect(integratedLoudness([tone(1, -80)], FS)).toBeNull();
    expect(integratedLoudness([tone(0.3, -20, 997)], FS)).toBeCloseTo(-23.01, 0);
  });
});

describe('ITU-T P.56 method B active speech level (dBov)', () => {
  it('reads a steady tone at its RMS level, all of it active', () => {
    const level = activeSpeechLevel([tone(3, -20, 440, 16000)], 16000)!;
    expect(level.level).toBeCloseTo(-23.01, 1);
    expect(level.activity).toBeGreaterThan(0.97);
  });

  it('reads the level while talking, not the whole-clip RMS, when half the clip is silence', () => {
    // 2 s on, 2 s off, twice: the whole-clip RMS is 3 dB below the bursts.
    const bursts = join(tone(2, -20, 440, 16000), silence(2, 16000), tone(2, -20, 440, 16000), silence(2, 16000));
    const rms = rmsDbfs([bursts])!;
    const speech = activeSpeechLevel([bursts], 16000)!;
    expect(rms).toBeCloseTo(-26.02, 1);
    // Active: the 4 s of tone plus, after each burst, the 0.2 s hangover and the envelope's decay to the
    // threshold (0–0.1 s): 4.4–4.6 s of 8, so the level is the bursts' less 10·log10(4.4/4 … 4.6/4) dB.
    expect(speech.activity).toBeGreaterThan(4.4 / 8);
    expect(speech.activity).toBeLessThan(4.6 / 8);
    expect(speech.level).toBeGreaterThan(-23.01 - 10 * Math.log10(4.6 / 4));
    expect(speech.level).toBeLessThan(-23.01 - 10 * Math.log10(4.4 / 4));
    expect(speech.level - rms).toBeGreaterThan(2);
  });

  it('ignores low-level noise in the pauses, and has no level for digital silence', () => {
    let seed = 7;
    const noise = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 2 * 10 ** (-70 / 20);
    const clip = join(tone(2, -20, 440, 16000), silence(2, 16000).map(noise), tone(2, -20, 440, 16000));
    expect(Math.abs(activeSpeechLevel([clip], 16000)!.level - -23.01)).toBeLessThan(0.5);
    expect(activeSpeechLevel([silence(1, 16000)], 16000)).toBeNull();
  });
});

describe('TPDF dither', () => {
  it('is reproducible from its seed, differs between seeds, and stays within ±1 LSB of rounding', () => {
    const x = [tone(0.5, -40, 440, 16000)];
    const a = toPcm16(x, 0.5, 42);
    expect(toPcm16(x, 0.5, 42)).toEqual(a);
    expect(toPcm16(x, 0.5, 43)).not.toEqual(a);
    const plain = toPcm16(x, 0.5, null);
    expect(Math.max(...a.map((v, i) => Math.abs(v - plain[i])))).toBeLessThanOrEqual(1);
  });

  it('makes the error signal-independent: a constant half an LSB averages to itself instead of rounding to one step', () => {
    const halfLsb = new Float32Array(20000).fill(0.25 / 32768);
    expect(toPcm16([halfLsb], 1, null).every((v) => v === 0)).toBe(true);
    const mean = toPcm16([halfLsb], 1, 9).reduce((s, v) => s + v, 0) / 20000;
    expect(mean).toBeCloseTo(0.25, 1);
  });

  it('knows a clip already on the 16-bit grid', () => {
    const x = [Float32Array.from([0, 1 / 32768, -5 / 32768])];
    expect(onPcm16Grid(x, 1)).toBe(true);
    expect(onPcm16Grid(x, 1.1)).toBe(false);
  });
});

describe('study loudness settings and the copies they make', () => {
  it('default to the P.56 active speech level at -26 dBov, dithered; each measure has its own default target', () => {
    expect(Loudness.parse({})).toEqual({ normalize: true, measure: 'speech-level', target: -26, dither: true });
    expect(Loudness.parse({ measure: 'integrated' })).toMatchObject({ target: -23 });
    expect(Loudness.parse({ measure: 'rms', target: -30 })).toMatchObject({ target: -30, dither: true });
    // A definition stored before measures existed keeps whole-clip RMS without dither.
    expect(Loudness.parse({ normalize: true, targetDbfs: -23 })).toEqual({ normalize: true, measure: 'rms', target: -23, dither: false });
    expect(Loudness.safeParse({ measure: 'peak' }).success).toBe(false);
  });

  it('bring a clip with pauses to the target by each measure, measured on the served PCM', async () => {
    const source = wavBytes({ sampleRate: 16000, channels: [[...join(tone(1.5, -12, 300, 16000), silence(1.5, 16000), tone(1, -12, 300, 16000))]] });
    for (const [measure, target] of [['speech-level', -26], ['integrated', -23], ['rms', -23]] as const) {
      const copy = await renderServedCopy(source, Loudness.parse({ measure, target }));
      const samples = Float32Array.from(readCanonicalWav(copy.wav).samples);
      expect(Math.abs(measureLevel(measure, [samples], 16000)! - target), measure).toBeLessThan(0.05);
      expect(copy.loudnessDbfs).toBeCloseTo(target, 1);
      expect(copy.dithered).toBe(true);
    }
    // The speech level ignores the pauses, so at -26 dBov the whole-clip RMS is well below -26.
    const speech = await renderServedCopy(source, Loudness.parse({}));
    expect(rmsDb(readCanonicalWav(speech.wav).samples)).toBeLessThan(-26 - 1.5);
  });

  it('dither reproducibly: the same audio gives the same bytes whatever its metadata; a 16-bit source at unity gain is copied exactly', async () => {
    const source = wavBytes({ sampleRate: 16000, bits: 24, channels: [sine(0.5, 16000, 300, 0.1)] });
    const settings = Loudness.parse({});
    const once = await renderServedCopy(source, settings);
    expect(once.dithered).toBe(true);
    expect((await renderServedCopy(source, settings)).wav).toEqual(once.wav);
    expect((await renderServedCopy(wavBytes({ sampleRate: 16000, bits: 24, extraChunks: true, channels: [sine(0.5, 16000, 300, 0.1)] }), settings)).wav).toEqual(once.wav);
    // Without dither the same copy differs: the noise really is there.
    expect((await renderServedCopy(source, { ...settings, dither: false })).wav).not.toEqual(once.wav);
    const sixteen = wavBytes({ sampleRate: 16000, channels: [sine(0.5, 16000, 300, 0.1)] });
    const off = await renderServedCopy(sixteen, Loudness.parse({ normalize: false }));
    expect(off.dithered).toBe(false);
    expect(readCanonicalWav(off.wav).samples).toEqual(readCanonicalWav(sixteen).samples);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyseAudio } from '../decode';
import { loudnessGain, PEAK_CEILING_DBFS, renderServedCopy } from '../served';
import { peakDb, readCanonicalWav, rmsDb, sine, TAGGED_ARTIST, TAGGED_TITLE, taggedWav, wavBytes } from './audio';

const fixture = (name: string): Uint8Array => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
// Whole-clip RMS without dither: the copies as they were before measures and dither (loudness.test.ts has the others).
const TARGET = { normalize: true, measure: 'rms', target: -23, dither: false } as const;
const OFF = { ...TARGET, normalize: false };

const [TITLE, ARTIST] = [TAGGED_TITLE, TAGGED_ARTIST];

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

describe('served copies', () => {
  it('drop every metadata chunk of a WAV and of a FLAC: a fresh header, fmt and data only', async () => {
    const wav = taggedWav([sine(0.5, 48000, 220, 0.3)]);
    const flac = fixture('tagged-quiet.flac');
    for (const source of [wav, flac]) {
      expect(latin1(source)).toContain(TITLE); // the fixture really carries it
      const copy = await renderServedCopy(source, TARGET);
      const text = latin1(copy.wav);
      for (const s of [TITLE, ARTIST, 'Actor 07', 'INAM', 'IART', 'LIST', 'INFO', 'bext', 'ID3', 'id3 ', 'TITLE=', 'ARTIST=', 'libFLAC', 'reference']) {
        expect(text.includes(s), s).toBe(false);
      }
      expect(readCanonicalWav(copy.wav).chunks).toEqual(['fmt ', 'data']);
    }
  });

  it('keep the sample rate and channels, as 16-bit PCM', async () => {
    const stereo = readCanonicalWav((await renderServedCopy(fixture('tagged-quiet.flac'), TARGET)).wav);
    expect([stereo.sampleRate, stereo.channels]).toEqual([22050, 2]);
    const deep = readCanonicalWav((await renderServedCopy(wavBytes({ sampleRate: 16000, bits: 24, channels: [sine(0.3, 16000, 300, 0.4)] }), TARGET)).wav);
    expect([deep.sampleRate, deep.channels]).toEqual([16000, 1]);
  });

  it('bring loud and quiet clips, WAV and FLAC, to the target RMS measured on the served PCM', async () => {
    const sources = [
      wavBytes({ sampleRate: 16000, channels: [sine(0.5, 16000, 250, 0.5)] }), // -9 dBFS: turned down
      taggedWav([sine(0.5, 48000, 180, 0.01)]), // -43 dBFS: turned up
      fixture('tagged-quiet.flac'),
      wavBytes({ sampleRate: 16000, bits: 32, float: true, channels: [sine(0.4, 16000, 300, 0.05), sine(0.4, 16000, 500, 0.02)] }),
    ];
    for (const source of sources) {
      const copy = await renderServedCopy(source, TARGET);
      const served = readCanonicalWav(copy.wav);
      expect(rmsDb(served.samples)).toBeGreaterThan(-23.05);
      expect(rmsDb(served.samples)).toBeLessThan(-22.95);
      expect(copy.loudnessDbfs).toBeCloseTo(-23, 1);
      expect(copy.peakLimited).toBe(false);
      const measured = (await analyseAudio(source)).loudnessDbfs!;
      expect(copy.gainDb).toBeCloseTo(-23 - measured, 1);
    }
  });

  it('limit the gain of a clip whose peak would pass the ceiling, and say so', async () => {
    // Near-silence with one loud click: reaching -23 dBFS RMS would need the click far above full scale.
    const samples = new Array(16000).fill(0).map((_, i) => (i === 8000 ? 0.5 : 0.001 * Math.sin(i / 3)));
    const copy = await renderServedCopy(wavBytes({ sampleRate: 16000, channels: [samples] }), TARGET);
    const served = readCanonicalWav(copy.wav);
    expect(copy.peakLimited).toBe(true);
    expect(peakDb(served.samples)).toBeLessThanOrEqual(PEAK_CEILING_DBFS + 0.01);
    expect(peakDb(served.samples)).toBeGreaterThan(PEAK_CEILING_DBFS - 0.05);
    expect(rmsDb(served.samples)).toBeLessThan(-23 - 3);
    expect(Math.max(...served.samples.map(Math.abs))).toBeLessThan(1);
  });

  it('play at unity gain with loudness off: the 16-bit samples are the source samples', async () => {
    const tone = sine(0.3, 16000, 250, 0.02);
    const source = taggedWav([tone], 16000);
    const copy = await renderServedCopy(source, OFF);
    expect(copy.gainDb).toBe(0);
    const served = readCanonicalWav(copy.wav);
    // wavBytes wrote round(v · 32767); the copy's 16-bit values must be exactly those.
    expect([...served.samples].map((v) => v * 32768 + 0)).toEqual(tone.map((v) => Math.round(v * 32767) + 0)); // + 0: no -0
    expect(latin1(copy.wav)).not.toContain(TITLE);
  });

  it('draw the waveform at the applied gain: peaks are those of the served samples', async () => {
    const quiet = wavBytes({ sampleRate: 16000, channels: [sine(0.5, 16000, 250, 0.02)] });
    const asRecorded = await renderServedCopy(quiet, OFF);
    const normalised = await renderServedCopy(quiet, TARGET);
    const top = (copy: typeof asRecorded) => Math.max(...copy.peaks.data);
    expect(top(asRecorded)).toBeCloseTo(0.02, 3);
    // -23 dBFS RMS sine: amplitude 10^(-23/20)·√2 ≈ 0.1002.
    expect(top(normalised)).toBeCloseTo(10 ** (-23 / 20) * Math.SQRT2, 3);
    expect(top(normalised)).toBeCloseTo(Math.max(...readCanonicalWav(normalised.wav).samples), 4);
  });

  it('computes the gain from level, peak and setting', () => {
    expect(loudnessGain(-30, 0.1, TARGET)).toEqual({ gainDb: 7, peakLimited: false });
    expect(loudnessGain(-30, 0.9, TARGET).peakLimited).toBe(true);
    expect(loudnessGain(-30, 0.9, TARGET).gainDb).toBeCloseTo(PEAK_CEILING_DBFS - 20 * Math.log10(0.9), 10);
    expect(loudnessGain(null, 0, TARGET)).toEqual({ gainDb: 0, peakLimited: false });
    expect(loudnessGain(-30, 0.1, OFF)).toEqual({ gainDb: 0, peakLimited: false });
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyseAudio } from '../decode';
import { sine, wavBytes } from './audio';

const fixture = (name: string): Uint8Array => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

describe('analyseAudio', () => {
  it('decodes FLAC files started together in one thread as it decodes each alone (the study check decodes up to 64 at once)', async () => {
    const files = ['tone-16.flac', 'tone-24-stereo.flac', 'tagged-quiet.flac'].map(fixture);
    const alone = [];
    for (const file of files) alone.push(await analyseAudio(file));
    const together = await Promise.all([...files, ...files].map((file) => analyseAudio(file)));
    expect(together).toEqual([...alone, ...alone]);
  });

  const tone = sine(0.5, 16000, 250, 0.5);
  // RMS of a sine of amplitude A is A/√2: 20·log10(0.5/√2) = -9.03 dBFS.
  const expectedDbfs = 20 * Math.log10(0.5 / Math.SQRT2);

  it.each([
    ['16-bit PCM', { bits: 16 as const }, 'pcm_s16le'],
    ['24-bit PCM', { bits: 24 as const }, 'pcm_s24le'],
    ['32-bit PCM', { bits: 32 as const }, 'pcm_s32le'],
    ['8-bit PCM', { bits: 8 as const }, 'pcm_u8'],
    ['32-bit float', { bits: 32 as const, float: true }, 'pcm_f32le'],
    ['EXTENSIBLE 24-bit', { bits: 24 as const, extensible: true }, 'pcm_s24le'],
    ['EXTENSIBLE float', { bits: 32 as const, float: true, extensible: true }, 'pcm_f32le'],
    ['16-bit with extra RIFF chunks', { bits: 16 as const, extraChunks: true }, 'pcm_s16le'],
  ])('decodes %s WAV with correct facts', async (_, spec, codec) => {
    const facts = await analyseAudio(wavBytes({ ...spec, sampleRate: 16000, channels: [tone] }));
    expect(facts.format).toBe('wav');
    expect(facts.codec).toBe(codec);
    expect(facts.sampleRate).toBe(16000);
    expect(facts.channels).toBe(1);
    expect(facts.duration).toBeCloseTo(0.5, 6);
    expect(facts.loudnessDbfs).toBeCloseTo(expectedDbfs, spec.bits === 8 ? 1 : 2);
    expect(facts.peaks.resolution).toBe(100);
    expect(facts.peaks.data).toHaveLength(100);
    expect(Math.max(...facts.peaks.data)).toBeCloseTo(0.5, 1);
    expect(Math.min(...facts.peaks.data)).toBeCloseTo(-0.5, 1);
    expect(facts.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('mixes all channels into the peaks and loudness of a stereo file', async () => {
    const silent = new Array(tone.length).fill(0);
    const facts = await analyseAudio(wavBytes({ channels: [silent, tone.map((v) => v * 1.6)] }));
    expect(facts.channels).toBe(2);
    expect(Math.max(...facts.peaks.data)).toBeCloseTo(0.8, 2);
    // Half the samples are silent, so mean square halves: -3.01 dB below the loud channel alone.
    expect(facts.loudnessDbfs).toBeCloseTo(20 * Math.log10(0.8 / Math.SQRT2) - 10 * Math.log10(2), 2);
  });

  it('reports digital silence as null loudness, not -Infinity', async () => {
    const facts = await analyseAudio(wavBytes({ channels: [new Array(800).fill(0)] }));
    expect(facts.loudnessDbfs).toBeNull();
  });

  it('decodes 16-bit mono and 24-bit stereo FLAC made by sox', async () => {
    const mono = await analyseAudio(fixture('tone-16.flac'));
    expect([mono.format, mono.codec, mono.sampleRate, mono.channels]).toEqual(['flac', 'flac_s16', 16000, 1]);
    expect(mono.duration).toBeCloseTo(0.25, 6);
    // sox: 440 Hz sine at -6 dB gain → amplitude 0.501, RMS ≈ -9.0 dBFS.
    expect(mono.loudnessDbfs).toBeCloseTo(-9.0, 0);
    const stereo = await analyseAudio(fixture('tone-24-stereo.flac'));
    expect([stereo.codec, stereo.sampleRate, stereo.channels]).toEqual(['flac_s24', 48000, 2]);
    expect(stereo.duration).toBeCloseTo(0.2, 6);
  });

  it.each([
    ['a text file named .wav', Buffer.from('hello, I am not audio\n'), /not a WAV or FLAC file/],
    ['an empty file', Buffer.alloc(0), /not a WAV or FLAC file/],
    ['a WAV cut short in its data chunk', wavBytes({ channels: [tone] }).subarray(0, 5000), /truncated: data chunk declares 16000 bytes/],
    ['a FLAC cut short', fixture('tone-16.flac').subarray(0, 1200), /truncated|corrupt FLAC/],
    ['a WAV with an unsupported encoding', (() => { const b = wavBytes({ channels: [tone] }); b.writeUInt16LE(0x11, 20); return b; })(), /unsupported WAV encoding \(format tag 0x11/],
    ['a WAV without samples', wavBytes({ channels: [[]] }), /no audio samples/],
  ])('refuses %s with a reason', async (_, bytes, reason) => {
    await expect(analyseAudio(bytes)).rejects.toThrow(reason);
  });

  it('caps peaks for long recordings and lowers the resolution to match', async () => {
    const long = await analyseAudio(wavBytes({ sampleRate: 1000, channels: [sine(100, 1000, 50, 0.2)] }));
    expect(long.peaks.data).toHaveLength(16000);
    expect(long.peaks.resolution).toBeCloseTo(80, 6);
  });
});

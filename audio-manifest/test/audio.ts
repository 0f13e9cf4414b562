import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface WavSpec {
  sampleRate?: number;
  bits?: 8 | 16 | 24 | 32 | 64;
  float?: boolean;
  extensible?: boolean;
  /** Chunks written before and after the audio, as RAVDESS files carry (LIST, bext, _PMX). */
  extraChunks?: boolean;
  /** One array of samples in [-1, 1] per channel. */
  channels: number[][];
}

/** A sine of the given amplitude, for tests that check loudness and peaks against known values. */
export function sine(seconds: number, sampleRate: number, frequency: number, amplitude: number): number[] {
  return Array.from({ length: Math.round(seconds * sampleRate) }, (_, i) => amplitude * Math.sin((2 * Math.PI * frequency * i) / sampleRate));
}

export function chunk(id: string, body: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'ascii');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** Writes WAV bytes field by field, so the tests exercise the decoder on layouts made independently of it. */
export function wavBytes(spec: WavSpec): Buffer {
  const sampleRate = spec.sampleRate ?? 16000;
  const bits = spec.bits ?? 16;
  const numChannels = spec.channels.length;
  const frames = spec.channels[0].length;
  const bytesPerSample = bits / 8;
  const data = Buffer.alloc(frames * numChannels * bytesPerSample);
  let offset = 0;
  for (let i = 0; i < frames; i++) {
    for (const channel of spec.channels) {
      const v = channel[i];
      if (spec.float) {
        if (bits === 32) data.writeFloatLE(v, offset);
        else data.writeDoubleLE(v, offset);
      } else if (bits === 8) data.writeUInt8(Math.min(255, Math.round(v * 128) + 128), offset);
      else {
        const max = 2 ** (bits - 1) - 1;
        data.writeIntLE(Math.round(v * max), offset, Math.min(bytesPerSample, 6));
      }
      offset += bytesPerSample;
    }
  }
  const tag = spec.float ? 3 : 1;
  const fmt = Buffer.alloc(spec.extensible ? 40 : 16);
  fmt.writeUInt16LE(spec.extensible ? 0xfffe : tag, 0);
  fmt.writeUInt16LE(numChannels, 2);
  fmt.writeUInt32LE(sampleRate, 4);
  fmt.writeUInt32LE(sampleRate * numChannels * bytesPerSample, 8);
  fmt.writeUInt16LE(numChannels * bytesPerSample, 12);
  fmt.writeUInt16LE(bits, 14);
  if (spec.extensible) {
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(bits, 18);
    fmt.writeUInt32LE(numChannels === 1 ? 0x4 : 0x3, 20);
    // KSDATAFORMAT_SUBTYPE_PCM / _IEEE_FLOAT: the tag followed by the fixed GUID tail.
    fmt.writeUInt16LE(tag, 24);
    Buffer.from([0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71]).copy(fmt, 26);
  }
  const before = spec.extraChunks ? [chunk('FLLR', Buffer.alloc(30)), chunk('bext', Buffer.alloc(602))] : [];
  const after = spec.extraChunks ? [chunk('LIST', Buffer.concat([Buffer.from('INFOISFT'), Buffer.from([5, 0, 0, 0]), Buffer.from('test\0\0')])), chunk('_PMX', Buffer.from('<x/>'))] : [];
  const body = Buffer.concat([Buffer.from('WAVE'), chunk('fmt ', fmt), ...before, chunk('data', data), ...after]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

export function writeWav(file: string, spec: WavSpec): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, wavBytes(spec));
}

/** A short mono 16-bit tone: the default valid clip of the layout tests. */
export function writeTone(file: string, seconds = 0.3, sampleRate = 16000): void {
  writeWav(file, { sampleRate, channels: [sine(seconds, sampleRate, 220, 0.5)] });
}

export interface CanonicalWav {
  channels: number;
  sampleRate: number;
  /** Interleaved samples in [-1, 1). */
  samples: Float32Array;
  /** Chunk ids in file order. */
  chunks: string[];
}

/** Reads a served copy, checking it is a bare 16-bit PCM WAV: RIFF header, fmt, data and nothing else. */
export function readCanonicalWav(bytes: Uint8Array): CanonicalWav {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = (at: number, n: number) => String.fromCharCode(...bytes.subarray(at, at + n));
  if (text(0, 4) !== 'RIFF' || text(8, 4) !== 'WAVE') throw new Error('not a RIFF/WAVE file');
  if (view.getUint32(4, true) !== bytes.length - 8) throw new Error('RIFF size does not match the file');
  const chunks: string[] = [];
  for (let at = 12; at < bytes.length; ) {
    chunks.push(text(at, 4));
    at += 8 + view.getUint32(at + 4, true) + (view.getUint32(at + 4, true) % 2);
  }
  if (view.getUint16(20, true) !== 1 || view.getUint16(34, true) !== 16) throw new Error('not 16-bit PCM');
  const samples = new Float32Array((bytes.length - 44) / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(44 + 2 * i, true) / 32768;
  return { channels: view.getUint16(22, true), sampleRate: view.getUint32(24, true), samples, chunks };
}

/** RMS level in dBFS over all samples, computed here independently of the decoder. */
export function rmsDb(samples: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i] * samples[i];
  return 10 * Math.log10(sum / samples.length);
}

export function peakDb(samples: ArrayLike<number>): number {
  let peak = 0;
  for (let i = 0; i < samples.length; i++) peak = Math.max(peak, Math.abs(samples[i]));
  return 20 * Math.log10(peak);
}

/** What a corpus file may carry besides its audio: strings listeners must never receive. */
export const TAGGED_TITLE = 'Kids are talking by the door (angry)';
export const TAGGED_ARTIST = 'Actor 07 SecretSpeaker';

/** A 16-bit WAV with a bext chunk before the audio and LIST/INFO (INAM, IART) and id3 chunks after it. */
export function taggedWav(channels: number[][], sampleRate = 48000): Buffer {
  const plain = wavBytes({ sampleRate, channels });
  const info = Buffer.concat([Buffer.from('INFO'), chunk('INAM', Buffer.from(`${TAGGED_TITLE}\0`)), chunk('IART', Buffer.from(`${TAGGED_ARTIST}\0`))]);
  const bext = Buffer.alloc(602);
  bext.write(`${TAGGED_TITLE} / ${TAGGED_ARTIST}`, 0, 'latin1');
  const id3 = Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x20', 'latin1'), Buffer.from(`TIT2${TAGGED_TITLE}`)]);
  // fmt is 16 bytes here, so the data chunk starts at byte 36.
  const body = Buffer.concat([plain.subarray(12, 36), chunk('bext', bext), plain.subarray(36), chunk('LIST', info), chunk('id3 ', id3)]);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(body.length + 4, 4);
  riff.write('WAVE', 8, 'ascii');
  return Buffer.concat([riff, body]);
}

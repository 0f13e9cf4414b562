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

function chunk(id: string, body: Buffer): Buffer {
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

import { createHash } from 'node:crypto';
import wavefile from 'wavefile';
import { FLACDecoder } from '@wasm-audio-decoders/flac';
import { rmsDbfs } from './loudness/rms';

/** Facts derived once per audio file and stored in the clips table. */
export interface AudioFacts {
  format: 'wav' | 'flac';
  codec: string;
  duration: number;
  sampleRate: number;
  channels: number;
  sha256: string;
  /** RMS over all channels in dBFS; null for digital silence (the log is -Infinity). */
  loudnessDbfs: number | null;
  peaks: Peaks;
}

/** Waveform overview handed to wavesurfer.js as precomputed peaks: min/max pairs in [-1, 1]. */
export interface Peaks {
  /** Min/max pairs per second of audio. */
  resolution: number;
  data: number[];
}

export interface Decoded {
  format: AudioFacts['format'];
  codec: string;
  sampleRate: number;
  channels: Float32Array[];
}

/** Thrown for files that cannot be used as clips; the message is the reason shown to the researcher. */
export class AudioError extends Error {}

const PEAK_PAIRS_PER_SECOND = 100;
// Keeps the peaks JSON small for long recordings; resolution then drops below 100 per second.
const MAX_PEAK_PAIRS = 8000;

let flacDecoder: FLACDecoder | undefined;

/** Decodes WAV or FLAC bytes (sniffed from the header, not the file name) and derives the clip facts. */
export async function analyseAudio(bytes: Uint8Array): Promise<AudioFacts> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return audioFacts(await decode(bytes), sha256);
}

/** The clip facts of audio already decoded from a file whose bytes hash to `sha256`. */
export function audioFacts(decoded: Decoded, sha256: string): AudioFacts {
  const frames = decoded.channels[0]?.length ?? 0;
  if (frames === 0) throw new AudioError('contains no audio samples');
  if (!(decoded.sampleRate > 0)) throw new AudioError(`invalid sample rate ${decoded.sampleRate}`);
  return {
    format: decoded.format,
    codec: decoded.codec,
    duration: frames / decoded.sampleRate,
    sampleRate: decoded.sampleRate,
    channels: decoded.channels.length,
    sha256,
    loudnessDbfs: rmsDbfs(decoded.channels),
    peaks: peaks(decoded.channels, decoded.sampleRate),
  };
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

export async function decode(bytes: Uint8Array): Promise<Decoded> {
  if (bytes.length >= 4 && ascii(bytes, 0, 4) === 'fLaC') return decodeFlac(bytes);
  if (bytes.length >= 12 && ['RIFF', 'RIFX', 'RF64'].includes(ascii(bytes, 0, 4)) && ascii(bytes, 8, 12) === 'WAVE') {
    return decodeWav(bytes);
  }
  throw new AudioError('not a WAV or FLAC file (no RIFF/WAVE or fLaC header)');
}

interface WavFmt {
  audioFormat: number;
  numChannels: number;
  sampleRate: number;
  blockAlign: number;
  bitsPerSample: number;
  subformat: number[];
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_IEEE_FLOAT = 3;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

function decodeWav(bytes: Uint8Array): Decoded {
  let wav: wavefile.WaveFile;
  try {
    wav = new wavefile.WaveFile(bytes);
  } catch (error) {
    throw new AudioError(`corrupt WAV: ${(error as Error).message}`);
  }
  const fmt = wav.fmt as WavFmt;
  const data = wav.data as { chunkSize: number; samples: Uint8Array };
  // EXTENSIBLE stores the real format tag in the first field of the sub-format GUID.
  const tag = fmt.audioFormat === WAVE_FORMAT_EXTENSIBLE ? fmt.subformat[0] : fmt.audioFormat;
  const bits = fmt.bitsPerSample;
  let codec: string;
  if (tag === WAVE_FORMAT_PCM && [8, 16, 24, 32].includes(bits)) codec = bits === 8 ? 'pcm_u8' : `pcm_s${bits}le`;
  else if (tag === WAVE_FORMAT_IEEE_FLOAT && (bits === 32 || bits === 64)) codec = `pcm_f${bits}le`;
  else throw new AudioError(`unsupported WAV encoding (format tag 0x${(tag ?? 0).toString(16)}, ${bits} bits)`);
  if (wav.container === 'RIFX') codec = codec.replace(/le$/, 'be');
  if (!(fmt.numChannels > 0) || fmt.blockAlign !== (fmt.numChannels * bits) / 8) {
    throw new AudioError(`corrupt WAV: ${fmt.numChannels} channels with block size ${fmt.blockAlign}`);
  }
  if (data.samples.length < data.chunkSize) {
    throw new AudioError(`truncated: data chunk declares ${data.chunkSize} bytes but only ${data.samples.length} are present`);
  }
  // A RIFF pad byte after an odd-sized data chunk (24-bit mono) is not part of the audio.
  const whole = data.samples.length - (data.samples.length % fmt.blockAlign);
  if (whole !== data.samples.length) data.samples = data.samples.subarray(0, whole);
  let channels: Float32Array[];
  if (fmt.audioFormat === WAVE_FORMAT_EXTENSIBLE && tag === WAVE_FORMAT_IEEE_FLOAT && wav.container === 'RIFF') {
    // wavefile takes integer vs float from audioFormat alone and would read these floats as integers.
    channels = deinterleaveFloat(data.samples, bits, fmt.numChannels);
  } else {
    const raw = wav.getSamples(false, Float32Array) as unknown as Float32Array | Float32Array[];
    channels = Array.isArray(raw) ? raw : [raw];
  }
  // wavefile returns integer PCM in its native range; scale to [-1, 1).
  if (tag === WAVE_FORMAT_PCM) {
    const offset = bits === 8 ? 128 : 0;
    const scale = 1 / 2 ** (bits - 1);
    for (const channel of channels) for (let i = 0; i < channel.length; i++) channel[i] = (channel[i] - offset) * scale;
  }
  return { format: 'wav', codec, sampleRate: fmt.sampleRate, channels };
}

function deinterleaveFloat(bytes: Uint8Array, bits: number, numChannels: number): Float32Array[] {
  const aligned = new Uint8Array(bytes); // a copy: Float32Array needs an aligned buffer of its own
  const interleaved = bits === 32 ? new Float32Array(aligned.buffer) : new Float64Array(aligned.buffer);
  const frames = interleaved.length / numChannels;
  return Array.from({ length: numChannels }, (_, c) => {
    const channel = new Float32Array(frames);
    for (let i = 0; i < frames; i++) channel[i] = interleaved[i * numChannels + c];
    return channel;
  });
}

// The one decoder decodes one file at a time: two decodes interleaved on it (reset, then another's
// decodeFile) corrupt each other's state in the wasm module, so concurrent callers take turns.
let flacTurn: Promise<unknown> = Promise.resolve();

function decodeFlac(bytes: Uint8Array): Promise<Decoded> {
  const turn = flacTurn.then(() => decodeFlacNow(bytes));
  flacTurn = turn.catch(() => undefined);
  return turn;
}

async function decodeFlacNow(bytes: Uint8Array): Promise<Decoded> {
  flacDecoder ??= new FLACDecoder();
  await flacDecoder.ready;
  await flacDecoder.reset();
  const result = await flacDecoder.decodeFile(bytes);
  if (result.errors.length > 0) {
    throw new AudioError(`corrupt FLAC: ${result.errors[0].message} (frame ${result.errors[0].frameNumber})`);
  }
  const expected = flacTotalSamples(bytes);
  if (expected > 0 && result.samplesDecoded < expected) {
    throw new AudioError(`truncated: FLAC header declares ${expected} samples but only ${result.samplesDecoded} decode`);
  }
  return { format: 'flac', codec: `flac_s${result.bitDepth}`, sampleRate: result.sampleRate, channels: result.channelData };
}

/** Total samples per channel from STREAMINFO (0 = unknown); the decoder does not report truncation. */
function flacTotalSamples(bytes: Uint8Array): number {
  // STREAMINFO follows 'fLaC' + a 4-byte block header; the 36-bit count starts at bit 4 of byte 13.
  if (bytes.length < 26) return 0;
  const b = bytes.subarray(8);
  return (b[13] & 0x0f) * 2 ** 32 + ((b[14] << 24) >>> 0) + (b[15] << 16) + (b[16] << 8) + b[17];
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

export function peaks(channels: Float32Array[], sampleRate: number): Peaks {
  const frames = channels[0].length;
  const duration = frames / sampleRate;
  const pairs = Math.max(1, Math.min(MAX_PEAK_PAIRS, Math.ceil(duration * PEAK_PAIRS_PER_SECOND), frames));
  const data = new Array<number>(pairs * 2);
  for (let p = 0; p < pairs; p++) {
    const start = Math.floor((p * frames) / pairs);
    const end = Math.floor(((p + 1) * frames) / pairs);
    let min = 1;
    let max = -1;
    for (const channel of channels) {
      for (let i = start; i < end; i++) {
        const v = channel[i];
        if (v < min) min = v;
        if (v > max) max = v;
      }
    }
    data[2 * p] = round4(Math.max(-1, min));
    data[2 * p + 1] = round4(Math.min(1, max));
  }
  return { resolution: pairs === MAX_PEAK_PAIRS ? pairs / duration : PEAK_PAIRS_PER_SECOND, data };
}

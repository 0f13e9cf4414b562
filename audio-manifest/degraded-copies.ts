/**
 * The files of renditions' degraded copies (degrade.ts): `<data>/degraded/<sha256 of the source file>.wav`,
 * a bare 16-bit PCM WAV at the source's rate and channels. Named by the source's content, so a copy is
 * written once, shared by renditions with the same audio, and a re-import finds it there; the rendition
 * import then imports it as an ordinary clip (corpus `degraded`), served like every clip.
 *
 * Copies are made in the decode workers (pool.ts), one read and one decode per source: the worker hands
 * back the source's clip facts and the copy's, so the clip import decodes neither again.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import type { Db } from '../db/open';
import { audioFacts, decode, sha256Hex, type AudioFacts } from './decode';
import { degrade, LOWPASS_HZ, SNR_DB, type Pcm } from './degrade';
import { toPcm16 } from './dither';
import type { DecodePool } from './pool';
import type { ExistingClip } from './store';
import { wavFile } from './wav';

const PCM16_SCALE = 32768;

/** The corpus of degraded copies' clips. */
export const DEGRADED_CORPUS = 'degraded';

/** What a degraded copy's clip labels say about it (never shown to listeners, like every label). */
export const degradedLabels = (sourceSha256: string) => ({ lowpassHz: LOWPASS_HZ, snrDb: SNR_DB, sourceSha256 });

/** Where degraded copies live: `<data>/degraded/`, beside the database file (the data dir, as served-audio/). */
export function degradedAudioDir(db: Db): string {
  if (db.memory) throw new Error('degraded copies need a database file: its folder is the data dir they are kept in');
  return join(dirname(db.name), 'degraded');
}

/** The degraded copy of decoded audio as WAV bytes: the same source (by sha256) gives the same bytes. */
export function degradedWav(pcm: Pcm, sourceSha256: string): Uint8Array {
  return degradedCopyOf(pcm, sourceSha256).wav;
}

/** The copy's WAV bytes and its clip facts, taken from its 16-bit samples as decoding the WAV would give them. */
function degradedCopyOf(pcm: Pcm, sourceSha256: string): { wav: Uint8Array; facts: AudioFacts } {
  const channels = degrade(pcm, sourceSha256);
  // No dither: the copy's noise is 10 dB under the signal, far above 16-bit rounding.
  const samples = toPcm16(channels, 1, null);
  const wav = wavFile(samples, channels.length, pcm.sampleRate);
  const count = channels.length;
  const played = channels.map((_, c) => {
    const channel = new Float32Array(samples.length / count);
    for (let i = 0; i < channel.length; i++) channel[i] = samples[i * count + c] / PCM16_SCALE;
    return channel;
  });
  return { wav, facts: audioFacts({ format: 'wav', codec: 'pcm_s16le', sampleRate: pcm.sampleRate, channels: played }, sha256Hex(wav)) };
}

/** A source file's degraded copy, and the clip facts of either that were computed on the way. */
export interface DegradedCopy {
  /** The copy's absolute path. */
  file: string;
  sourceSha256: string;
  sourceFacts?: AudioFacts;
  /** Set when the copy was written now (an existing copy is left to the clip import). */
  copyFacts?: AudioFacts;
}

/**
 * Reads, hashes and decodes `file` and writes its degraded copy into `dir` unless it is there already
 * (written whole, then renamed: a copy that is there is complete). Throws AudioError when it does not decode.
 * Runs in a decode worker.
 */
export async function makeDegradedCopy(file: string, dir: string): Promise<DegradedCopy> {
  const bytes = await readFile(file);
  const sourceSha256 = sha256Hex(bytes);
  const pcm = await decode(bytes);
  const sourceFacts = audioFacts(pcm, sourceSha256);
  const copy = join(dir, `${sourceSha256}.wav`);
  if (existsSync(copy)) return { file: copy, sourceSha256, sourceFacts };
  const { wav, facts } = degradedCopyOf(pcm, sourceSha256);
  mkdirSync(dir, { recursive: true });
  const partial = `${copy}.${process.pid}-${threadId}.partial`;
  await writeFile(partial, wav);
  await rename(partial, copy);
  return { file: copy, sourceSha256, sourceFacts, copyFacts: facts };
}

/**
 * The degraded copy of each of `files` that decodes, written (in the pool's workers) if it is not there
 * yet. A file the manifest holds unchanged (`clipAt`: same size and mtime) whose copy is there is not read
 * at all. A file that is missing or does not decode gets no copy: the clip import refuses it, with its reason.
 */
export async function writeDegradedCopies(
  files: readonly string[],
  options: { dir: string; pool: DecodePool; clipAt: (file: string) => ExistingClip | undefined },
): Promise<Map<string, DegradedCopy>> {
  const copies = new Map<string, DegradedCopy>();
  await Promise.all(
    [...new Set(files)].map(async (file) => {
      const known = options.clipAt(file);
      if (known) {
        const info = await stat(file).catch(() => undefined);
        const copy = join(options.dir, `${known.sha256}.wav`);
        if (info && known.bytes === info.size && known.mtime_ms === info.mtimeMs && existsSync(copy)) {
          return void copies.set(file, { file: copy, sourceSha256: known.sha256 });
        }
      }
      const made = await options.pool.degrade(file, options.dir);
      if (made.ok) copies.set(file, made.copy);
    }),
  );
  return copies;
}

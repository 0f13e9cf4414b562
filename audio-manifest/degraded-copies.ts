/**
 * The files of renditions' degraded copies (degrade.ts): `<data>/degraded/<sha256 of the source file>.wav`,
 * a bare 16-bit PCM WAV at the source's rate and channels; beside it the source's MUSHRA anchors
 * (anchors.ts), `<sha256>.anchor35.wav` and `<sha256>.anchor70.wav`, made the same way. Named by the source's content, so a copy is
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
import { anchor, ANCHOR_ROLES, ANCHORS, type AnchorRole } from './anchors';
import { toPcm16 } from './dither';
import type { DecodePool } from './pool';
import type { ExistingClip } from './store';
import { wavFile } from './wav';

const PCM16_SCALE = 32768;

/** The corpus of degraded copies' clips. */
export const DEGRADED_CORPUS = 'degraded';

/** What a degraded copy's clip labels say about it (never shown to listeners, like every label). */
export const degradedLabels = (sourceSha256: string) => ({ lowpassHz: LOWPASS_HZ, snrDb: SNR_DB, sourceSha256 });

/** The corpus of MUSHRA anchors' clips. */
export const ANCHOR_CORPUS = 'anchor';

/** What an anchor's clip labels say about it. */
export const anchorLabels = (role: AnchorRole, sourceSha256: string) => ({ anchor: role, lowpassHz: ANCHORS[role].cutoffHz, sourceSha256 });

/** An anchor's file beside the source's degraded copy. */
const anchorFile = (dir: string, sourceSha256: string, role: AnchorRole) => join(dir, `${sourceSha256}.${role}.wav`);

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
  // No dither: the copy's noise is 10 dB under the signal, far above 16-bit rounding.
  return pcm16Copy(degrade(pcm, sourceSha256), pcm.sampleRate);
}

/** Derived audio as a bare 16-bit WAV (rounded, no dither: the served copy is dithered at its gain) and its clip facts. */
function pcm16Copy(channels: Float32Array[], sampleRate: number): { wav: Uint8Array; facts: AudioFacts } {
  const samples = toPcm16(channels, 1, null);
  const wav = wavFile(samples, channels.length, sampleRate);
  const count = channels.length;
  const played = channels.map((_, c) => {
    const channel = new Float32Array(samples.length / count);
    for (let i = 0; i < channel.length; i++) channel[i] = samples[i * count + c] / PCM16_SCALE;
    return channel;
  });
  return { wav, facts: audioFacts({ format: 'wav', codec: 'pcm_s16le', sampleRate, channels: played }, sha256Hex(wav)) };
}

/** A source file's degraded copy and anchors, and the clip facts of any that were computed on the way. */
export interface DegradedCopy {
  /** The copy's absolute path. */
  file: string;
  sourceSha256: string;
  sourceFacts?: AudioFacts;
  /** Set when the copy was written now (an existing copy is left to the clip import). */
  copyFacts?: AudioFacts;
  /** The MUSHRA anchors (anchors.ts), each with its facts when written now. */
  anchors: { role: AnchorRole; file: string; facts?: AudioFacts }[];
}

/** Writes `bytes` to `file` whole, then renames: a file that is there is complete. */
async function writeWhole(file: string, bytes: Uint8Array): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}-${threadId}.partial`;
  await writeFile(partial, bytes);
  await rename(partial, file);
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
  const anchors: DegradedCopy['anchors'] = [];
  for (const role of ANCHOR_ROLES) {
    const file = anchorFile(dir, sourceSha256, role);
    if (existsSync(file)) {
      anchors.push({ role, file });
      continue;
    }
    const made = pcm16Copy(anchor(pcm, role), pcm.sampleRate);
    await writeWhole(file, made.wav);
    anchors.push({ role, file, facts: made.facts });
  }
  if (existsSync(copy)) return { file: copy, sourceSha256, sourceFacts, anchors };
  const { wav, facts } = degradedCopyOf(pcm, sourceSha256);
  await writeWhole(copy, wav);
  return { file: copy, sourceSha256, sourceFacts, copyFacts: facts, anchors };
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
        const anchors = ANCHOR_ROLES.map((role) => ({ role, file: anchorFile(options.dir, known.sha256, role) }));
        if (info && known.bytes === info.size && known.mtime_ms === info.mtimeMs && existsSync(copy) && anchors.every((a) => existsSync(a.file))) {
          return void copies.set(file, { file: copy, sourceSha256: known.sha256, anchors });
        }
      }
      const made = await options.pool.degrade(file, options.dir);
      if (made.ok) copies.set(file, made.copy);
    }),
  );
  return copies;
}

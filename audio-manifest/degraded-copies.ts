/**
 * The files of renditions' degraded copies (degrade.ts): `<data>/degraded/<sha256 of the source file>.wav`,
 * a bare 16-bit PCM WAV at the source's rate and channels. Named by the source's content, so a copy is
 * written once, shared by renditions with the same audio, and a re-import finds it there; the rendition
 * import then imports it as an ordinary clip (corpus `degraded`), served like every clip.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Db } from '../db/open';
import { decode, sha256Hex } from './decode';
import { degrade, LOWPASS_HZ, SNR_DB, type Pcm } from './degrade';
import { toPcm16 } from './dither';
import { wavFile } from './served';
import { manifestStore } from './store';

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
  const channels = degrade(pcm, sourceSha256);
  // No dither: the copy's noise is 10 dB under the signal, far above 16-bit rounding.
  return wavFile(toPcm16(channels, 1, null), channels.length, pcm.sampleRate);
}

export interface DegradedCopy {
  /** The copy's absolute path. */
  file: string;
  sourceSha256: string;
}

/**
 * The degraded copy of each of `files` that decodes, written if it is not there yet. A file the manifest
 * already holds unchanged (same size and mtime) is not read: its stored sha256 names the copy. A file that
 * is missing or does not decode gets no copy: the clip import refuses it, with its reason.
 */
export async function writeDegradedCopies(db: Db, files: readonly string[]): Promise<Map<string, DegradedCopy>> {
  const store = manifestStore(db);
  const dir = degradedAudioDir(db);
  const copies = new Map<string, DegradedCopy>();
  for (const file of new Set(files)) {
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) continue;
    const known = store.clipByPath(file);
    let bytes: Uint8Array | undefined;
    let sha256: string;
    if (known && known.bytes === info.size && known.mtime_ms === info.mtimeMs) sha256 = known.sha256;
    else sha256 = sha256Hex((bytes = await readFile(file)));
    const copy = join(dir, `${sha256}.wav`);
    if (!existsSync(copy)) {
      bytes ??= await readFile(file);
      const pcm = await decode(bytes).catch(() => undefined);
      if (!pcm || (pcm.channels[0]?.length ?? 0) === 0) continue;
      mkdirSync(dir, { recursive: true });
      // Written whole, then renamed: a copy that is there is complete.
      const partial = `${copy}.${process.pid}.partial`;
      await writeFile(partial, degradedWav(pcm, sha256));
      await rename(partial, copy);
    }
    copies.set(file, { file: copy, sourceSha256: sha256 });
  }
  return copies;
}

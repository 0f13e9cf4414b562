/**
 * Which of these audio files cannot be imported, and why: each is decoded as the import would
 * decode it. A few files decode faster in this thread than workers start; more go to decode
 * workers (at most two), off the thread that serves requests. The study's validate and the
 * studio's audio upload use this, so a bad file is named before any build.
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { analyseAudio } from './decode';
import { DecodePool } from './pool';

/** Up to this many files are decoded in this thread; more go to decode workers. */
const IN_PROCESS_DECODES = 64;

/** file → why it cannot be imported; files that decode are absent. */
export async function unplayableFiles(files: readonly string[]): Promise<Map<string, string>> {
  const pool = files.length > IN_PROCESS_DECODES ? new DecodePool(Math.min(2, availableParallelism())) : null;
  const check = (file: string): Promise<string | null> =>
    pool ? pool.decode(file).then((r) => (r.ok ? null : r.reason)) : readFile(file).then((bytes) => analyseAudio(bytes)).then(() => null, (e: Error) => e.message);
  try {
    const results = await Promise.all(files.map(async (file) => [file, await check(file)] as const));
    return new Map(results.filter((r): r is readonly [string, string] => r[1] !== null));
  } finally {
    await pool?.close();
  }
}

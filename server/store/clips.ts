import { join } from 'node:path';
import type { Db } from '../../db/open';
import { servedAudioDir } from '../../audio-manifest/served';

/** A clip as listeners receive it: the study's normalised copy, never the corpus file. */
export interface ServedClip {
  absPath: string;
  bytes: number;
  /** Keyed hash of the copy (installation secret): the source of its ETag and Last-Modified. */
  tag: string;
  peaks: string;
}

export function clipRepository(db: Db) {
  const byId = db.prepare<[string], ServedClip>('SELECT file AS absPath, bytes, tag, peaks FROM served_clips WHERE id = ?');
  let dir: string | undefined;
  return {
    get(id: string): ServedClip | undefined {
      const clip = byId.get(id);
      if (!clip) return undefined;
      dir ??= servedAudioDir(db);
      return { ...clip, absPath: join(dir, clip.absPath) };
    },
  };
}
export type ClipRepository = ReturnType<typeof clipRepository>;

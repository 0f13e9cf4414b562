import type { Db } from '../db/open';

export interface ServedClip {
  absPath: string;
  format: string;
  bytes: number;
  mtimeMs: number;
  sha256: string;
  peaks: string;
}

export function clipRepository(db: Db) {
  const byId = db.prepare<[string], ServedClip>(`
    SELECT abs_path AS absPath, format, bytes, mtime_ms AS mtimeMs, sha256, peaks FROM clips WHERE id = ?`);
  return { get: (id: string): ServedClip | undefined => byId.get(id) };
}
export type ClipRepository = ReturnType<typeof clipRepository>;

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
  const missingAudio = db.prepare<[], string>(`
    SELECT DISTINCT i.study_id FROM items i, json_each(i.stimuli) e
    WHERE json_extract(e.value, '$.clip') IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM served_clips s WHERE s.study_id = i.study_id AND s.clip_id = json_extract(e.value, '$.clip'))`).pluck();
  const studyClips = db.prepare<[string], string>(
    "SELECT DISTINCT json_extract(e.value, '$.clip') FROM items i, json_each(i.stimuli) e WHERE i.study_id = ? AND json_extract(e.value, '$.clip') IS NOT NULL",
  ).pluck();
  let dir: string | undefined;
  return {
    get(id: string): ServedClip | undefined {
      const clip = byId.get(id);
      if (!clip) return undefined;
      dir ??= servedAudioDir(db);
      return { ...clip, absPath: join(dir, clip.absPath) };
    },
    /** The study ids whose items have a clip without a served copy row (built before copies existed, or seeded directly). */
    studiesMissingAudio: (): string[] => missingAudio.all(),
    /** The clip ids of a study's items. */
    studyClipIds: (studyId: string): string[] => studyClips.all(studyId),
  };
}
export type ClipRepository = ReturnType<typeof clipRepository>;

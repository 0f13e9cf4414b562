import { perConnection, type Db } from '../db/open';
import type { ClipFile, ClipListing } from './clips';
import type { ServedClipRow, ServedVariant } from './served';

/** What the manifest knew about a file when it was last imported: enough to skip an unchanged one. */
export interface ExistingClip {
  id: string;
  bytes: number;
  mtime_ms: number;
  sha256: string;
}

/** A clips row as an importer writes it (peaks and labels as JSON). */
export interface ClipRow {
  id: string;
  corpus: string;
  root: string;
  path: string;
  absPath: string;
  format: string;
  codec: string;
  duration: number;
  sampleRate: number;
  channels: number;
  bytes: number;
  mtimeMs: number;
  sha256: string;
  loudnessDbfs: number | null;
  peaks: string;
  labels: string;
  importedAt: string;
}

/**
 * The audio manifest's SQL, all of it: clips, utterances, captions, judge scores, wav paths, the
 * installation secret and the studies' served copies. Importers keep their logic (and their
 * transactions) and call these.
 */
function createManifestStore(db: Db) {
  const insertMeta = db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)');
  const metaByKey = db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck();

  const clipByPath = db.prepare<[string], ExistingClip>('SELECT id, bytes, mtime_ms, sha256 FROM clips WHERE abs_path = ?');
  const upsertClip = db.prepare<[ClipRow]>(`
    INSERT INTO clips (id, corpus, root, path, abs_path, format, codec, duration, sample_rate, channels, bytes,
                       mtime_ms, sha256, loudness_dbfs, peaks, labels, imported_at)
    VALUES (@id, @corpus, @root, @path, @absPath, @format, @codec, @duration, @sampleRate, @channels, @bytes,
            @mtimeMs, @sha256, @loudnessDbfs, @peaks, @labels, @importedAt)
    ON CONFLICT (id) DO UPDATE SET
      corpus = excluded.corpus, root = excluded.root, path = excluded.path, abs_path = excluded.abs_path,
      format = excluded.format, codec = excluded.codec, duration = excluded.duration,
      sample_rate = excluded.sample_rate, channels = excluded.channels, bytes = excluded.bytes,
      mtime_ms = excluded.mtime_ms, sha256 = excluded.sha256, loudness_dbfs = excluded.loudness_dbfs,
      peaks = excluded.peaks, labels = excluded.labels, imported_at = excluded.imported_at`);
  const touchClip = db.prepare<[number, number, string, string]>('UPDATE clips SET bytes = ?, mtime_ms = ?, labels = ? WHERE id = ?');
  const relabelClip = db.prepare<[string, string, string]>('UPDATE clips SET labels = ? WHERE id = ? AND labels <> ?');
  const clipFile = db.prepare<[string], ClipFile>(
    'SELECT abs_path AS absPath, format, bytes, mtime_ms AS mtimeMs, sha256 FROM clips WHERE id = ?',
  );
  const clipPeaks = db.prepare<[string], string>('SELECT peaks FROM clips WHERE id = ?').pluck();
  const clipSource = db.prepare<[string], { absPath: string; sha256: string; name: string }>(
    "SELECT abs_path AS absPath, sha256, corpus || ':' || path AS name FROM clips WHERE id = ?",
  );
  const listClips = db.prepare<[string | null, string | null], Omit<ClipListing, 'labels'> & { labels: string }>(`
    SELECT id, corpus, path, duration, sample_rate AS sampleRate, channels, format, codec,
           loudness_dbfs AS loudnessDbfs, labels
    FROM clips WHERE (? IS NULL OR corpus = ?) ORDER BY corpus, path`);
  const clipByKey = db.prepare<[string, string, string], Record<string, unknown> & { id: string; peaks: string; labels: string }>(
    'SELECT * FROM clips WHERE id = ? OR abs_path = ? OR path = ? LIMIT 1',
  );
  const recordedFiles = db.prepare<[], { id: string; abs_path: string; sha256: string }>('SELECT id, abs_path, sha256 FROM clips ORDER BY abs_path');

  const upsertClipUtterance = db.prepare<[string, string, string, string | null, string]>(`
    INSERT INTO utterances (id, corpus, clip_id, transcript, labels) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET clip_id = excluded.clip_id, transcript = excluded.transcript, labels = excluded.labels`);
  const linkUtterance = db.prepare<[string, string]>('UPDATE utterances SET clip_id = ? WHERE id = ?');
  const upsertMetasetUtterance = db.prepare<[string, string | null, string]>(`
    INSERT INTO utterances (id, corpus, transcript, labels) VALUES (?, 'metaset', ?, ?)
    ON CONFLICT (id) DO UPDATE SET transcript = excluded.transcript, labels = excluded.labels`);
  const hasUtterance = db.prepare<[string]>('SELECT 1 FROM utterances WHERE id = ?');
  const utteranceClip = db.prepare<[string], { clip_id: string | null; sha256: string | null }>(
    'SELECT u.clip_id, c.sha256 FROM utterances u LEFT JOIN clips c ON c.id = u.clip_id WHERE u.id = ?',
  );
  const clipUtterances = db.prepare<[string], { id: string; transcript: string | null }>('SELECT id, transcript FROM utterances WHERE clip_id = ?');
  const metasetUtteranceIds = db.prepare<[], string>("SELECT id FROM utterances WHERE corpus = 'metaset'").pluck();
  const rememberPath = db.prepare<[string, string]>('INSERT OR REPLACE INTO utterance_paths (wav_path, utterance_id) VALUES (?, ?)');
  const utteranceAtPath = db.prepare<[string], string>('SELECT utterance_id FROM utterance_paths WHERE wav_path = ?').pluck();

  const upsertCaption = db.prepare<[string, string, string, string]>(`
    INSERT INTO captions (utterance_id, system, task, text) VALUES (?, ?, ?, ?)
    ON CONFLICT (utterance_id, system, task) DO UPDATE SET text = excluded.text`);
  const hasCaption = db.prepare<[string, string]>('SELECT 1 FROM captions WHERE utterance_id = ? AND system = ? LIMIT 1');
  const clipCaptions = db.prepare<[string], { system: string; task: string; text: string }>(
    'SELECT system, task, text FROM captions WHERE utterance_id IN (SELECT id FROM utterances WHERE clip_id = ?) ORDER BY system, task',
  );
  const upsertJudgeScore = db.prepare<[string, string, string, string, number]>(`
    INSERT INTO judge_scores (utterance_id, system, judge, run, score) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (utterance_id, system, judge, run) DO UPDATE SET score = excluded.score`);
  const clipJudgeScores = db.prepare<[string], { system: string; judge: string; run: string; score: number }>(
    'SELECT system, judge, run, score FROM judge_scores WHERE utterance_id IN (SELECT id FROM utterances WHERE clip_id = ?) ORDER BY system, judge, run',
  );

  const servedCopy = db.prepare<[string, ServedVariant, string, string, number, number], ServedClipRow>(`
    SELECT clip_id AS clipId, variant, id, file, settings, source_sha256 AS sourceSha256, source_bytes AS sourceBytes,
           source_mtime_ms AS sourceMtimeMs, gain_db AS gainDb, peak_limited AS peakLimited, loudness_dbfs AS loudnessDbfs,
           duration, bytes, tag, peaks, made_at AS madeAt
    FROM served_clips WHERE clip_id = ? AND variant = ? AND settings = ? AND source_sha256 = ? AND source_bytes = ? AND source_mtime_ms = ? LIMIT 1`);
  // One row per copy on disk: a copy is shared by every study (and clip row) that made the same one.
  // A replay's file is made from its clip's copy, so both are named here (the copy first).
  const servedFiles = db.prepare<[], { file: string; clipId: string; variant: ServedVariant; settings: string; copy: string; studies: string }>(`
    SELECT file, min(clip_id) AS clipId, min(variant) AS variant, min(settings) AS settings, min(copy) AS copy, group_concat(study_id, char(0)) AS studies
    FROM (SELECT DISTINCT s.file, s.clip_id, s.variant, s.settings, s.study_id, c.file AS copy
            FROM served_clips s JOIN served_clips c ON c.study_id = s.study_id AND c.clip_id = s.clip_id AND c.variant = '')
    GROUP BY file ORDER BY file`);
  const currentServedId = db.prepare<[string, string, ServedVariant], string>('SELECT id FROM served_clips WHERE study_id = ? AND clip_id = ? AND variant = ?').pluck();
  const servedClipIds = db.prepare<[string], { clipId: string; variant: ServedVariant }>('SELECT clip_id AS clipId, variant FROM served_clips WHERE study_id = ?');
  const removeServed = db.prepare<[string, string, ServedVariant]>('DELETE FROM served_clips WHERE study_id = ? AND clip_id = ? AND variant = ?');
  const upsertServed = db.prepare<[ServedClipRow & { studyId: string }]>(`
    INSERT INTO served_clips (study_id, clip_id, variant, id, file, settings, source_sha256, source_bytes, source_mtime_ms, gain_db,
                              peak_limited, loudness_dbfs, duration, bytes, tag, peaks, made_at)
    VALUES (@studyId, @clipId, @variant, @id, @file, @settings, @sourceSha256, @sourceBytes, @sourceMtimeMs, @gainDb,
            @peakLimited, @loudnessDbfs, @duration, @bytes, @tag, @peaks, @madeAt)
    ON CONFLICT (study_id, clip_id, variant) DO UPDATE SET
      id = excluded.id, file = excluded.file, settings = excluded.settings, source_sha256 = excluded.source_sha256,
      source_bytes = excluded.source_bytes, source_mtime_ms = excluded.source_mtime_ms, gain_db = excluded.gain_db,
      peak_limited = excluded.peak_limited, loudness_dbfs = excluded.loudness_dbfs, duration = excluded.duration,
      bytes = excluded.bytes, tag = excluded.tag, peaks = excluded.peaks,
      made_at = CASE WHEN served_clips.id = excluded.id THEN served_clips.made_at ELSE excluded.made_at END`);

  return {
    /** The meta value under `key`, storing `initial` there first when it has none. */
    metaValue(key: string, initial: string): string {
      insertMeta.run(key, initial);
      return metaByKey.get(key)!;
    },

    clipByPath: (absPath: string): ExistingClip | undefined => clipByPath.get(absPath),
    upsertClip: (row: ClipRow): void => void upsertClip.run(row),
    /** The file moved in time but kept its content: new size/mtime and labels, no new decode. */
    touchClip: (id: string, bytes: number, mtimeMs: number, labels: string): void => void touchClip.run(bytes, mtimeMs, labels, id),
    relabelClip: (id: string, labels: string): void => void relabelClip.run(labels, id, labels),
    clipFile: (id: string): ClipFile | undefined => clipFile.get(id),
    /** The clip's peaks as stored (JSON). */
    clipPeaks: (id: string): string | undefined => clipPeaks.get(id),
    clipSource: (id: string) => clipSource.get(id),
    listClips: (corpus: string | null) => listClips.all(corpus, corpus),
    /** A clip by id, absolute path or path relative to its root. */
    clipByKey: (key: string) => clipByKey.get(key, key, key),
    recordedFiles: () => recordedFiles.all(),

    /** An utterance the clip plays, with its transcript and labels (JSON). */
    upsertClipUtterance: (id: string, corpus: string, clipId: string, transcript: string | null, labels: string): void =>
      void upsertClipUtterance.run(id, corpus, clipId, transcript, labels),
    linkUtterance: (utteranceId: string, clipId: string): void => void linkUtterance.run(clipId, utteranceId),
    upsertMetasetUtterance: (id: string, transcript: string | null, labels: string): void =>
      void upsertMetasetUtterance.run(id, transcript, labels),
    hasUtterance: (id: string): boolean => hasUtterance.get(id) !== undefined,
    /** The utterance's clip and that clip's sha256 (both null when it has none); undefined: no such utterance. */
    utteranceClip: (id: string) => utteranceClip.get(id),
    clipUtterances: (clipId: string) => clipUtterances.all(clipId),
    metasetUtteranceIds: (): string[] => metasetUtteranceIds.all(),
    /** The wav_path a caption file used for an utterance, for judge outputs that name clips by it. */
    rememberPath: (wavPath: string, utteranceId: string): void => void rememberPath.run(wavPath, utteranceId),
    utteranceAtPath: (wavPath: string): string | undefined => utteranceAtPath.get(wavPath),

    upsertCaption: (utteranceId: string, system: string, task: string, text: string): void =>
      void upsertCaption.run(utteranceId, system, task, text),
    hasCaption: (utteranceId: string, system: string): boolean => hasCaption.get(utteranceId, system) !== undefined,
    clipCaptions: (clipId: string) => clipCaptions.all(clipId),
    upsertJudgeScore: (utteranceId: string, system: string, judge: string, run: string, score: number): void =>
      void upsertJudgeScore.run(utteranceId, system, judge, run, score),
    clipJudgeScores: (clipId: string) => clipJudgeScores.all(clipId),

    /** A copy already made of this clip with these settings from the same source file, if any. */
    servedCopy: (clipId: string, variant: ServedVariant, settings: string, sourceSha256: string, sourceBytes: number, sourceMtimeMs: number): ServedClipRow | undefined =>
      servedCopy.get(clipId, variant, settings, sourceSha256, sourceBytes, sourceMtimeMs),
    /**
     * Every copy file served_clips names, with one clip, variant and settings that made it, the file of
     * that clip's copy (a replay is made from it) and the studies (NUL-separated) that serve it.
     */
    servedFiles: () => servedFiles.all(),
    /** The served id the study's listeners get for the clip's copy (or its replay) now. */
    currentServedId: (studyId: string, clipId: string, variant: ServedVariant): string | undefined => currentServedId.get(studyId, clipId, variant),
    servedClipIds: (studyId: string) => servedClipIds.all(studyId),
    removeServed: (studyId: string, clipId: string, variant: ServedVariant): void => void removeServed.run(studyId, clipId, variant),
    /** A study's copy of a clip; made_at stays when the copy is the same one. */
    upsertServed: (studyId: string, row: ServedClipRow): void => void upsertServed.run({ studyId, ...row }),
  };
}
export type ManifestStore = ReturnType<typeof createManifestStore>;

/** The manifest's store on this connection. */
export const manifestStore: (db: Db) => ManifestStore = perConnection(createManifestStore);

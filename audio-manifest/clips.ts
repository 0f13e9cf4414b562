import { statSync } from 'node:fs';
import type { Db } from '../db/open';
import type { AudioFacts, Peaks } from './decode';
import { clipId, installationSecret } from './ids';
import { DecodePool } from './pool';
import { Progress } from './progress';
import type { ImportReport } from './report';

export type Labels = Record<string, unknown>;

/** A file an importer found, with what its corpus says about it. */
export interface ClipCandidate {
  /** Absolute path of the audio file. */
  file: string;
  /** Absolute directory the import started from. */
  root: string;
  /** Path relative to root, with '/' separators. */
  path: string;
  corpus: string;
  labels: Labels;
  /** The utterance this clip plays; transcript/labels omitted = only link an existing utterance. */
  utterance?: { id: string; corpus: string; transcript?: string | null; labels?: Labels };
}

export interface ClipImportOptions {
  report: ImportReport;
  /** Show a progress line even when stderr is not a terminal. */
  progress?: boolean;
  /** Rows written per transaction: a crash loses at most the batch in flight, never half a clip. */
  batchSize?: number;
  pool?: DecodePool;
}

interface ExistingClip {
  id: string;
  bytes: number;
  mtime_ms: number;
  sha256: string;
}

type Write =
  | { kind: 'new' | 'changed'; candidate: ClipCandidate; id: string; facts: AudioFacts; bytes: number; mtimeMs: number }
  | { kind: 'touched' | 'unchanged'; candidate: ClipCandidate; id: string; bytes: number; mtimeMs: number };

/**
 * Indexes audio files into the clips table. Unchanged files (same size and mtime) are not read at all;
 * files whose mtime moved but whose sha256 is unchanged are not decoded again.
 */
export async function importClips(db: Db, candidates: ClipCandidate[], options: ClipImportOptions): Promise<void> {
  const { report } = options;
  const secret = installationSecret(db);
  const byPath = db.prepare<[string], ExistingClip>('SELECT id, bytes, mtime_ms, sha256 FROM clips WHERE abs_path = ?');
  const writer = clipWriter(db);
  const batchSize = options.batchSize ?? 100;
  const progress = new Progress(candidates.length, options.progress ?? (process.stderr.isTTY && candidates.length >= 50));
  const pool = options.pool ?? new DecodePool();
  let batch: Write[] = [];
  const push = (write: Write): void => {
    batch.push(write);
    if (batch.length >= batchSize) {
      writer(batch, report);
      batch = [];
    }
  };

  try {
    const decodes: Promise<void>[] = [];
    for (const candidate of candidates) {
      let stat;
      try {
        stat = statSync(candidate.file);
      } catch (error) {
        report.fail(candidate.file, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message);
        progress.tick();
        continue;
      }
      if (!stat.isFile()) {
        report.fail(candidate.file, 'not a regular file');
        progress.tick();
        continue;
      }
      const existing = byPath.get(candidate.file);
      const id = existing?.id ?? clipId(secret, candidate.corpus, candidate.path);
      const base = { candidate, id, bytes: stat.size, mtimeMs: stat.mtimeMs };
      if (existing && existing.bytes === stat.size && existing.mtime_ms === stat.mtimeMs) {
        push({ kind: 'unchanged', ...base });
        progress.tick();
        continue;
      }
      decodes.push(
        pool.decode(candidate.file, existing?.sha256).then((response) => {
          progress.tick();
          if (!response.ok) report.fail(candidate.file, response.reason);
          else if (response.sameContent) push({ kind: 'touched', ...base });
          else push({ kind: existing ? 'changed' : 'new', ...base, facts: response.facts });
        }),
      );
    }
    await Promise.all(decodes);
    if (batch.length > 0) writer(batch, report);
  } finally {
    progress.finish();
    if (!options.pool) await pool.close();
  }
}

function clipWriter(db: Db): (batch: Write[], report: ImportReport) => void {
  const upsert = db.prepare(`
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
  const touch = db.prepare('UPDATE clips SET bytes = ?, mtime_ms = ?, labels = ? WHERE id = ?');
  const relabel = db.prepare('UPDATE clips SET labels = ? WHERE id = ? AND labels <> ?');
  const upsertUtterance = db.prepare(`
    INSERT INTO utterances (id, corpus, clip_id, transcript, labels) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET clip_id = excluded.clip_id, transcript = excluded.transcript, labels = excluded.labels`);
  const linkUtterance = db.prepare('UPDATE utterances SET clip_id = ? WHERE id = ?');

  return db.transaction((batch: Write[], report: ImportReport) => {
    const now = new Date().toISOString();
    for (const write of batch) {
      const { candidate, id } = write;
      const labels = JSON.stringify(candidate.labels);
      if (write.kind === 'new' || write.kind === 'changed') {
        const { facts } = write;
        upsert.run({
          id, corpus: candidate.corpus, root: candidate.root, path: candidate.path, absPath: candidate.file,
          format: facts.format, codec: facts.codec, duration: facts.duration, sampleRate: facts.sampleRate,
          channels: facts.channels, bytes: write.bytes, mtimeMs: write.mtimeMs, sha256: facts.sha256,
          loudnessDbfs: facts.loudnessDbfs, peaks: JSON.stringify(facts.peaks), labels, importedAt: now,
        });
        if (write.kind === 'new') report.imported++;
        else report.updated++;
      } else {
        if (write.kind === 'touched') touch.run(write.bytes, write.mtimeMs, labels, id);
        else relabel.run(labels, id, labels);
        report.unchanged++;
      }
      const u = candidate.utterance;
      if (u && u.labels !== undefined) upsertUtterance.run(u.id, u.corpus, id, u.transcript ?? null, JSON.stringify(u.labels));
      else if (u) linkUtterance.run(id, u.id);
    }
  });
}

export interface ClipFile {
  absPath: string;
  format: string;
  bytes: number;
  mtimeMs: number;
  sha256: string;
}

/** Where a clip's audio lives, for the server's audio route (which serves it by opaque id only). */
export function clipFile(db: Db, id: string): ClipFile | undefined {
  return db
    .prepare<[string], ClipFile>(
      'SELECT abs_path AS absPath, format, bytes, mtime_ms AS mtimeMs, sha256 FROM clips WHERE id = ?',
    )
    .get(id);
}

/** The stored waveform overview of a clip, ready for wavesurfer.js (no audio decoding on the client). */
export function clipPeaks(db: Db, id: string): Peaks | undefined {
  const row = db.prepare<[string], { peaks: string }>('SELECT peaks FROM clips WHERE id = ?').get(id);
  return row ? (JSON.parse(row.peaks) as Peaks) : undefined;
}

/** What `list --json` prints per clip; scripts consume it. */
export interface ClipListing {
  id: string;
  corpus: string;
  path: string;
  duration: number;
  sampleRate: number;
  channels: number;
  format: string;
  codec: string;
  loudnessDbfs: number | null;
  labels: Labels;
}

export function listClips(db: Db, corpus?: string): ClipListing[] {
  const rows = db
    .prepare<[string | null, string | null], Omit<ClipListing, 'labels'> & { labels: string }>(`
      SELECT id, corpus, path, duration, sample_rate AS sampleRate, channels, format, codec,
             loudness_dbfs AS loudnessDbfs, labels
      FROM clips WHERE (? IS NULL OR corpus = ?) ORDER BY corpus, path`)
    .all(corpus ?? null, corpus ?? null);
  return rows.map((row) => ({ ...row, labels: JSON.parse(row.labels) as Labels }));
}

/** Everything the manifest knows about one clip (by id, absolute path or path relative to its root). */
export function showClip(db: Db, key: string): Record<string, unknown> | undefined {
  const row = db
    .prepare<[string, string, string], Record<string, unknown> & { id: string; peaks: string; labels: string }>(
      'SELECT * FROM clips WHERE id = ? OR abs_path = ? OR path = ? LIMIT 1',
    )
    .get(key, key, key);
  if (!row) return undefined;
  const peaks = JSON.parse(row.peaks) as Peaks;
  const utterances = db
    .prepare<[string], { id: string; transcript: string | null }>('SELECT id, transcript FROM utterances WHERE clip_id = ?')
    .all(row.id);
  const captions = db
    .prepare<[string], { system: string; task: string; text: string }>(
      'SELECT system, task, text FROM captions WHERE utterance_id IN (SELECT id FROM utterances WHERE clip_id = ?) ORDER BY system, task',
    )
    .all(row.id);
  const judgeScores = db
    .prepare<[string], { system: string; judge: string; run: string; score: number }>(
      'SELECT system, judge, run, score FROM judge_scores WHERE utterance_id IN (SELECT id FROM utterances WHERE clip_id = ?) ORDER BY system, judge, run',
    )
    .all(row.id);
  return {
    ...row,
    labels: JSON.parse(row.labels),
    peaks: { resolution: peaks.resolution, pairs: peaks.data.length / 2 },
    utterances,
    captions,
    judgeScores,
  };
}

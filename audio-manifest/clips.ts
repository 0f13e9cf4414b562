import { statSync } from 'node:fs';
import type { Db } from '../db/open';
import type { AudioFacts, Peaks } from './decode';
import { clipId, installationSecret } from './ids';
import { DecodePool } from './pool';
import { Progress } from './progress';
import { renditionStore } from './rendition-store';
import type { ImportReport } from './report';
import { manifestStore } from './store';

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
  /** What the clip's opaque id is keyed on, with the corpus (default: path). */
  identity?: string;
  /** The file's facts, when the importer decoded it already (degraded copies are made from the same read): not decoded again. */
  facts?: AudioFacts;
}

export interface ClipImportOptions {
  report: ImportReport;
  /** Show a progress line even when stderr is not a terminal. */
  progress?: boolean;
  /** Rows written per transaction: a crash loses at most the batch in flight, never half a clip. */
  batchSize?: number;
  pool?: DecodePool;
  /**
   * All or nothing: when any file fails, nothing is written; otherwise every clip, and then `alsoWrite`
   * with each written clip's id, in one transaction.
   */
  allOrNothing?: { alsoWrite: (written: ReadonlyArray<{ candidate: ClipCandidate; id: string }>) => void };
  /** How a file that cannot be imported is reported (default: the file and the reason). */
  refusal?: (candidate: ClipCandidate, reason: string) => { file: string; reason: string };
}

type Write =
  | { kind: 'new' | 'changed'; candidate: ClipCandidate; id: string; facts: AudioFacts; bytes: number; mtimeMs: number }
  | { kind: 'touched' | 'unchanged'; candidate: ClipCandidate; id: string; bytes: number; mtimeMs: number };

/**
 * Indexes audio files into the clips table. Unchanged files (same size and mtime) are not read at all;
 * files whose mtime moved but whose sha256 is unchanged are not decoded again.
 */
export async function importClips(db: Db, candidates: ClipCandidate[], options: ClipImportOptions): Promise<void> {
  const { report, allOrNothing } = options;
  const secret = installationSecret(db);
  const store = manifestStore(db);
  const writer = clipWriter(db);
  const batchSize = allOrNothing ? Infinity : (options.batchSize ?? 100);
  const failuresBefore = report.failures.length;
  const fail = (candidate: ClipCandidate, reason: string): void => {
    const refused = options.refusal?.(candidate, reason) ?? { file: candidate.file, reason };
    report.fail(refused.file, refused.reason);
  };
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
        fail(candidate, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message);
        progress.tick();
        continue;
      }
      if (!stat.isFile()) {
        fail(candidate, 'not a regular file');
        progress.tick();
        continue;
      }
      const existing = store.clipByPath(candidate.file);
      const id = existing?.id ?? clipId(secret, candidate.corpus, candidate.identity ?? candidate.path);
      const base = { candidate, id, bytes: stat.size, mtimeMs: stat.mtimeMs };
      if (existing && existing.bytes === stat.size && existing.mtime_ms === stat.mtimeMs) {
        push({ kind: 'unchanged', ...base });
        progress.tick();
        continue;
      }
      if (candidate.facts) {
        push(existing?.sha256 === candidate.facts.sha256 ? { kind: 'touched', ...base } : { kind: existing ? 'changed' : 'new', ...base, facts: candidate.facts });
        progress.tick();
        continue;
      }
      decodes.push(
        pool.decode(candidate.file, existing?.sha256).then((response) => {
          progress.tick();
          if (!response.ok) fail(candidate, response.reason);
          else if (response.sameContent) push({ kind: 'touched', ...base });
          else push({ kind: existing ? 'changed' : 'new', ...base, facts: response.facts });
        }),
      );
    }
    await Promise.all(decodes);
    if (allOrNothing) {
      const written = batch;
      if (report.failures.length === failuresBefore) {
        db.transaction(() => {
          writer(written, report);
          allOrNothing.alsoWrite(written);
        })();
      }
    } else if (batch.length > 0) writer(batch, report);
  } finally {
    progress.finish();
    if (!options.pool) await pool.close();
  }
}

function clipWriter(db: Db): (batch: Write[], report: ImportReport) => void {
  const store = manifestStore(db);
  return db.transaction((batch: Write[], report: ImportReport) => {
    const now = new Date().toISOString();
    for (const write of batch) {
      const { candidate, id } = write;
      const labels = JSON.stringify(candidate.labels);
      if (write.kind === 'new' || write.kind === 'changed') {
        const { facts } = write;
        store.upsertClip({
          id, corpus: candidate.corpus, root: candidate.root, path: candidate.path, absPath: candidate.file,
          format: facts.format, codec: facts.codec, duration: facts.duration, sampleRate: facts.sampleRate,
          channels: facts.channels, bytes: write.bytes, mtimeMs: write.mtimeMs, sha256: facts.sha256,
          loudnessDbfs: facts.loudnessDbfs, peaks: JSON.stringify(facts.peaks), labels, importedAt: now,
        });
        if (write.kind === 'new') report.imported++;
        else report.updated++;
      } else {
        if (write.kind === 'touched') store.touchClip(id, write.bytes, write.mtimeMs, labels);
        else store.relabelClip(id, labels);
        report.unchanged++;
      }
      const u = candidate.utterance;
      if (u && u.labels !== undefined) store.upsertClipUtterance(u.id, u.corpus, id, u.transcript ?? null, JSON.stringify(u.labels));
      else if (u) store.linkUtterance(u.id, id);
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
  return manifestStore(db).clipFile(id);
}

/** The stored waveform overview of a clip, ready for wavesurfer.js (no audio decoding on the client). */
export function clipPeaks(db: Db, id: string): Peaks | undefined {
  const peaks = manifestStore(db).clipPeaks(id);
  return peaks === undefined ? undefined : (JSON.parse(peaks) as Peaks);
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
  return manifestStore(db).listClips(corpus ?? null).map((row) => ({ ...row, labels: JSON.parse(row.labels) as Labels }));
}

/** Everything the manifest knows about one clip (by id, absolute path or path relative to its root). */
export function showClip(db: Db, key: string): Record<string, unknown> | undefined {
  const store = manifestStore(db);
  const row = store.clipByKey(key);
  if (!row) return undefined;
  const peaks = JSON.parse(row.peaks) as Peaks;
  const utterances = store.clipUtterances(row.id);
  const captions = store.clipCaptions(row.id);
  const judgeScores = store.clipJudgeScores(row.id);
  const renditions = renditionStore(db).ofClip(row.id).map(({ utteranceId, system }) => ({ utteranceId, system }));
  return {
    ...row,
    labels: JSON.parse(row.labels),
    peaks: { resolution: peaks.resolution, pairs: peaks.data.length / 2 },
    utterances,
    captions,
    judgeScores,
    renditions,
  };
}

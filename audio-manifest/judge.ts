import { basename } from 'node:path';
import { z } from 'zod';
import type { Db } from '../db/open';
import { eachCsvRecord } from './csv';
import { describeIssue } from './metaset';
import { ImportReport } from './report';
import { renditionStore } from './rendition-store';
import { manifestStore } from './store';

const Name = z.string().trim().min(1).max(200);

export const JudgeIdentity = z.object({ system: Name, judge: Name, run: Name });
export type JudgeIdentity = z.infer<typeof JudgeIdentity>;

const JudgeOutput = z.looseObject({
  individual_results: z.array(z.unknown(), 'expected an array of per-clip results'),
});
const JudgeResult = z.looseObject({
  index: z.number().int().optional(),
  wav_path: z.string().min(1),
  // 0 is how the benchmark writes an answer it could not parse.
  similarity_score: z.number().finite().min(0, 'must not be negative'),
});
const CsvRow = z.object({
  utterance_id: z.string().trim().min(1),
  system: Name,
  judge: Name,
  run: Name,
  score: z
    .string()
    .refine((s) => s === '' || Number.isFinite(Number(s)), 'must be a number, or empty for a missing score')
    .transform((s) => (s === '' ? null : Number(s)))
    .refine((v) => v === null || v >= 0, 'must not be negative'),
});
const CSV_COLUMNS = ['utterance_id', 'system', 'judge', 'run', 'score'] as const;

export interface JudgeOptions extends Partial<JudgeIdentity> {
  onFailure?: (line: string) => void;
  report?: ImportReport;
  /** The file's text, already read (the study build reads sources asynchronously, within a size cap). */
  text?: string;
}

/** system, judge and run from a `<system>__<judge>__<run>.json` file name, the layout the demo uses. */
export function judgeIdentityFromName(file: string): Partial<JudgeIdentity> {
  const parts = basename(file).replace(/\.json$/i, '').split('__');
  return parts.length === 3 ? { system: parts[0], judge: parts[1], run: parts[2] } : {};
}

/**
 * Imports judge scores: the benchmark's judge-output JSON (one system × judge × run per file, rows
 * joined to utterances through the caption files' wav_path) or a CSV utterance_id,system,judge,run,score.
 * A score of 0 or an empty cell is a missing score, not a score. A score is of a system's caption of
 * the utterance or of the system's rendition of it (automatic quality scores of system audio, e.g. a
 * MOS predictor's, keyed by utterance and system): either must be imported first.
 */
export function importJudgeFile(db: Db, file: string, options: JudgeOptions = {}): ImportReport {
  const report = options.report ?? new ImportReport(options.onFailure);
  const text = options.text ?? report.readInputFile(file);
  if (text === undefined) return report;
  const store = manifestStore(db);
  const renditions = renditionStore(db);
  const rows = judgeScoreRows(file, text, options, utteranceResolver(db), report);
  if (!rows) return report;
  db.transaction(() => {
    for (const row of rows) {
      if (!store.hasUtterance(row.utteranceId)) {
        report.fail(row.where, `utterance ${row.utteranceId} is not imported (import its caption file first)`);
      } else if (!store.hasCaption(row.utteranceId, row.system) && renditions.find(row.utteranceId, row.system) === null) {
        // A score is of a system's caption of the utterance, or of its audio (a MOS predictor's score of a rendition).
        report.fail(row.where, `system ${row.system} has no caption for ${row.utteranceId}`);
      } else if (row.score === null) {
        report.count('missing scores');
      } else {
        store.upsertJudgeScore(row.utteranceId, row.system, row.judge, row.run, row.score);
        report.count('judge scores');
      }
    }
  })();
  return report;
}

export interface ScoreRow extends JudgeIdentity {
  /** `file [result N]` (JSON) or `file:line` (CSV). */
  where: string;
  utteranceId: string;
  /** null: the judge gave no score (0 or an empty cell). */
  score: number | null;
}

/** Finds the utterance a judge output's wav_path names (undefined: none). */
export type UtteranceResolver = (wavPath: string) => string | undefined;

/**
 * The rows of one judge file, CSV or judge-output JSON, without touching the manifest: JSON rows
 * name clips by wav_path, which `resolveUtterance` maps to utterances. Problems go to the report.
 */
export function judgeScoreRows(file: string, text: string, options: JudgeOptions, resolveUtterance: UtteranceResolver, report: ImportReport): ScoreRow[] | undefined {
  return file.toLowerCase().endsWith('.csv') ? csvRows(file, text, report) : jsonRows(file, text, options, resolveUtterance, report);
}

function jsonRows(file: string, text: string, options: JudgeOptions, resolveUtterance: UtteranceResolver, report: ImportReport): ScoreRow[] | undefined {
  const identity = JudgeIdentity.safeParse({ ...judgeIdentityFromName(file), ...definedOnly(options) });
  if (!identity.success) {
    report.fail(file, `${describeIssue(identity.error)} (give --system, --judge and --run, or name the file <system>__<judge>__<run>.json)`);
    return undefined;
  }
  let output: z.infer<typeof JudgeOutput>;
  try {
    const parsed = JudgeOutput.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(describeIssue(parsed.error));
    output = parsed.data;
  } catch (error) {
    report.fail(file, `not a judge output file: ${(error as Error).message}`);
    return undefined;
  }
  const rows: ScoreRow[] = [];
  output.individual_results.forEach((raw, index) => {
    const where = `${file} [result ${index}]`;
    const result = JudgeResult.safeParse(raw);
    if (!result.success) {
      report.fail(where, describeIssue(result.error));
      return;
    }
    const utteranceId = resolveUtterance(result.data.wav_path);
    if (!utteranceId) {
      report.fail(where, `no imported utterance has wav_path ${result.data.wav_path} (import its caption file first)`);
      return;
    }
    const score = result.data.similarity_score;
    rows.push({ where, ...identity.data, utteranceId, score: score === 0 ? null : score });
  });
  return rows;
}

function definedOnly(options: JudgeOptions): Partial<JudgeIdentity> {
  return Object.fromEntries(
    (['system', 'judge', 'run'] as const).filter((k) => options[k] !== undefined).map((k) => [k, options[k]]),
  );
}

/**
 * wav_path → utterance: the exact path a caption file used, else the MetaSet identity
 * (<source>/<relative_audio_path>) found at the end of the path, since judge runs may have been made
 * on another machine with another prefix.
 */
function utteranceResolver(db: Db): UtteranceResolver {
  const store = manifestStore(db);
  let byIdentity: Set<string> | undefined;
  return (wavPath) =>
    store.utteranceAtPath(wavPath) ?? metasetIdentity(wavPath, (byIdentity ??= new Set(store.metasetUtteranceIds())));
}

/** The MetaSet utterance (<source>/<relative_audio_path>) found at the end of a wav_path, among `known`. */
export function metasetIdentity(wavPath: string, known: ReadonlySet<string>): string | undefined {
  const segments = wavPath.split(/[\\/]/).filter(Boolean);
  for (let i = 0; i < segments.length - 1; i++) {
    const id = `metaset:${segments.slice(i).join('/')}`;
    if (known.has(id)) return id;
  }
  return undefined;
}

function csvRows(file: string, text: string, report: ImportReport): ScoreRow[] | undefined {
  const rows: ScoreRow[] = [];
  const read = eachCsvRecord(file, text, CSV_COLUMNS, report, ({ where, cells }) => {
    const row = CsvRow.safeParse(cells);
    if (!row.success) return report.fail(where, describeIssue(row.error));
    const { utterance_id, system, judge, run, score } = row.data;
    rows.push({ where, utteranceId: utterance_id, system, judge, run, score: score === 0 ? null : score });
  });
  return read ? rows : undefined;
}

import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { z } from 'zod';
import type { Db } from '../db/open';
import { importClips, type ClipCandidate } from './clips';
import type { CorpusImportOptions } from './ravdess';
import { ImportReport } from './report';
import { manifestStore } from './store';
import { posixRelative } from './walk';

/** The six StyleInstructCaps caption tasks; multi-prompt sets prefix them with promptN_. */
export const CAPTION_TASKS = [
  'speaker_idiosyncratic_style',
  'situational_contextual_style',
  'expressive_emotional_style',
  'linguistic_pragmatic_style',
  'perceptual_listener_centric_style',
  'holistic_creative_synthesis',
] as const;
const TASK_KEY = new RegExp(`^(prompt\\d+_)?(${CAPTION_TASKS.join('|')})$`);

const GeneratedCaption = z.looseObject({
  used_instruction: z.string().optional(),
  generated_caption: z.string().trim().min(1, 'is empty'),
});

export const MetasetRecord = z.object({
  wav_path: z.string().min(1),
  status: z.string().optional(),
  generated_captions: z.record(z.string(), GeneratedCaption).check((ctx) => {
    for (const key of Object.keys(ctx.value)) {
      if (!TASK_KEY.test(key)) ctx.issues.push({ code: 'custom', message: 'is not a known caption task', path: [key], input: key });
    }
  }),
  metadata: z.looseObject({
    source: z.string().trim().min(1),
    relative_audio_path: z.string().trim().min(1),
    transcription: z.string().optional(),
  }),
});
export type MetasetRecord = z.infer<typeof MetasetRecord>;

// Reference-row fields kept as utterance labels (what attention checks and analysts may use).
const LABEL_FIELDS = [
  'source', 'speakerid', 'gender', 'accent', 'pitch', 'speaking_rate', 'noise', 'intrinsic_tags',
  'situational_tags', 'basic_tags', 'duration', 'snr', 'utterance_pitch_mean',
];

export interface MetasetOptions extends CorpusImportOptions {
  /** The captioning system that wrote this file's generated_captions. */
  system: string;
  /** Folder the records' relative_audio_path (or source/relative_audio_path) resolves against. */
  audioRoot?: string;
  /** Add to an existing report (importing several files as one run). */
  report?: ImportReport;
  /** The file's text, already read (the study build reads sources asynchronously, within a size cap). */
  text?: string;
}

/** Formats the first zod issue as "field: problem" so the line names what is wrong. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const field = issue.path.map(String).join('.');
  return field ? `${field}: ${issue.message}` : issue.message;
}

export function metasetUtteranceId(source: string, relativeAudioPath: string): string {
  return `metaset:${source}/${relativeAudioPath}`;
}

/**
 * Imports one StyleInstructCaps evaluation-input file: utterances, the system's captions per task, the
 * oracle captions from each record's metadata, and (with audioRoot) the clips the records point to.
 */
export async function importMetasetFile(db: Db, file: string, options: MetasetOptions): Promise<ImportReport> {
  const report = options.report ?? new ImportReport(options.onFailure);
  let records: unknown[];
  try {
    const parsed = z.array(z.unknown(), 'expected a JSON array of caption records').safeParse(JSON.parse(options.text ?? readFileSync(file, 'utf8')));
    if (!parsed.success) throw new Error(describeIssue(parsed.error));
    records = parsed.data;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message;
    report.fail(file, `not a MetaSet caption file: ${reason}`);
    return report;
  }
  const audioRoot = options.audioRoot ? resolve(options.audioRoot) : undefined;
  const realRoot = audioRoot && existsSync(audioRoot) ? realpathSync(audioRoot) : audioRoot;
  const store = manifestStore(db);
  const candidates: ClipCandidate[] = [];
  const accepted: Array<{ record: MetasetRecord; id: string }> = [];

  records.forEach((raw, index) => {
    const where = `${file} [record ${index}]`;
    const parsed = MetasetRecord.safeParse(raw);
    if (!parsed.success) {
      report.fail(where, describeIssue(parsed.error));
      return;
    }
    const record = parsed.data;
    const { source, relative_audio_path: rel } = record.metadata;
    if (audioRoot) {
      const found = locateAudio(audioRoot, realRoot!, [rel, `${source}/${rel}`]);
      if (found.refused) {
        report.fail(where, `metadata.relative_audio_path ${JSON.stringify(rel)} ${found.refused}; record refused`);
        return;
      }
      const id = metasetUtteranceId(source, rel);
      if (found.file) {
        candidates.push({
          file: found.file, root: audioRoot, path: posixRelative(audioRoot, found.file), corpus: 'metaset',
          labels: pickLabels(record.metadata), utterance: { id, corpus: 'metaset' },
        });
      } else {
        report.warn(where, `audio ${JSON.stringify(rel)} not found under ${audioRoot}; captions imported without a clip`);
      }
    }
    accepted.push({ record, id: metasetUtteranceId(source, rel) });
  });

  db.transaction(() => {
    for (const { record, id } of accepted) {
      store.upsertMetasetUtterance(id, record.metadata.transcription?.trim() || null, JSON.stringify(pickLabels(record.metadata)));
      store.rememberPath(record.wav_path, id);
      for (const caption of oracleCaptions(record)) {
        store.upsertCaption(id, caption.system, caption.task, caption.text);
        report.count('oracle captions');
      }
      if (!succeeded(record)) {
        report.fail(`${file} [${id}]`, `status is ${JSON.stringify(record.status)}; ${options.system}'s captions skipped`);
        continue;
      }
      for (const caption of systemCaptions(record, options.system)) {
        store.upsertCaption(id, caption.system, caption.task, caption.text);
        report.count('captions');
      }
    }
    report.count('utterances', accepted.length);
  })();
  await importClips(db, candidates, { report, progress: options.progress });
  return report;
}

export interface RecordCaption {
  system: string;
  task: string;
  text: string;
}

/** The reference (oracle) captions a record carries in its metadata, one per caption task. */
export function oracleCaptions(record: MetasetRecord): RecordCaption[] {
  return Object.entries(record.metadata)
    .filter((e): e is [string, string] => TASK_KEY.test(e[0]) && typeof e[1] === 'string' && e[1].trim() !== '')
    .map(([task, text]) => ({ system: 'oracle', task, text: text.trim() }));
}

/** A record the system failed on carries no captions of that system. */
export const succeeded = (record: MetasetRecord): boolean => record.status === undefined || record.status === 'success';

export function systemCaptions(record: MetasetRecord, system: string): RecordCaption[] {
  return Object.entries(record.generated_captions).map(([task, caption]) => ({ system, task, text: caption.generated_caption.trim() }));
}

export function pickLabels(metadata: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(LABEL_FIELDS.filter((k) => metadata[k] !== undefined).map((k) => [k, metadata[k]]));
}

const OUTSIDE = 'points outside --audio-root';

/** First candidate that exists under root; refused if any candidate escapes root (by path or symlink). */
export function locateAudio(root: string, realRoot: string, paths: string[]): { file?: string; refused?: string } {
  const inside = (base: string, target: string): boolean => {
    const rel = relative(base, target);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };
  for (const path of paths) {
    if (isAbsolute(path)) return { refused: OUTSIDE };
    const full = resolve(root, path);
    if (!inside(root, full)) return { refused: OUTSIDE };
    if (!existsSync(full)) continue;
    if (!inside(realRoot, realpathSync(full))) return { refused: OUTSIDE };
    // A FIFO or device named like audio would hang or flood the decoder: refuse it unopened.
    if (!statSync(full).isFile()) return { refused: 'is not a regular file' };
    return { file: full };
  }
  return {};
}

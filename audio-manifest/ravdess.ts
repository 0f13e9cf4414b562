import { basename, dirname, resolve } from 'node:path';
import type { Db } from '../db/open';
import { importClips, type ClipCandidate } from './clips';
import { ImportReport } from './report';
import { posixRelative, walkFiles } from './walk';

// Code tables of the RAVDESS file name (Livingstone & Russo 2018).
const MODALITY: Record<string, string> = { '01': 'audio-video', '02': 'video-only', '03': 'audio-only' };
const VOCAL_CHANNEL: Record<string, string> = { '01': 'speech', '02': 'song' };
const EMOTION: Record<string, string> = {
  '01': 'neutral', '02': 'calm', '03': 'happy', '04': 'sad', '05': 'angry', '06': 'fearful', '07': 'disgust', '08': 'surprised',
};
const INTENSITY: Record<string, string> = { '01': 'normal', '02': 'strong' };
export const RAVDESS_STATEMENTS: Record<string, string> = {
  '01': 'Kids are talking by the door.',
  '02': 'Dogs are sitting by the door.',
};
// The song recordings cover only these emotions.
const SONG_EMOTIONS = new Set(['01', '02', '03', '04', '05', '06']);

export type RavdessLabels = {
  modality: string;
  vocalChannel: string;
  emotion: string;
  intensity: string;
  statement: string;
  statementCode: string;
  repetition: number;
  actor: number;
  sex: 'male' | 'female';
};

/** Parses a RAVDESS file stem (MM-VV-EE-II-SS-RR-AA); throws with the field at fault. */
export function parseRavdessName(stem: string): RavdessLabels {
  const fields = stem.split('-');
  if (fields.length !== 7 || !fields.every((f) => /^\d\d$/.test(f))) {
    throw new Error('file name is not seven two-digit fields MM-VV-EE-II-SS-RR-AA');
  }
  const [mm, vv, ee, ii, ss, rr, aa] = fields;
  const code = (table: Record<string, string>, value: string, field: string): string => {
    const label = table[value];
    if (!label) throw new Error(`unknown ${field} code ${value}`);
    return label;
  };
  const modality = code(MODALITY, mm, 'modality');
  const vocalChannel = code(VOCAL_CHANNEL, vv, 'vocal channel');
  const emotion = code(EMOTION, ee, 'emotion');
  const intensity = code(INTENSITY, ii, 'intensity');
  const statement = code(RAVDESS_STATEMENTS, ss, 'statement');
  if (rr !== '01' && rr !== '02') throw new Error(`unknown repetition code ${rr}`);
  const actor = Number(aa);
  if (actor < 1 || actor > 24) throw new Error(`unknown actor code ${aa}`);
  if (ee === '01' && ii === '02') throw new Error('neutral has no strong intensity in RAVDESS');
  if (vv === '02' && !SONG_EMOTIONS.has(ee)) throw new Error(`song recordings have no ${emotion} emotion`);
  return {
    modality, vocalChannel, emotion, intensity, statement, statementCode: ss,
    repetition: Number(rr), actor, sex: actor % 2 === 1 ? 'male' : 'female',
  };
}

export interface CorpusImportOptions {
  progress?: boolean;
  onFailure?: (line: string) => void;
}

/** Imports a RAVDESS folder laid out as Actor_XX/MM-VV-EE-II-SS-RR-AA.wav. */
export async function importRavdess(db: Db, dir: string, options: CorpusImportOptions = {}): Promise<ImportReport> {
  const report = new ImportReport(options.onFailure);
  await importClips(db, ravdessCandidates(dir, report), { report, progress: options.progress });
  return report;
}

/** The clips of a RAVDESS folder with their labels, read from the file names (nothing is decoded). */
export function ravdessCandidates(dir: string, report: ImportReport): ClipCandidate[] {
  const root = resolve(dir);
  const candidates: ClipCandidate[] = [];
  for (const file of walkFiles(root, report, (name) => name.toLowerCase().endsWith('.wav'))) {
    const stem = basename(file).replace(/\.wav$/i, '');
    let labels: RavdessLabels;
    try {
      labels = parseRavdessName(stem);
      const folder = basename(dirname(file)).match(/^Actor_(\d\d)$/);
      if (folder && Number(folder[1]) !== labels.actor) {
        throw new Error(`is in ${folder[0]} but its name says actor ${String(labels.actor).padStart(2, '0')}`);
      }
    } catch (error) {
      report.fail(file, (error as Error).message);
      continue;
    }
    candidates.push({
      file, root, path: posixRelative(root, file), corpus: 'ravdess', labels,
      utterance: { id: `ravdess:${stem}`, corpus: 'ravdess', transcript: labels.statement, labels },
    });
  }
  return candidates;
}

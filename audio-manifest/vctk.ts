import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import type { Db } from '../db/open';
import { importClips, type ClipCandidate } from './clips';
import type { CorpusImportOptions } from './ravdess';
import { ImportReport } from './report';
import { posixRelative, walkFiles } from './walk';

export interface VctkSpeaker {
  speaker: string;
  age: number | null;
  gender: 'male' | 'female' | null;
  accent: string | null;
  region: string | null;
  comment: string | null;
}

const SpeakerRow = z.object({
  id: z.string().regex(/^[a-z]?\d+$/i, 'speaker id must be digits, optionally prefixed by a letter'),
  age: z.coerce.number().int().min(1).max(120),
  gender: z.enum(['M', 'F']),
});

/**
 * Parses speaker-info.txt. Columns are whitespace-separated but REGION may hold spaces or be missing,
 * some accents are two words ("Australian English"), IDs appear with or without the 'p' prefix
 * depending on the release, and 0.92 adds a parenthesised comment.
 */
export function parseSpeakerInfo(text: string, file: string, report: ImportReport): Map<string, VctkSpeaker> {
  const speakers = new Map<string, VctkSpeaker>();
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || /^id\b/i.test(trimmed)) return;
    const commentAt = trimmed.indexOf('(');
    const comment = commentAt >= 0 ? trimmed.slice(commentAt).trim() : null;
    const tokens = (commentAt >= 0 ? trimmed.slice(0, commentAt) : trimmed).split(/\s+/).filter(Boolean);
    const row = SpeakerRow.safeParse({ id: tokens[0], age: tokens[1], gender: tokens[2] });
    if (!row.success) {
      const issue = row.error.issues[0];
      report.fail(`${file}:${index + 1}`, `${String(issue.path[0] ?? 'row')}: ${issue.message}`);
      return;
    }
    let accent = tokens[3] ?? null;
    let rest = tokens.slice(4);
    if (accent && accent !== 'English' && rest[0] === 'English') {
      accent = `${accent} English`;
      rest = rest.slice(1);
    }
    const id = /^\d/.test(row.data.id) ? `p${row.data.id}` : row.data.id.toLowerCase();
    speakers.set(id, {
      speaker: id, age: row.data.age, gender: row.data.gender === 'M' ? 'male' : 'female',
      accent, region: rest.length > 0 ? rest.join(' ') : null, comment,
    });
  });
  return speakers;
}

export interface VctkOptions extends CorpusImportOptions {
  /** 0.92 has two microphones per utterance; the study uses one. */
  mic?: 1 | 2;
  /** Which layout to read; auto prefers 0.92 when both are present. */
  layout?: 'auto' | '0.92' | '0.80';
}

/** Imports a VCTK folder in the 0.92 (wav48_silence_trimmed/*.flac) or 0.80 (wav48/*.wav) layout. */
export async function importVctk(db: Db, dir: string, options: VctkOptions = {}): Promise<ImportReport> {
  const report = new ImportReport(options.onFailure);
  await importClips(db, vctkCandidates(dir, options, report), { report, progress: options.progress });
  return report;
}

/** The clips of a VCTK folder with their speaker labels and transcripts (nothing is decoded). */
export function vctkCandidates(dir: string, options: Omit<VctkOptions, keyof CorpusImportOptions>, report: ImportReport): ClipCandidate[] {
  const root = resolve(dir);
  const mic = options.mic ?? 1;
  const layout = options.layout ?? 'auto';
  const has092 = existsSync(join(root, 'wav48_silence_trimmed'));
  const use092 = layout === '0.92' || (layout === 'auto' && has092);
  const audioDir = join(root, use092 ? 'wav48_silence_trimmed' : 'wav48');
  if (!existsSync(audioDir)) {
    report.fail(root, `no ${use092 ? 'wav48_silence_trimmed' : 'wav48'} folder (is this a VCTK ${use092 ? '0.92' : '0.80'} folder?)`);
    return [];
  }
  const infoFile = join(root, 'speaker-info.txt');
  let speakers = new Map<string, VctkSpeaker>();
  try {
    speakers = parseSpeakerInfo(readFileSync(infoFile, 'utf8'), infoFile, report);
  } catch {
    report.fail(infoFile, 'cannot read speaker-info.txt; clips get no speaker labels');
  }
  const pattern = use092 ? new RegExp(`^((p|s)\\d+)_(\\d+)_mic${mic}\\.flac$`, 'i') : /^((p|s)\d+)_(\d+)\.wav$/i;
  const otherAudio = use092 ? /\.flac$/i : /\.wav$/i;
  const otherMic = new RegExp(`_mic${mic === 1 ? 2 : 1}\\.flac$`, 'i');
  const candidates: ClipCandidate[] = [];
  for (const file of walkFiles(audioDir, report, (name) => otherAudio.test(name))) {
    const name = basename(file);
    if (use092 && otherMic.test(name)) continue;
    const match = name.match(pattern);
    if (!match) {
      report.fail(file, `file name is not ${use092 ? `pNNN_NNN_mic${mic}.flac` : 'pNNN_NNN.wav'}`);
      continue;
    }
    const speaker = match[1].toLowerCase();
    const utterance = `${speaker}_${match[3]}`;
    const info = speakers.get(speaker);
    if (!info) report.count('clips without speaker info');
    const labels = { ...(info ?? { speaker }), ...(use092 ? { mic } : {}) };
    let transcript: string | null = null;
    try {
      transcript = readFileSync(join(root, 'txt', speaker, `${utterance}.txt`), 'utf8').trim();
    } catch {
      // Some speakers (p315) have no transcripts in the corpus; that is not an error.
      report.count('clips without transcript');
    }
    candidates.push({
      file, root, path: posixRelative(root, file), corpus: 'vctk', labels,
      utterance: { id: `vctk:${utterance}`, corpus: 'vctk', transcript, labels },
    });
  }
  return candidates;
}

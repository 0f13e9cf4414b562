/**
 * Renditions: system S's audio of utterance U (a TTS or voice-conversion system's output, a codec's,
 * a degraded copy), imported from folders `<root>/<system>/<utterance-or-file-stem>.wav|.flac` or
 * from a list (CSV `utterance_id,system,path`, or JSON `[{ "utterance_id", "system", "path" }]`) and
 * matched to the utterances already in the manifest (RAVDESS, VCTK, MetaSet, ...). Each file goes
 * through the clip import (decoded, peaks, loudness), so it is served as a normalised,
 * metadata-free copy like every clip. Each rendition also gets its degraded copy (degrade.ts), the
 * rendition of system `degraded:<system>`, for A/B attention checks. All or nothing: a refusal leaves
 * the manifest as it was.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, posix, resolve } from 'node:path';
import { z } from 'zod';
import type { Db } from '../db/open';
import { importClips, type ClipCandidate } from './clips';
import { eachCsvRecord } from './csv';
import { degradedSystem } from './degrade';
import { ANCHOR_CORPUS, anchorLabels, DEGRADED_CORPUS, degradedAudioDir, degradedLabels, writeDegradedCopies } from './degraded-copies';
import { ANCHOR_ROLES, anchorSystem } from './anchors';
import { describeIssue } from './metaset';
import { DecodePool } from './pool';
import { renditionStore } from './rendition-store';
import { ImportReport } from './report';
import { manifestStore } from './store';
import { posixRelative, walkFiles } from './walk';

/** The corpus of clips imported as renditions. */
export const RENDITION_CORPUS = 'rendition';
const AUDIO = /\.(wav|flac)$/i;
const LIST_COLUMNS = ['utterance_id', 'system', 'path'] as const;
/** What a rendition file must be, for refusals to say. */
const ACCEPTED_AUDIO = 'a rendition is a WAV (PCM 8–32-bit or float) or FLAC file';
const NAMING =
  'a file is named by its utterance: the corpus file stem (RAVDESS 03-01-05-01-02-01-12, VCTK p225_001, MetaSet the relative_audio_path without extension)';

const Name = z.string().trim().min(1, 'is empty').max(200, 'is longer than 200 characters');

/**
 * Why a system name given by the user cannot be a rendition's system, or null. ':' is reserved for the
 * systems Earmark derives from a system's renditions (degradedSystem: `degraded:<system>`), so a user's
 * system can never be mistaken for, or overwrite, a derived one.
 */
export function systemNameProblem(name: string): string | null {
  if (!name.includes(':')) return null;
  return `${JSON.stringify(name)} contains ':', which is reserved for the systems Earmark derives (${degradedSystem('<system>')}: a system's degraded copies, for A/B attention checks); name the system without ':' (e.g. ${JSON.stringify(name.replaceAll(':', '-'))})`;
}

const SystemName = Name.superRefine((name, ctx) => {
  const problem = systemNameProblem(name);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const ListRow = z.object({ utterance_id: Name, system: SystemName, path: Name });

/** One rendition file to import: where it was named, the file, and whose audio of which utterance it is. */
export interface RenditionFile {
  /** `file:line` or `file [record N]` (lists), or the audio file itself (folders). */
  where: string;
  file: string;
  /** The folder a folder import started from, or the list's folder; the clip's path is relative to it. */
  root: string;
  system: string;
  utteranceId: string;
}

const stem = (path: string): string => path.replace(AUDIO, '');

/**
 * The names a rendition file may go by for each utterance, most specific first: the id itself, the
 * corpus path within the id (`demo/demo-01`, `p225_001`), its file stem (`demo-01`), and the stem of
 * the utterance's own clip file (`p225_001_mic1`). A name shared by several utterances goes to the one
 * for which it is most specific: `p225_001` is VCTK's utterance, not a MetaSet record of the same file.
 */
export class UtteranceIndex {
  private readonly byName = new Map<string, Map<string, number>>();
  private readonly first: string | undefined;

  constructor(utterances: Iterable<{ id: string; clipPath: string | null }>) {
    let first: string | undefined;
    for (const u of utterances) {
      first ??= u.id;
      const rest = u.id.slice(u.id.indexOf(':') + 1);
      const names = [u.id, stem(rest), stem(posix.basename(rest)), ...(u.clipPath ? [stem(posix.basename(u.clipPath))] : [])];
      names.forEach((name, level) => {
        const ids = this.byName.get(name) ?? new Map<string, number>();
        if (!ids.has(u.id)) ids.set(u.id, level);
        this.byName.set(name, ids);
      });
    }
    this.first = first;
  }

  get empty(): boolean {
    return this.first === undefined;
  }

  /** An utterance id from the index, for refusals to show what is accepted. */
  example(): string {
    return this.first ?? 'none: the manifest has no utterances yet';
  }

  /** The utterance the first of `names` that any utterance goes by names; several: ambiguous. */
  resolve(names: readonly string[]): { id: string } | { ambiguous: string[] } | null {
    for (const name of names) {
      const ids = this.byName.get(name);
      if (!ids) continue;
      const best = Math.min(...ids.values());
      const at = [...ids].filter(([, level]) => level === best).map(([id]) => id);
      return at.length === 1 ? { id: at[0] } : { ambiguous: at.sort() };
    }
    return null;
  }
}

/** The manifest's utterances as a rendition index. */
export function manifestUtteranceIndex(db: Db): UtteranceIndex {
  return new UtteranceIndex(renditionStore(db).utterances());
}

/** What the utterances were looked for in, for refusals: the manifest (an import), or a study's own sources (its validate). */
export interface Scope {
  name: string;
  /** What to do when nothing matches. */
  hint: string;
}
const MANIFEST: Scope = { name: 'the manifest', hint: 'import the corpus or caption files first' };
export const STUDY_SOURCES: Scope = { name: "the study's sources", hint: 'name the corpus or caption files among the sources' };

export interface PlanOptions {
  /** The folders are one system's files (`<dir>/<utterance>.wav`), not a folder of system folders. */
  system?: string;
  /** List files' texts, already read, by absolute path (the study build reads sources asynchronously, within a size cap). */
  texts?: Map<string, string>;
  scope?: Scope;
}

const listed = (names: string[], max = 10): string =>
  names.slice(0, max).join(', ') + (names.length > max ? ` … and ${names.length - max} more` : '');

/**
 * The rendition files of the given folders and list files, matched to `index`'s utterances,
 * without touching the manifest or decoding anything. Refusals go to the report as failures;
 * files that match no utterance (in a system folder where others do) as one warning, counted.
 */
export function planRenditions(inputs: readonly string[], index: UtteranceIndex, report: ImportReport, options: PlanOptions = {}): RenditionFile[] {
  const scope = options.scope ?? MANIFEST;
  const files: RenditionFile[] = [];
  const unmatched: string[] = [];
  for (const input of inputs) {
    const path = resolve(input);
    if (/\.(csv|json)$/i.test(path)) {
      if (options.system) report.fail(path, `--system is for a folder of one system's files; a list names the system in each row`);
      const text = options.texts?.get(path) ?? report.readInputFile(path);
      if (text !== undefined) files.push(...listRenditions(path, text, index, scope, report));
    } else files.push(...folderRenditions(path, index, scope, report, unmatched, options.system));
  }
  // The same system's audio of the same utterance named twice (two files, or two inputs) is refused: which one plays?
  const seen = new Map<string, RenditionFile>();
  const sameFile = new Map<string, RenditionFile>();
  for (const f of files) {
    const key = `${f.utteranceId}\0${f.system}`;
    const first = seen.get(key);
    const other = sameFile.get(f.file);
    if (first) report.fail(f.where, `is a second rendition of ${f.utteranceId} by system ${f.system} (the first: ${first.where}); give one file per utterance and system`);
    else if (other) report.fail(f.where, `path: ${f.file} is already ${other.system}'s rendition of ${other.utteranceId} (${other.where}); one file is one rendition`);
    seen.set(key, first ?? f);
    sameFile.set(f.file, other ?? f);
  }
  if (unmatched.length > 0) {
    report.warn(inputs.join(', '), `${unmatched.length} file${unmatched.length === 1 ? '' : 's'} match${unmatched.length === 1 ? 'es' : ''} no utterance in ${scope.name} and ${unmatched.length === 1 ? 'was' : 'were'} skipped: ${listed(unmatched)}`);
    report.count('unmatched files', unmatched.length);
  }
  return files;
}

function folderRenditions(root: string, index: UtteranceIndex, scope: Scope, report: ImportReport, unmatched: string[], system: string | undefined): RenditionFile[] {
  let entries;
  try {
    if (!statSync(root).isDirectory()) throw Object.assign(new Error('is not a folder'), { code: 'ENOTDIR' });
    entries = readdirSync(root, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    report.fail(root, `${code === 'ENOENT' ? 'not found' : code === 'ENOTDIR' ? 'is not a folder' : (error as Error).message}; give a folder <root>/<system>/<utterance>.wav|.flac, a list .csv (header ${LIST_COLUMNS.join(',')}) or a list .json`);
    return [];
  }
  const systems: [string, string][] = system
    ? [[system, root]]
    : entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : 1)).map((e) => [e.name, join(root, e.name)]);
  if (!system) {
    const loose = entries.filter((e) => e.isFile() && AUDIO.test(e.name)).map((e) => e.name).sort();
    if (loose.length > 0) {
      report.fail(root, `holds audio files outside any system folder (${listed(loose, 3)}): expected <root>/<system>/<utterance>.wav|.flac, or give --system <name> for a folder of one system's files`);
    }
    if (systems.length === 0 && loose.length === 0) report.fail(root, 'holds no system folder: expected <root>/<system>/<utterance>.wav|.flac');
  }
  const found: RenditionFile[] = [];
  for (const [name, dir] of systems) {
    const problem = systemNameProblem(name);
    if (problem) {
      report.fail(system ? root : dir, system ? `--system: ${problem}` : `system folder name ${problem}; rename the folder`);
      continue;
    }
    const audio = walkFiles(dir, report, (file) => AUDIO.test(file));
    if (audio.length === 0) {
      report.fail(dir, `system folder ${name} holds no .wav or .flac file: expected ${name}/<utterance>.wav|.flac`);
      continue;
    }
    const matched: RenditionFile[] = [];
    const missed: string[] = [];
    for (const file of audio) {
      const rel = stem(posixRelative(dir, file));
      const match = index.resolve([rel, stem(basename(file))]);
      if (match === null) missed.push(posixRelative(root, file));
      else if ('ambiguous' in match) {
        report.fail(file, `matches several utterances (${listed(match.ambiguous, 5)}): name it by the utterance's path (e.g. ${name}/${match.ambiguous[0].slice(match.ambiguous[0].indexOf(':') + 1).replace(AUDIO, '')}.wav) or list it in a .csv with its utterance_id`);
      } else matched.push({ where: file, file, root, system: name, utteranceId: match.id });
    }
    if (matched.length === 0 && missed.length === audio.length) {
      report.fail(dir, `no file of system ${name} matches an utterance in ${scope.name} (${audio.length} file${audio.length === 1 ? '' : 's'}, e.g. ${basename(audio[0])}): ${NAMING}, e.g. ${index.example()}; ${scope.hint}`);
      continue;
    }
    found.push(...matched);
    unmatched.push(...missed);
  }
  return found;
}

function listRenditions(file: string, text: string, index: UtteranceIndex, scope: Scope, report: ImportReport): RenditionFile[] {
  const root = dirname(file);
  const found: RenditionFile[] = [];
  let rows = 0;
  const row = ({ where, cells }: { where: string; cells: Record<string, unknown> }): void => {
    rows++;
    const parsed = ListRow.safeParse(cells);
    if (!parsed.success) return report.fail(where, `${describeIssue(parsed.error)} (a row names utterance_id, system and path)`);
    const { utterance_id, system, path } = parsed.data;
    const match = index.resolve([utterance_id]);
    if (match === null) {
      return report.fail(where, `utterance_id: no utterance ${JSON.stringify(utterance_id)} in ${scope.name}; give an imported utterance's id (e.g. ${index.example()}) or its corpus file stem (VCTK p225_001, RAVDESS 03-01-05-01-02-01-12)`);
    }
    if ('ambiguous' in match) return report.fail(where, `utterance_id: ${JSON.stringify(utterance_id)} names several utterances (${listed(match.ambiguous, 5)}); give the full id`);
    const audio = isAbsolute(path) ? path : resolve(root, path);
    if (!AUDIO.test(audio)) return report.fail(where, `path: ${JSON.stringify(path)} is not a .wav or .flac file (${ACCEPTED_AUDIO})`);
    let stat;
    try {
      stat = statSync(audio);
    } catch {
      return report.fail(where, `path: ${JSON.stringify(path)} not found (looked at ${audio}; a relative path starts at the list's folder)`);
    }
    if (!stat.isFile()) return report.fail(where, `path: ${JSON.stringify(path)} is not a regular file`);
    found.push({ where, file: audio, root: posixRelative(root, audio).startsWith('..') ? dirname(audio) : root, system, utteranceId: match.id });
  };
  let read: boolean;
  if (file.toLowerCase().endsWith('.csv')) read = eachCsvRecord(file, text, LIST_COLUMNS, report, row);
  else {
    const records = jsonRecords(file, text, report);
    records?.forEach(row);
    read = records !== undefined;
  }
  if (read && rows === 0) report.fail(file, `lists no renditions (expected rows ${LIST_COLUMNS.join(',')})`);
  return found;
}

function jsonRecords(file: string, text: string, report: ImportReport): { where: string; cells: Record<string, unknown> }[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    report.fail(file, `is not valid JSON (expected an array of { "utterance_id", "system", "path" })`);
    return undefined;
  }
  if (!Array.isArray(value)) {
    report.fail(file, `is not a JSON array (expected an array of { "utterance_id", "system", "path" })`);
    return undefined;
  }
  return value.map((cells, i) => ({ where: `${file} [record ${i}]`, cells: typeof cells === 'object' && cells !== null ? (cells as Record<string, unknown>) : {} }));
}

/** A rendition file that cannot be imported, as a refusal: where it was named, the field, why, and what is accepted. */
export function undecodable(rendition: RenditionFile, reason: string): { file: string; reason: string } {
  const field = rendition.where === rendition.file ? '' : 'path: ';
  return { file: rendition.where, reason: `${field}${rendition.file} cannot be decoded: ${reason} (${ACCEPTED_AUDIO})` };
}

export interface RenditionImportOptions extends Omit<PlanOptions, 'scope'> {
  report?: ImportReport;
  onFailure?: (line: string) => void;
  progress?: boolean;
}

/**
 * Imports renditions from folders and list files (see the file comment) in one transaction: when any
 * input is refused (an unknown utterance, a file that does not decode, a system folder that matches
 * nothing), nothing is written. Each rendition's degraded copy (degraded-copies.ts) is written to the
 * data dir first, then imported as a clip and registered as the rendition of `degraded:<system>` in the
 * same transaction (a copy left by a refused import is harmless: it is reused), and so are its MUSHRA
 * anchors (anchors.ts) as the renditions of `anchor35:<system>` and `anchor70:<system>`. Importing the same
 * files again changes nothing.
 */
export async function importRenditions(db: Db, inputs: readonly string[], options: RenditionImportOptions = {}): Promise<ImportReport> {
  const report = options.report ?? new ImportReport(options.onFailure);
  const failuresBefore = report.failures.length;
  const index = manifestUtteranceIndex(db);
  const files = planRenditions(inputs, index, report, options);
  if (report.failures.length > failuresBefore) {
    report.count('renditions refused, nothing imported', files.length);
    return report;
  }
  const store = renditionStore(db);
  const byFile = new Map<string, RenditionFile>();
  // A corpus clip a system folder points to (natural speech as the reference system) is linked as it is, not imported again.
  const corpusClips: { rendition: RenditionFile; clipId: string }[] = [];
  const candidates: ClipCandidate[] = [];
  for (const f of files) {
    const existing = store.clipAtPath(f.file);
    if (existing && existing.corpus !== RENDITION_CORPUS) {
      corpusClips.push({ rendition: f, clipId: existing.id });
      continue;
    }
    byFile.set(f.file, f);
    candidates.push({
      file: f.file, root: f.root, path: posixRelative(f.root, f.file), corpus: RENDITION_CORPUS,
      labels: { system: f.system, utterance: f.utteranceId },
      // Keyed on whose audio of what, not on the path: two lists with the same relative paths are different renditions.
      identity: `${f.system}\0${f.utteranceId}`,
    });
  }
  // One copy per source content: renditions with the same audio share it. Made in the decode workers,
  // which hand back the sources' facts too, so nothing is decoded twice.
  const pool = new DecodePool();
  try {
    const manifest = manifestStore(db);
    const copies = await writeDegradedCopies(files.map((f) => f.file), { dir: degradedAudioDir(db), pool, clipAt: (file) => manifest.clipByPath(file) });
    for (const candidate of candidates) candidate.facts = copies.get(candidate.file)?.sourceFacts;
    const copyFiles = new Map([...copies.values()].map((c) => [c.file, c]));
    for (const copy of copyFiles.values()) {
      candidates.push({ file: copy.file, root: dirname(copy.file), path: basename(copy.file), corpus: DEGRADED_CORPUS, labels: degradedLabels(copy.sourceSha256), facts: copy.copyFacts });
      for (const a of copy.anchors) candidates.push({ file: a.file, root: dirname(a.file), path: basename(a.file), corpus: ANCHOR_CORPUS, labels: anchorLabels(a.role, copy.sourceSha256), facts: a.facts });
    }
    const write = (written: ReadonlyArray<{ candidate: ClipCandidate; id: string }>): void => {
      const rows = [...written.filter((w) => byFile.has(w.candidate.file)).map((w) => ({ rendition: byFile.get(w.candidate.file)!, clipId: w.id })), ...corpusClips];
      let changed = 0;
      for (const { rendition, clipId } of rows) if (store.upsert(rendition.utteranceId, rendition.system, clipId)) changed++;
      report.count('renditions', rows.length);
      if (changed < rows.length) report.count('renditions unchanged', rows.length - changed);
      report.count('systems', new Set(rows.map((r) => r.rendition.system)).size);
      const copyIds = new Map(written.map((w) => [w.candidate.file, w.id]));
      let copied = 0;
      for (const { rendition } of rows) {
        // Every file that decodes has its copy, and the import is written only when every file decodes;
        // should a copy still be missing (its worker crashed), the transaction is rolled back.
        const copy = copies.get(rendition.file);
        if (!copy) throw new Error(`${rendition.where}: no degraded copy of ${rendition.file} could be made; nothing imported, import again`);
        if (store.upsert(rendition.utteranceId, degradedSystem(rendition.system), copyIds.get(copy.file)!)) copied++;
        // The MUSHRA anchors of the rendition: renditions of `anchor35:<system>` and `anchor70:<system>`.
        for (const a of copy.anchors) store.upsert(rendition.utteranceId, anchorSystem(a.role, rendition.system), copyIds.get(a.file)!);
      }
      report.count('degraded copies', rows.length);
      report.count('MUSHRA anchors', rows.length * ANCHOR_ROLES.length);
      if (copied < rows.length) report.count('degraded copies unchanged', rows.length - copied);
    };
    await importClips(db, candidates, {
      report, progress: options.progress, pool,
      refusal: (candidate, reason) => {
        const rendition = byFile.get(candidate.file);
        return rendition ? undecodable(rendition, reason) : { file: candidate.file, reason };
      },
      allOrNothing: { alsoWrite: write },
    });
  } finally {
    await pool.close();
  }
  if (report.failures.length > failuresBefore) report.count('renditions refused, nothing imported', files.length);
  return report;
}

import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import { isMap, isSeq, parseDocument } from 'yaml';
import { unzipSync } from 'fflate';
import { AUDIO_UPLOAD_BYTES, type AudioFolder, type StudyFileKind, type StudyFiles, type UploadAudioBody } from '../../contract/studio';
import { unplayableFiles } from '../../audio-manifest/check';
import { ImportReport } from '../../audio-manifest/report';
import { parseVoxreasonCases } from '../../audio-manifest/voxreason';
import { walkFiles } from '../../audio-manifest/walk';
import { conflict, HttpError, notFound } from '../errors';

const TEMPLATES_DIR = fileURLToPath(new URL('../../studies/templates/', import.meta.url));

/** A write refused because the disk (or the user's quota) is full: 503, in words a researcher can act on. */
const diskFull = () =>
  new HttpError(503, 'disk_full', 'the server\'s disk is full, so nothing was saved. Free some space on the server (or ask whoever runs it) and try again.');

/**
 * Written beside the target and renamed over it, so a crash never leaves half a file; a full disk
 * leaves no partial file either and answers diskFull.
 */
function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    throw code === 'ENOSPC' || code === 'EDQUOT' ? diskFull() : error;
  }
}

const listFiles = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir).filter((f) => /\.(json|csv|jsonl)$/.test(f)).sort() : [];

const AUDIO_DIR = 'audio';
const isClip = (name: string) => /\.(wav|flac)$/i.test(name);
const RAVDESS_NAME = /^\d\d-\d\d-\d\d-\d\d-\d\d-\d\d-\d\d\.wav$/i;

/** The corpus layout an audio folder has: RAVDESS names every clip by its seven fields; VCTK has speaker-info.txt and wav48*. */
function corpusLayout(dir: string, clips: readonly string[]): AudioFolder['corpus'] {
  if (existsSync(join(dir, 'speaker-info.txt')) && (existsSync(join(dir, 'wav48')) || existsSync(join(dir, 'wav48_silence_trimmed')))) return 'vctk';
  return clips.length > 0 && clips.every((c) => RAVDESS_NAME.test(basename(c))) ? 'ravdess' : null;
}

/** One file of an audio upload, its path inside the uploaded folder. */
interface UploadEntry {
  path: string;
  bytes: Uint8Array;
}

export interface UploadProblem {
  file: string;
  message: string;
}

/** A path segment a folder of a corpus may have: no `..`, no hidden files, nothing a shell would trip on. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9 ._()-]{0,127}$/;

/** Files the operating system adds to folders and zips, never the researcher's. */
const clutter = (path: string) => path.split('/').some((part) => part === '__MACOSX' || part === '.DS_Store' || part === 'Thumbs.db' || part.startsWith('._'));

/** The upload's files: a zip's entries (capped before they are inflated) or the folder's; a single top folder is dropped. */
function uploadEntries(body: UploadAudioBody): { entries: UploadEntry[]; problems: UploadProblem[] } {
  const problems: UploadProblem[] = [];
  let entries: UploadEntry[] = [];
  if (body.zip !== undefined) {
    let declared = 0;
    try {
      const files = unzipSync(Buffer.from(body.zip, 'base64'), {
        filter: (f) => {
          if (f.name.endsWith('/') || clutter(f.name)) return false;
          declared += f.originalSize;
          if (declared > AUDIO_UPLOAD_BYTES) throw new Error(`unpacks to more than ${AUDIO_UPLOAD_BYTES / 1024 / 1024} MiB`);
          return true;
        },
      });
      entries = Object.entries(files).map(([path, bytes]) => ({ path, bytes }));
    } catch (error) {
      return { entries: [], problems: [{ file: `${body.folder}.zip`, message: `cannot be unpacked: ${(error as Error).message}; upload a .zip of the folder (or the folder itself)` }] };
    }
  } else {
    entries = body.files!.filter((f) => !clutter(f.path.replace(/\\/g, '/'))).map((f) => ({ path: f.path, bytes: Buffer.from(f.content, 'base64') }));
    const total = entries.reduce((n, e) => n + e.bytes.length, 0);
    if (total > AUDIO_UPLOAD_BYTES) return { entries: [], problems: [{ file: body.folder, message: `is ${total} bytes, more than the ${AUDIO_UPLOAD_BYTES}-byte limit of one upload; upload it in parts or name it in EARMARK_CORPORA` }] };
  }
  const split = entries.map((e) => e.path.replace(/\\/g, '/').split('/').filter((p) => p !== ''));
  // A folder chosen in the browser, or zipped, arrives inside its own name: RAVDESS/Actor_01/… is Actor_01/… here.
  const top = split[0]?.[0];
  const strip = top !== undefined && SEGMENT.test(top) && split.every((parts) => parts.length > 1 && parts[0] === top) ? 1 : 0;
  const kept: UploadEntry[] = [];
  entries.forEach((entry, i) => {
    const parts = split[i].slice(strip);
    const bad = parts.find((p) => !SEGMENT.test(p));
    if (parts.length === 0 || bad !== undefined) problems.push({ file: entry.path, message: `the name ${JSON.stringify(bad ?? entry.path)} is not allowed in an uploaded folder (letters, digits, space . _ ( ) -; no .. or hidden files)` });
    else if (!isClip(parts.at(-1)!) && !/\.txt$/i.test(parts.at(-1)!)) problems.push({ file: parts.join('/'), message: 'is not WAV, FLAC or .txt (speaker-info.txt, transcripts); leave it out of the folder' });
    else kept.push({ path: parts.join('/'), bytes: entry.bytes });
  });
  if (kept.length === 0 && problems.length === 0) problems.push({ file: body.folder, message: 'holds no files' });
  return { entries: kept, problems };
}

/** One change the studio made to a study folder, and what to put back to undo it. */
export interface UndoStep {
  description: string;
  at: string;
  /** the changed file, relative to the study folder */
  target: string;
  /** the file's text before the change; null when the change created it */
  previous: string | null;
}
const UNDO_DIR = '.undo';
// Enough to walk back a session of setting a study up; the oldest steps are dropped.
const UNDO_DEPTH = 50;

/**
 * Study folders the studio manages: `<dataDir>/studies/<name>/` with `study.yaml`, `captions/`
 * and `judges/` — the layout `npm run study` reads, so a study made in the browser builds the
 * same way from the shell. Names are checked by the API (StudyId, StudyFileName) before they
 * get here, so no path can leave the folder.
 */
export function studyFolders(dataDir: string) {
  const root = join(dataDir, 'studies');
  const dir = (name: string) => join(root, name);
  const yamlFile = (name: string) => join(dir(name), 'study.yaml');
  const exists = (name: string) => existsSync(yamlFile(name));
  const assertExists = (name: string) => {
    if (!exists(name)) throw notFound('no_study_folder', `study ${name} has no folder under the data directory; the studio can only edit studies it created (clone this one to edit it)`);
  };

  const undoDir = (name: string) => join(dir(name), UNDO_DIR);
  const undoSteps = (name: string): string[] =>
    existsSync(undoDir(name)) ? readdirSync(undoDir(name)).filter((f) => /^\d+\.json$/.test(f)).sort() : [];
  /** Writes `text` to `target` in the study folder, first keeping what was there as an undo step. */
  const change = (name: string, target: string, text: string, description: string) => {
    const file = join(dir(name), target);
    const step: UndoStep = { description, at: new Date().toISOString(), target, previous: existsSync(file) ? readFileSync(file, 'utf8') : null };
    mkdirSync(undoDir(name), { recursive: true });
    const steps = undoSteps(name);
    const next = steps.length ? Number.parseInt(steps.at(-1)!, 10) + 1 : 1;
    writeAtomically(join(undoDir(name), `${String(next).padStart(8, '0')}.json`), JSON.stringify(step));
    for (const old of steps.slice(0, Math.max(0, steps.length + 1 - UNDO_DEPTH))) rmSync(join(undoDir(name), old));
    writeAtomically(file, text);
  };

  const audioFolders = (name: string): AudioFolder[] => {
    const root = join(dir(name), AUDIO_DIR);
    if (!existsSync(root)) return [];
    return readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort()
      .map((folder) => {
        const clips = walkFiles(join(root, folder), new ImportReport(), isClip);
        return { name: folder, clips: clips.length, corpus: corpusLayout(join(root, folder), clips) };
      });
  };

  return {
    dir,
    exists,
    assertExists,
    /** The study folders under the data directory, by name. */
    list(): string[] {
      return existsSync(root) ? readdirSync(root).filter((n) => exists(n)).sort() : [];
    },
    /** The title a folder's study.yaml gives, read without validating the rest (drafts may not parse). */
    title(name: string): string {
      const title = parseDocument(readFileSync(yamlFile(name), 'utf8')).get('title');
      return typeof title === 'string' ? title : name;
    },
    readYaml(name: string): string {
      assertExists(name);
      return readFileSync(yamlFile(name), 'utf8');
    },
    create(name: string, yaml: string): void {
      mkdirSync(root, { recursive: true });
      try {
        mkdirSync(dir(name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw conflict('study_exists', `a study folder named ${name} already exists`, 'name');
        throw error;
      }
      try {
        writeAtomically(yamlFile(name), yaml);
      } catch (error) {
        // No orphan folder: a study that could not be written does not exist.
        rmSync(dir(name), { recursive: true, force: true });
        throw error;
      }
    },
    /** Saves study.yaml, undoably; `description` names the change for the Undo button. */
    writeYaml(name: string, yaml: string, description = 'edit study.yaml'): void {
      assertExists(name);
      change(name, 'study.yaml', yaml, description);
    },
    files(name: string): StudyFiles {
      return {
        captions: listFiles(join(dir(name), 'captions')),
        judges: listFiles(join(dir(name), 'judges')),
        plans: listFiles(join(dir(name), 'plans')),
        audio: audioFolders(name),
      };
    },
    /**
     * Stores an uploaded audio folder as `audio/<folder>/`: every path confined to it, every WAV and
     * FLAC decoded first in a staging folder beside it. Any refused file refuses the whole upload
     * (nothing is kept) and each is named with why; a folder already there is replaced only with `replace`.
     */
    async writeAudio(name: string, body: UploadAudioBody): Promise<UploadProblem[]> {
      assertExists(name);
      const target = join(dir(name), AUDIO_DIR, body.folder);
      if (existsSync(target) && !body.replace) throw conflict('folder_exists', `${AUDIO_DIR}/${body.folder} is already uploaded; upload it again with replace to overwrite it`, 'folder');
      const { entries, problems } = uploadEntries(body);
      if (problems.length > 0) return problems;
      // Staged beside audio/, so a refused upload leaves nothing there, not even the folder.
      const staging = join(dir(name), `.audio-upload-${randomBytes(6).toString('hex')}`);
      try {
        for (const entry of entries) {
          const file = resolve(staging, entry.path);
          // Checked segment by segment above; this is the last word on staying inside.
          if (relative(staging, file).startsWith('..') || isAbsolute(relative(staging, file))) throw new Error(`${entry.path} leaves the upload folder`);
          mkdirSync(dirname(file), { recursive: true });
          writeFileSync(file, entry.bytes);
        }
        const clips = entries.filter((e) => isClip(e.path));
        const bad = await unplayableFiles(clips.map((e) => join(staging, e.path)));
        const refused = clips.filter((e) => bad.has(join(staging, e.path))).map((e) => ({ file: e.path, message: bad.get(join(staging, e.path))! }));
        if (refused.length > 0) return refused;
        rmSync(target, { recursive: true, force: true });
        mkdirSync(dirname(target), { recursive: true });
        renameSync(staging, target);
        return [];
      } finally {
        rmSync(staging, { recursive: true, force: true });
      }
    },
    /** Stores an uploaded file, undoably; one with the same name is replaced only when `replace` says so. */
    writeFile(name: string, kind: StudyFileKind, fileName: string, content: string, replace = false): void {
      assertExists(name);
      const target = `${kind}/${basename(fileName)}`;
      const present = existsSync(join(dir(name), target));
      if (present && !replace) {
        throw conflict('file_exists', `${target} is already uploaded; upload it again with replace to overwrite it (Undo brings the old one back)`, 'name');
      }
      mkdirSync(join(dir(name), kind), { recursive: true });
      change(name, target, content, `${present ? 'replace' : 'upload'} ${target}`);
    },
    /** The latest change Undo would take back, if any. */
    lastChange(name: string): Pick<UndoStep, 'description' | 'at'> | null {
      const last = undoSteps(name).at(-1);
      if (!last) return null;
      const { description, at } = JSON.parse(readFileSync(join(undoDir(name), last), 'utf8')) as UndoStep;
      return { description, at };
    },
    /** Takes back the latest change: the file's old text returns, or a new file goes. */
    undo(name: string): UndoStep {
      assertExists(name);
      const last = undoSteps(name).at(-1);
      if (!last) throw conflict('nothing_to_undo', `study ${name} has no change left to undo`);
      const step = JSON.parse(readFileSync(join(undoDir(name), last), 'utf8')) as UndoStep;
      const file = join(dir(name), step.target);
      if (step.previous === null) rmSync(file, { force: true });
      else writeAtomically(file, step.previous);
      rmSync(join(undoDir(name), last));
      return step;
    },
    clone(from: string, to: string): void {
      assertExists(from);
      if (existsSync(dir(to))) throw conflict('study_exists', `a study folder named ${to} already exists`, 'name');
      // The clone starts its own history: Undo there never reaches back into the original.
      cpSync(dir(from), dir(to), { recursive: true, errorOnExist: true, filter: (src) => basename(src) !== UNDO_DIR });
    },
  };
}
export type StudyFolders = ReturnType<typeof studyFolders>;

/**
 * Why an uploaded file cannot be used, or null: text that is not UTF-8 (a spreadsheet, an
 * archive), JSON that does not parse, CSV without a header and a row. Names the line.
 */
const PLANS_FORMAT = 'expected JSON Lines: one VoxReason case object per line; see studies/README.md#voxreason-plans';
const KIND_FILES: Record<StudyFileKind, { ext: RegExp; what: string }> = {
  captions: { ext: /\.json$/, what: 'a MetaSet caption file (.json)' },
  judges: { ext: /\.(json|csv)$/, what: 'a judge output (.json or .csv)' },
  plans: { ext: /\.jsonl$/, what: 'VoxReason plans (.jsonl)' },
};

/** Several lines that each hold one JSON object: JSON Lines, which JSON.parse reads as "not JSON … position N". */
function looksLikeJsonLines(content: string): boolean {
  const lines = content.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length < 2) return false;
  try {
    return lines.slice(0, 2).every((l) => typeof JSON.parse(l) === 'object');
  } catch {
    return false;
  }
}

export function unreadableUpload(fileName: string, content: string, kind: StudyFileKind = fileName.startsWith('judges/') ? 'judges' : fileName.startsWith('plans/') ? 'plans' : 'captions'): string | null {
  const bad = content.search(/[\u0000\uFFFD]/);
  if (bad >= 0) {
    const line = content.slice(0, bad).split('\n').length;
    return `${fileName} is not UTF-8 text (line ${line} holds a byte that is not); save it as UTF-8 ${fileName.endsWith('.csv') ? 'CSV' : 'JSON'} — a spreadsheet or zip cannot be read`;
  }
  if (!KIND_FILES[kind].ext.test(fileName)) {
    const plans = fileName.endsWith('.jsonl') || (fileName.endsWith('.json') && looksLikeJsonLines(content));
    return `${fileName} is not ${KIND_FILES[kind].what}${plans ? ': it holds JSON Lines, as VoxReason plans do; upload it as plans (.jsonl)' : ''}`;
  }
  if (fileName.endsWith('.jsonl')) {
    const report = new ImportReport();
    const cases = parseVoxreasonCases(fileName, content, report);
    if (report.failures.length === 0 && cases.length > 0) return null;
    const first = report.failures.slice(0, 3).map((f) => `${f.file}: ${f.reason}`);
    const more = report.failures.length > 3 ? ` and ${report.failures.length - 3} more` : '';
    return `${first.length ? first.join('; ') + more : `${fileName} holds no cases`} (${PLANS_FORMAT})`;
  }
  if (fileName.endsWith('.json')) {
    if (looksLikeJsonLines(content)) return `${fileName} is not JSON: it holds JSON Lines (one object per line), as VoxReason plans do; upload it as plans, named .jsonl (${PLANS_FORMAT})`;
    try {
      JSON.parse(content);
    } catch (error) {
      return `${fileName} is not JSON: ${(error as Error).message}`;
    }
    return null;
  }
  let rows: string[][];
  try {
    rows = parseCsv(content, { bom: true, skip_empty_lines: true }) as string[][];
  } catch (error) {
    return `${fileName} is not CSV: ${(error as Error).message}`;
  }
  if (rows.length < 2) return `${fileName} holds ${rows.length === 0 ? 'nothing' : 'a header and no rows'}; a CSV upload needs a header line and at least one row`;
  return null;
}

/** The studies/templates/*.yaml files, with their titles, as a study created from them reads them. */
export function studyTemplates(): { id: string; title: string; yaml: string }[] {
  return readdirSync(TEMPLATES_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const yaml = anchorShippedSources(readFileSync(join(TEMPLATES_DIR, f), 'utf8'));
      const title = parseDocument(yaml).get('title');
      return { id: f.replace(/\.yaml$/, ''), title: typeof title === 'string' ? title : f, yaml };
    });
}

/**
 * A template's sources that name files shipped with it (the demo's captions and audio, `../demo/…`)
 * become absolute paths, so a study the studio creates from it in the data dir reads the same files.
 * Paths meant for the researcher's own uploads (`captions/…`) do not exist beside the templates and
 * stay as written; comments and layout stay too.
 */
function anchorShippedSources(yaml: string): string {
  const doc = parseDocument(yaml);
  const sources = doc.get('sources');
  if (!isSeq(sources)) return yaml;
  let anchored = false;
  for (const entry of sources.items) {
    if (!isMap(entry)) continue;
    for (const key of ['file', 'audioRoot', 'dir']) {
      const path = entry.get(key);
      if (typeof path !== 'string' || isAbsolute(path) || !existsSync(resolve(TEMPLATES_DIR, path))) continue;
      entry.set(key, resolve(TEMPLATES_DIR, path));
      anchored = true;
    }
  }
  return anchored ? doc.toString({ lineWidth: 0 }) : yaml;
}

/**
 * The definition with `sources:` made from the uploaded files: one metaset source per caption
 * file (the system is the file name), the judge files by pattern, and — for a sampled study —
 * `items.systems` set to those systems (plus oracle when it was listed). Sources that read no
 * uploaded file are kept, and comments elsewhere stay.
 */
export function sourcesFromUploads(yaml: string, files: StudyFiles, audioRoot: string | undefined): string {
  const doc = parseDocument(yaml);
  const systems = files.captions.filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
  // Caption records' audio: the folder named, else the first uploaded folder that is not a corpus layout, else the first.
  const plain = files.audio.find((a) => a.corpus === null) ?? files.audio[0];
  const root = audioRoot ?? (plain ? `${AUDIO_DIR}/${plain.name}` : undefined);
  if (systems.length > 0 && root === undefined) throw new HttpError(400, 'no_audio_root', 'caption files need the folder their relative_audio_path values resolve against: upload an audio folder or give an audio root', 'audioRoot');
  const sources: Record<string, string>[] = files.audio.filter((a) => a.corpus !== null).map((a) => ({ kind: a.corpus!, dir: `${AUDIO_DIR}/${a.name}` }));
  sources.push(...systems.map((system) => ({ kind: 'metaset', file: `captions/${system}.json`, system, audioRoot: root! })));
  sources.push(...files.plans.map((f) => ({ kind: 'voxreason', file: `plans/${f}` })));
  for (const ext of ['json', 'csv']) {
    if (files.judges.some((f) => f.endsWith(`.${ext}`))) sources.push({ kind: 'judge', file: `judges/*.${ext}` });
  }
  // Sources that do not read an uploaded file (a corpus, a plan file on the server) stay as written.
  const existing = doc.get('sources');
  const kept = isSeq(existing)
    ? existing.items.filter((entry) => {
        const path = isMap(entry) ? (entry.get('file') ?? entry.get('dir')) : undefined;
        return !(typeof path === 'string' && /^(captions|judges|plans|audio)\//.test(path));
      })
    : [];
  const node = doc.createNode(sources);
  for (const entry of node.items) (entry as { flow?: boolean }).flow = true;
  node.items.unshift(...(kept as typeof node.items));
  doc.set('sources', node);
  // An audio-only rating study rates the corpus clips themselves: their system is their corpus.
  const corpora = [...new Set(files.audio.flatMap((a) => (a.corpus ? [a.corpus] : [])))];
  const listed = (doc.getIn(['items', 'systems']) as { toJSON(): unknown } | undefined)?.toJSON();
  const audioOnly = doc.getIn(['items', 'mode']) === 'sample' && systems.length === 0 && corpora.length > 0 && doc.getIn(['trial', 'caption']) === false;
  // Set only when it changes, so a comment on the line stays.
  if (audioOnly && JSON.stringify(listed) !== JSON.stringify(corpora)) {
    const list = doc.createNode(corpora);
    list.flow = true;
    doc.setIn(['items', 'systems'], list);
  }
  if (doc.getIn(['items', 'mode']) === 'sample' && systems.length > 0) {
    const hadOracle = Array.isArray(listed) && listed.includes('oracle');
    const list = doc.createNode([...(hadOracle ? ['oracle'] : []), ...systems]);
    list.flow = true;
    doc.setIn(['items', 'systems'], list);
  }
  return doc.toString({ lineWidth: 0 });
}

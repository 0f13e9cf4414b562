import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import { isMap, isSeq, parseDocument } from 'yaml';
import type { StudyFileKind } from '../../contract/studio';
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
  existsSync(dir) ? readdirSync(dir).filter((f) => /\.(json|csv)$/.test(f)).sort() : [];

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
    files(name: string): Record<StudyFileKind, string[]> {
      return { captions: listFiles(join(dir(name), 'captions')), judges: listFiles(join(dir(name), 'judges')) };
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
export function unreadableUpload(fileName: string, content: string): string | null {
  const bad = content.search(/[\u0000\uFFFD]/);
  if (bad >= 0) {
    const line = content.slice(0, bad).split('\n').length;
    return `${fileName} is not UTF-8 text (line ${line} holds a byte that is not); save it as UTF-8 ${fileName.endsWith('.csv') ? 'CSV' : 'JSON'} — a spreadsheet or zip cannot be read`;
  }
  if (fileName.endsWith('.json')) {
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
export function sourcesFromUploads(yaml: string, files: Record<StudyFileKind, string[]>, audioRoot: string): string {
  const doc = parseDocument(yaml);
  const systems = files.captions.filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
  const sources: Record<string, string>[] = systems.map((system) => ({ kind: 'metaset', file: `captions/${system}.json`, system, audioRoot }));
  for (const ext of ['json', 'csv']) {
    if (files.judges.some((f) => f.endsWith(`.${ext}`))) sources.push({ kind: 'judge', file: `judges/*.${ext}` });
  }
  // Sources that do not read an uploaded file (a corpus, a plan file on the server) stay as written.
  const existing = doc.get('sources');
  const kept = isSeq(existing)
    ? existing.items.filter((entry) => {
        const file = isMap(entry) ? entry.get('file') : undefined;
        return !(typeof file === 'string' && /^(captions|judges)\//.test(file));
      })
    : [];
  const node = doc.createNode(sources);
  for (const entry of node.items) (entry as { flow?: boolean }).flow = true;
  node.items.unshift(...(kept as typeof node.items));
  doc.set('sources', node);
  if (doc.getIn(['items', 'mode']) === 'sample' && systems.length > 0) {
    const listed = doc.getIn(['items', 'systems']) as { toJSON(): unknown } | undefined;
    const hadOracle = Array.isArray(listed?.toJSON()) && (listed!.toJSON() as unknown[]).includes('oracle');
    const list = doc.createNode([...(hadOracle ? ['oracle'] : []), ...systems]);
    list.flow = true;
    doc.setIn(['items', 'systems'], list);
  }
  return doc.toString({ lineWidth: 0 });
}

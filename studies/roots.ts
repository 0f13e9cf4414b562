/**
 * Where a study may read from. A study's `sources:` (files, corpus folders, `audioRoot`) resolve
 * only inside the corpus roots: the repository's studies/ folder (the demo and the templates),
 * the data dir's studies/ folder (what the studio uploads), and the folders named by
 * `EARMARK_CORPORA` / `--corpora` (separated like PATH). A path outside them, a symlink that
 * leads out, a `*` that reaches out, and anything that is not a regular file or folder (a FIFO, a
 * device) is refused by name before it is opened, so a study definition cannot make the server
 * read its own files or hang on a pipe. Reads are asynchronous and capped in size, and refusals
 * never quote what a file holds.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's studies/ folder: the committed demo and templates read from here. */
export const STUDIES_DIR = fileURLToPath(new URL('.', import.meta.url));

/** The largest source file read (MetaSet caption files of a whole corpus run to tens of MB). */
export const SOURCE_FILE_LIMIT = 256 * 1024 * 1024;

/** Folders from a PATH-like list (`EARMARK_CORPORA`, `--corpora`); empty entries are ignored. */
export function corporaList(value: string | undefined): string[] {
  return (value ?? '').split(delimiter).filter((p) => p.trim() !== '').map((p) => resolve(p));
}

/** The roots a study may read from: studies/, the data dir's studies/ (uploads) and the configured corpora. */
export function corpusRoots(options: { dataDir?: string; corpora?: readonly string[] } = {}): string[] {
  return [STUDIES_DIR, ...(options.dataDir ? [join(resolve(options.dataDir), 'studies')] : []), ...(options.corpora ?? [])];
}

export class SourceRefusal extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path} ${reason}`);
    this.name = 'SourceRefusal';
  }
}

const inside = (root: string, target: string): boolean => {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

export interface Confined {
  /** The path as given, made absolute (what messages name). */
  path: string;
  /** Where it really is, symlinks resolved (what gets read). */
  real: string;
  bytes: number;
}

function describeType(s: Awaited<ReturnType<typeof stat>>): string {
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  if (s.isSocket()) return 'a socket';
  if (s.isDirectory()) return 'a folder';
  return 'not a regular file';
}

/**
 * Checks that `path` lies inside one of `roots`, as written and after following symlinks, and is
 * what is expected (a regular file under the size cap, or a folder). Nothing is opened.
 */
export async function confine(roots: readonly string[], path: string, expect: 'file' | 'dir', limit = SOURCE_FILE_LIMIT): Promise<Confined> {
  const abs = resolve(path);
  if (!roots.some((r) => inside(resolve(r), abs))) throw new SourceRefusal(abs, `is outside the corpus roots (${roots.join(', ')}); add its folder to EARMARK_CORPORA or --corpora`);
  let real: string;
  try {
    real = await realpath(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SourceRefusal(abs, 'does not exist');
    throw new SourceRefusal(abs, `cannot be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const realRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => resolve(r))));
  if (!realRoots.some((r) => inside(r, real))) throw new SourceRefusal(abs, 'is a symlink that leads outside the corpus roots');
  const s = await stat(real);
  if (expect === 'dir') {
    if (!s.isDirectory()) throw new SourceRefusal(abs, `is ${s.isFile() ? 'a file' : describeType(s)}, not a folder`);
  } else {
    if (!s.isFile()) throw new SourceRefusal(abs, `is ${describeType(s)}, not a regular file`);
    if (s.size > limit) throw new SourceRefusal(abs, `is ${s.size} bytes, more than the ${limit}-byte limit for a source file`);
  }
  return { path: abs, real, bytes: s.size };
}

/** The text of a confined source file, read asynchronously. */
export async function readSourceText(roots: readonly string[], path: string, limit = SOURCE_FILE_LIMIT): Promise<string> {
  const file = await confine(roots, path, 'file', limit);
  const buffer = await readFile(file.real);
  // The file may have grown between the check and the read.
  if (buffer.length > limit) throw new SourceRefusal(file.path, `is more than the ${limit}-byte limit for a source file`);
  return buffer.toString('utf8');
}

/**
 * `*` in the file name matches any characters; the folder must be confined and so must every
 * match (a symlink among them that leads out is refused, not skipped).
 */
export async function expandPattern(roots: readonly string[], pattern: string): Promise<string[]> {
  const name = basename(pattern);
  if (!name.includes('*')) {
    await confine(roots, pattern, 'file');
    return [resolve(pattern)];
  }
  const folder = await confine(roots, dirname(pattern), 'dir');
  const regex = new RegExp(`^${name.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  const matches = (await readdir(folder.real)).filter((f) => regex.test(f)).sort().map((f) => join(folder.path, f));
  for (const file of matches) await confine(roots, file, 'file');
  return matches;
}

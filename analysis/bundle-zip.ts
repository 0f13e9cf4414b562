/**
 * The export bundle as one zip file: what the studio's Export button downloads and what
 * `npm run analyze` takes besides a bundle directory. The files sit in one folder named after
 * the study, so unzipping gives a directory analyze also accepts.
 */
import { mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { strToU8, unzipSync, Zip, ZipDeflate } from 'fflate';
import { ANALYSIS_KINDS } from './kinds/index';
import { readBundle, type Bundle, type ReadBundleOptions } from './bundle';

export class BundleZipError extends Error {
  constructor(readonly file: string, problem: string) {
    super(`${file}: ${problem}`);
    this.name = 'BundleZipError';
  }
}

/** Text gathered into pieces of about this size before it is deflated. */
const ZIP_PIECE = 256 * 1024;

/**
 * The bundle's files (name → the pieces of its text, as bundleFileChunks makes them) zipped under
 * `<folder>/`, as the zip's bytes in order: each file is deflated while it is read, so neither a
 * file nor the archive is ever held whole.
 */
export function* zipBundleChunks(folder: string, files: Iterable<[string, Iterable<string>]>): Generator<Uint8Array> {
  const out: Uint8Array[] = [];
  const zip = new Zip((error, data) => {
    if (error) throw error;
    out.push(data);
  });
  for (const [name, chunks] of files) {
    const entry = new ZipDeflate(`${folder}/${name}`, { level: 6 });
    zip.add(entry);
    let piece = '';
    for (const text of chunks) {
      piece += text;
      if (piece.length < ZIP_PIECE) continue;
      entry.push(strToU8(piece));
      piece = '';
      yield* out.splice(0);
    }
    entry.push(strToU8(piece), true);
    yield* out.splice(0);
  }
  zip.end();
  yield* out.splice(0);
}

/** True when the file starts with a zip signature (a local header, or an empty archive's end record). */
export function looksLikeZip(head: Uint8Array): boolean {
  return head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6);
}

/** The files a bundle may hold (analysis-spec §1, §5): the spec's, each registered kind's answers file and its file of item facts; a zip's other files are never unpacked. */
const bundleFiles = (): Set<string> => new Set([
  'items.csv', 'votes.csv', 'judge_scores.csv', 'listeners.csv', 'ratings.csv', 'stimuli.csv', 'study.json', ...ANALYSIS_KINDS.map((k) => k.file),
  ...ANALYSIS_KINDS.flatMap((k) => (k.facts ? [k.facts.file] : [])),
]);

/**
 * What a bundle zip may unpack to. A zip says each file's size before it is inflated, and fflate
 * inflates into a buffer of exactly that size, so checking the declared sizes bounds the memory;
 * the ratio refuses a zip bomb before any of it is allocated. A real bundle's CSVs compress 3-10x
 * (random vote and listener ids); 1,000,000 votes are about 150 MB of votes.csv.
 */
export const ZIP_LIMITS = { fileBytes: 512 * 1024 * 1024, totalBytes: 1024 * 1024 * 1024, ratio: 100, ratioFromBytes: 1024 * 1024 };

/**
 * Unpacks the bundle in a zip to a scratch directory, runs `work` on that directory and removes
 * it. The bundle may sit at the top of the archive or in one folder (as the studio zips it, or as
 * a re-zipped download); only that folder's bundle files are unpacked, nothing else, and only
 * within ZIP_LIMITS.
 */
export async function withZippedBundle<T>(zipFile: string, work: (dir: string) => Promise<T>, limits = ZIP_LIMITS): Promise<T> {
  const mib = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`;
  if ((await stat(zipFile)).size > limits.totalBytes) throw new BundleZipError(zipFile, `is larger than ${mib(limits.totalBytes)}; a bundle zip is smaller`);
  const bytes = await readFile(zipFile);
  let entries: Record<string, Uint8Array>;
  let total = 0;
  let refused: string | null = null;
  const seen: string[] = [];
  const names = bundleFiles();
  try {
    entries = unzipSync(bytes, {
      filter: (file) => {
        if (!file.name.endsWith('/') && !file.name.startsWith('__MACOSX/')) seen.push(file.name);
        if (refused !== null || file.name.startsWith('__MACOSX/') || !names.has(posix.basename(file.name))) return false;
        total += file.originalSize;
        if (file.originalSize > limits.fileBytes) refused = `${file.name} would unpack to ${mib(file.originalSize)}, more than the ${mib(limits.fileBytes)} a bundle file may have`;
        else if (total > limits.totalBytes) refused = `its bundle files would unpack to more than ${mib(limits.totalBytes)}`;
        else if (file.originalSize > limits.ratioFromBytes && file.originalSize > limits.ratio * file.size) {
          refused = `${file.name} would unpack to ${Math.round(file.originalSize / Math.max(1, file.size))} times its packed size (at most ${limits.ratio} for a bundle file)`;
        }
        return refused === null;
      },
    });
  } catch (error) {
    throw new BundleZipError(zipFile, `not a readable zip archive (${(error as Error).message})`);
  }
  if (refused !== null) throw new BundleZipError(zipFile, `refused: ${refused}`);
  const files = Object.keys(entries).filter((name) => !name.endsWith('/'));
  const homes = [...new Set(files.filter((name) => posix.basename(name) === 'items.csv').map((name) => posix.dirname(name)))];
  if (homes.length !== 1) {
    throw new BundleZipError(
      zipFile,
      homes.length === 0
        ? `holds no items.csv (found ${seen.slice(0, 5).join(', ') || 'no files'}); a bundle zip holds items.csv and its answer files (votes.csv, ratings.csv, …), at its top or in one folder`
        : `holds more than one bundle (items.csv in ${homes.join(', ')}); zip one study at a time`,
    );
  }
  const [home] = homes;
  const dir = await mkdtemp(join(tmpdir(), 'earmark-bundle-'));
  try {
    for (const name of files) {
      if (posix.dirname(name) !== home) continue;
      await writeFile(join(dir, posix.basename(name)), entries[name]);
    }
    return await work(dir);
  } catch (error) {
    // Errors name files in the archive, not in the scratch directory.
    if (error instanceof Error) error.message = `${zipFile}: ${error.message.split(dir).join(home === '.' ? zipFile : `${zipFile}:${home}`)}`;
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A bundle directory, or a zip of one (the studio's Export download): what the analysis commands take. */
export async function readBundleOrZip(path: string, options: ReadBundleOptions): Promise<Bundle> {
  if (!(await stat(path).catch(() => null))?.isFile()) return readBundle(path, options);
  const file = await open(path);
  const head = new Uint8Array(4);
  try {
    await file.read(head, 0, 4, 0);
  } finally {
    await file.close();
  }
  if (!looksLikeZip(head)) throw new BundleZipError(path, 'is neither a bundle directory nor a zip archive');
  return withZippedBundle(path, (dir) => readBundle(dir, options));
}

/**
 * Running a study's `sources:` imports through the audio manifest before the build samples
 * items. The importers live in audio-manifest/ (wired in manifest-importers.ts); this resolves
 * paths against the study folder, confines them to the corpus roots (roots.ts), expands `*` in
 * file names, refuses missing or out-of-bounds paths with the YAML line, and dispatches by kind —
 * so a test or the server can pass other importers.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Db } from '../db/open';
import { StudyDefinitionError, type DefinitionProblem, type ParsedStudy } from './parse';
import { confine, expandPattern, SourceRefusal } from './roots';
import type { StudySource } from '../contract/study-definition';

/** Imports one source into the manifest; returns a summary (one line, then any failure lines). */
export type SourceImporter<K extends StudySource['kind']> = (db: Db, source: Extract<StudySource, { kind: K }>) => Promise<string> | string;

export type SourceImporters = { [K in StudySource['kind']]?: SourceImporter<K> };

export interface SourceRun {
  source: StudySource;
  summary: string;
}

export interface ResolveOptions {
  /** Folders the sources must lie in (roots.ts corpusRoots). */
  roots: readonly string[];
  /**
   * A template names files its user will provide: a missing path is noted, not refused (paths
   * outside the roots and non-regular files still are).
   */
  template?: boolean;
}

export interface ResolvedSources {
  sources: StudySource[];
  /** Paths a template names that are not there (only with `template`). */
  missing: string[];
}

/** Every source with absolute paths, one per file after `*` expansion; missing or refused paths are problems. */
export async function resolveSources(parsed: ParsedStudy, studyDir: string, options: ResolveOptions): Promise<ResolvedSources> {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(studyDir, p));
  const problems: DefinitionProblem[] = [];
  const missing: string[] = [];
  const sources: StudySource[] = [];
  const checked = async <T>(i: number, field: string, check: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await check();
    } catch (error) {
      if (!(error instanceof SourceRefusal)) throw error;
      if (options.template && error.reason === 'does not exist') missing.push(error.path);
      else problems.push(parsed.problemAt(['sources', i, field], error.message));
      return undefined;
    }
  };
  for (const [i, source] of parsed.definition.sources.entries()) {
    if (source.kind === 'ravdess' || source.kind === 'vctk' || (source.kind === 'renditions' && source.dir !== undefined)) {
      const dir = await checked(i, 'dir', () => confine(options.roots, abs(source.dir!), 'dir'));
      if (dir) sources.push({ ...source, dir: dir.path });
      continue;
    }
    const pattern = abs(source.file!);
    const files = await checked(i, 'file', async () => {
      const found = await expandPattern(options.roots, pattern);
      if (found.length === 0) throw new SourceRefusal(pattern, 'does not exist');
      return found;
    });
    if (source.kind === 'metaset') {
      const audioRoot = (await checked(i, 'audioRoot', () => confine(options.roots, abs(source.audioRoot), 'dir')))?.path;
      if (audioRoot) for (const file of files ?? []) sources.push({ ...source, file, audioRoot });
    } else for (const file of files ?? []) sources.push({ ...source, file });
  }
  if (problems.length > 0) throw new StudyDefinitionError(problems);
  return { sources, missing };
}

export async function runSources(db: Db, sources: readonly StudySource[], importers: SourceImporters): Promise<SourceRun[]> {
  const runs: SourceRun[] = [];
  for (const source of sources) {
    const importer = importers[source.kind] as SourceImporter<typeof source.kind> | undefined;
    if (!importer) throw new Error(`no audio-manifest importer is available for sources of kind ${source.kind}`);
    runs.push({ source, summary: await importer(db, source as never) });
  }
  return runs;
}

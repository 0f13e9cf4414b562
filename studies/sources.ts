/**
 * Running a study's `sources:` imports through the audio manifest before the build samples
 * items. The importers live in audio-manifest/ (wired in manifest-importers.ts); this resolves
 * paths against the study folder, expands `*` in file names, refuses missing paths with the
 * YAML line, and dispatches by kind — so a test or the server can pass other importers.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Db } from '../server/db/open';
import { StudyDefinitionError, type DefinitionProblem, type ParsedStudy } from './parse';
import type { StudySource } from './schema';

/** Imports one source into the manifest; returns a summary (one line, then any failure lines). */
export type SourceImporter<K extends StudySource['kind']> = (db: Db, source: Extract<StudySource, { kind: K }>) => Promise<string> | string;

export type SourceImporters = { [K in StudySource['kind']]?: SourceImporter<K> };

export interface SourceRun {
  source: StudySource;
  summary: string;
}

function expand(pattern: string): string[] {
  const name = basename(pattern);
  if (!name.includes('*')) return existsSync(pattern) ? [pattern] : [];
  const folder = dirname(pattern);
  if (!existsSync(folder)) return [];
  const regex = new RegExp(`^${name.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return readdirSync(folder)
    .filter((f) => regex.test(f))
    .sort()
    .map((f) => join(folder, f));
}

/** Every source with absolute paths, one per file after `*` expansion; missing paths are problems. */
export function resolveSources(parsed: ParsedStudy, studyDir: string): StudySource[] {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(studyDir, p));
  const problems: DefinitionProblem[] = [];
  const out: StudySource[] = [];
  parsed.definition.sources.forEach((source, i) => {
    const missing = (field: string, path: string) => problems.push(parsed.problemAt(['sources', i, field], `${path} does not exist`));
    if (source.kind === 'ravdess' || source.kind === 'vctk') {
      const dir = abs(source.dir);
      if (existsSync(dir)) out.push({ ...source, dir });
      else missing('dir', dir);
      return;
    }
    if (source.kind === 'metaset' && !existsSync(abs(source.audioRoot))) missing('audioRoot', abs(source.audioRoot));
    const files = expand(abs(source.file));
    if (files.length === 0) missing('file', abs(source.file));
    for (const file of files) out.push(source.kind === 'metaset' ? { ...source, file, audioRoot: abs(source.audioRoot) } : { ...source, file });
  });
  if (problems.length > 0) throw new StudyDefinitionError(problems);
  return out;
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

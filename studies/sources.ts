/**
 * Running a study's `sources:` imports through the audio manifest before the build samples
 * items. The importers themselves live in audio-manifest/; this only resolves paths against the
 * study folder and dispatches by kind, so a test (or the server) can pass its own importers.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Db } from '../server/db/open';
import type { StudySource } from './schema';

/** Imports one source into the manifest; returns a one-line summary for the build output. */
export type SourceImporter<K extends StudySource['kind']> = (db: Db, source: Extract<StudySource, { kind: K }>) => Promise<string> | string;

export type SourceImporters = { [K in StudySource['kind']]?: SourceImporter<K> };

/** The source with every path made absolute against the study folder. */
export function resolveSource(source: StudySource, studyDir: string): StudySource {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(studyDir, p));
  switch (source.kind) {
    case 'metaset':
      return { ...source, file: abs(source.file), audioRoot: abs(source.audioRoot) };
    case 'ravdess':
    case 'vctk':
      return { ...source, dir: abs(source.dir) };
    default:
      return { ...source, file: abs(source.file) };
  }
}

export interface SourceRun {
  source: StudySource;
  summary: string;
}

export async function runSources(db: Db, sources: readonly StudySource[], studyDir: string, importers: SourceImporters): Promise<SourceRun[]> {
  const runs: SourceRun[] = [];
  for (const raw of sources) {
    const source = resolveSource(raw, studyDir);
    const importer = importers[source.kind] as SourceImporter<typeof source.kind> | undefined;
    if (!importer) throw new Error(`no audio-manifest importer is available for sources of kind ${source.kind}`);
    runs.push({ source, summary: await importer(db, source as never) });
  }
  return runs;
}

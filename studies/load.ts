/**
 * `studies/<name>/` → a built study in the database: the entry point the CLI and the server
 * use. The study id is the folder name.
 */
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { StudyId } from '../server/contract';
import type { Db } from '../server/db/open';
import { changedCopies, formatStudyAudio, prepareStudyAudio, recordStudyAudio, summariseStudyAudio, type StudyAudioSummary } from '../audio-manifest/served';
import { planStudy, StudyLockedError, writeStudy, type BuildAction, type StudyPlan } from './build';
import { formatProblem, readStudyYaml, StudyDefinitionError, type ParsedStudy } from './parse';
import { formatSamplerSummary, type SamplerSummary } from './sampler';
import { resolveSources, runSources, type SourceImporters, type SourceRun } from './sources';

export interface LoadOptions {
  /** Importers for the definition's `sources:`; defaults to the audio manifest's. */
  importers?: SourceImporters;
  /** Skip `sources:` (the manifest already holds them). */
  skipSources?: boolean;
  now?: Date;
}

export interface BuildSummary {
  studyId: string;
  action: BuildAction;
  status: string;
  items: { pair: number; attention: number; practice: number };
  sampler: SamplerSummary | null;
  sources: SourceRun[];
  audio: StudyAudioSummary;
}

/** A rebuild of a study with votes that would change what its listeners hear (loudness setting or corpus file). */
export class StudyAudioLockedError extends StudyLockedError {
  constructor(studyId: string, votes: number, clips: number) {
    super(studyId, votes);
    this.message =
      `study ${studyId} already has ${votes} vote${votes === 1 ? '' : 's'}, so the audio its listeners hear cannot change ` +
      `(${clips} clip${clips === 1 ? '' : 's'} would sound different: a new loudness setting or a changed corpus file). ` +
      `Clone it instead: copy studies/${studyId} to a new folder (e.g. studies/${studyId}-v2), edit that, and build it.`;
    this.name = 'StudyAudioLockedError';
  }
}

/** The study id a folder gives, checked against the API's id rule. */
export function studyIdOf(dir: string): string {
  const id = basename(resolve(dir));
  const parsed = StudyId.safeParse(id);
  if (!parsed.success) throw new Error(`study folder name "${id}" cannot be a study id: ${parsed.error.issues[0].message}`);
  return id;
}

function readDefinition(dir: string): ParsedStudy {
  const file = join(dir, 'study.yaml');
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  return readStudyYaml(file, join(basename(resolve(dir)), 'study.yaml'));
}

async function defaultImporters(): Promise<SourceImporters> {
  const { manifestImporters } = await import('./manifest-importers');
  return manifestImporters;
}

/** Parses and checks a study folder (its source paths exist, its references are in the manifest) without writing anything. */
export function validateStudyDir(db: Db, dir: string): { studyId: string; plan: StudyPlan } {
  const studyId = studyIdOf(dir);
  const parsed = readDefinition(dir);
  // A source path that does not exist is the likelier mistake than a system missing from the manifest: say so first.
  resolveSources(parsed, resolve(dir));
  return { studyId, plan: planStudy(db, parsed) };
}

/**
 * Parses and validates `<dir>/study.yaml`, runs its source imports, plans the items and writes
 * the study (status draft when new). Throws StudyDefinitionError (line and field per problem)
 * or StudyLockedError (items would change under collected votes).
 */
export async function loadStudyDir(db: Db, dir: string, options: LoadOptions = {}): Promise<{ studyId: string; summary: BuildSummary }> {
  const studyId = studyIdOf(dir);
  const parsed = readDefinition(dir);
  const resolved = options.skipSources ? [] : resolveSources(parsed, resolve(dir));
  const sources = await runSources(db, resolved, options.importers ?? (resolved.length ? await defaultImporters() : {}));
  const plan = planStudy(db, parsed);
  const audio = await prepareStudyAudio(db, studyId, parsed.definition.loudness, plan.items.map((i) => i.clipId));
  // Items and the copies their clips play from are written together: no trial is ever served without its copy.
  const action = db
    .transaction(() => {
      const written = writeStudy(db, studyId, parsed.definition, plan, options.now);
      const changed = changedCopies(db, audio);
      const { votes } = db.prepare('SELECT count(*) AS votes FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ?').get(studyId) as { votes: number };
      if (changed > 0 && votes > 0) throw new StudyAudioLockedError(studyId, votes, changed);
      recordStudyAudio(db, audio);
      return written;
    })
    .immediate();
  const { status } = db.prepare('SELECT status FROM studies WHERE id = ?').get(studyId) as { status: string };
  const count = (kind: string) => plan.items.filter((i) => i.kind === kind).length;
  return {
    studyId,
    summary: { studyId, action, status, items: { pair: count('pair'), attention: count('attention'), practice: count('practice') }, sampler: plan.sampler, sources, audio: summariseStudyAudio(audio) },
  };
}

export function formatBuildSummary(summary: BuildSummary): string {
  const lines = [...summary.sources.map((s) => `import ${s.source.kind}: ${s.summary}`)];
  lines.push(
    `study ${summary.studyId}: ${summary.action} (status ${summary.status}) — ${summary.items.pair} items, ${summary.items.attention} attention checks, ${summary.items.practice} practice trials`,
  );
  if (summary.sampler) lines.push(formatSamplerSummary(summary.sampler));
  lines.push(formatStudyAudio(summary.audio));
  return lines.join('\n');
}

/** One line per problem for printing (definition problems carry file:line:column). */
export function describeError(error: unknown): string {
  if (error instanceof StudyDefinitionError) return error.problems.map(formatProblem).join('\n');
  return error instanceof Error ? error.message : String(error);
}

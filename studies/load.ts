/**
 * `studies/<name>/` → a built study in the database: the entry point the CLI and the server
 * use. The study id is the folder name.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { StudyId } from '../contract/common';
import type { TrialKind } from '../contract/trials';
import type { Db } from '../db/open';
import { manifestStore } from '../audio-manifest/store';
import { changedCopies, formatStudyAudio, prepareStudyAudio, recordStudyAudio, summariseStudyAudio, type StudyAudioSummary } from '../audio-manifest/served';
import { clipsOf } from './stimuli';
import { replayedClips } from './trials';
import { renditionStore } from '../audio-manifest/rendition-store';
import { derivedSystemOf } from '../audio-manifest/anchors';
import { planStudy, StudyLockedError, writeStudy, type BuildAction, type PlanScope, type PlannedItem, type StudyPlan } from './build';
import { studyBlendWarning } from './attention-blend';
import { completionProblems } from './completion';
import { readMaterial, type StudyMaterial } from './material';
import { formatProblem, readStudyYaml, StudyDefinitionError, type ParsedStudy } from './parse';
import { corporaList, corpusRoots, STUDIES_DIR } from './roots';
import { formatSamplerSummary, type SamplerSummary } from './sampler';
import { studyStore } from './store';
import { resolveSources, runSources, type SourceImporters, type SourceRun } from './sources';
import type { ItemKind } from '../contract/constants';

/** Where a study may read its sources from (see roots.ts). */
export interface RootOptions {
  /** The data dir: its studies/ folder (the studio's uploads) is a root. */
  dataDir?: string;
  /** Corpus folders (`--corpora` / `EARMARK_CORPORA`); defaults to EARMARK_CORPORA. */
  corpora?: readonly string[];
}

export interface LoadOptions extends RootOptions {
  /** Importers for the definition's `sources:`; defaults to the audio manifest's. */
  importers?: SourceImporters;
  /** Skip importing `sources:` (the manifest already holds them); they are still read to scope the study. */
  skipSources?: boolean;
  now?: Date;
  /** Why an edit changes the analysis plan after the first vote (studies/analysis-plan.ts). */
  planChangeReason?: string;
}

export interface BuildSummary {
  studyId: string;
  action: BuildAction;
  status: string;
  items: ItemCounts;
  sampler: SamplerSummary | null;
  sources: SourceRun[];
  /** What the researcher should know that did not stop the build (skipped plans, scores without captions). */
  notes: string[];
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
  const id = basename(resolve(dir)).replace(/\.yaml$/, '');
  const parsed = StudyId.safeParse(id);
  if (!parsed.success) throw new Error(`study folder name "${id}" cannot be a study id: ${parsed.error.issues[0].message}`);
  return id;
}

/** A study folder (its study.yaml) or a definition file (a template); the folder is where relative paths start. */
function definitionFile(path: string): { file: string; dir: string } {
  const full = resolve(path);
  return full.endsWith('.yaml') ? { file: full, dir: dirname(full) } : { file: join(full, 'study.yaml'), dir: full };
}

/** A definition file among the repository's templates (studies/templates/*.yaml). */
const isTemplate = (file: string) => relative(join(STUDIES_DIR, 'templates'), file) === basename(file);

function readDefinition(path: string): ParsedStudy {
  const { file } = definitionFile(path);
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  const shown = relative(resolve(definitionFile(path).dir, '..'), file);
  return readStudyYaml(file, shown);
}

/** The roots for a study in `dir`: its own folder too, so a study's files beside its study.yaml always resolve. */
export function studyRoots(dir: string, options: RootOptions): string[] {
  return [...corpusRoots({ dataDir: options.dataDir, corpora: options.corpora ?? corporaList(process.env.EARMARK_CORPORA) }), resolve(dir)];
}

async function defaultImporters(): Promise<SourceImporters> {
  const { manifestImporters } = await import('./manifest-importers');
  return manifestImporters;
}

/** A dry run's clip id: the audio file is there but not imported (validate writes nothing). */
const notImported = (audio: string) => `not imported:${audio}`;
/** What a plan before any import sees: placeholders for every clip, and for the degraded copy and anchors every rendition will get when imported. */
const beforeImport = {
  clipOf: notImported,
  derivedOf: (_u: string, derived: string, audio: string) => notImported(`${audio} (its ${derivedSystemOf(derived)!.copy === 'degraded' ? 'degraded copy' : `${derivedSystemOf(derived)!.copy} anchor`})`),
};

export interface ValidationResult {
  studyId: string;
  /** null for a template whose files are not there yet (only its definition and paths were checked). */
  plan: StudyPlan | null;
  /** What the sources hold (null: the study declares none). */
  material: StudyMaterial | null;
  /** The plan's items per kind (none for a template whose files are not there). */
  items: ItemCounts;
  notes: string[];
}

/** Attention checks a text-only reader may spot (studies/attention-blend.ts): a warning, not a refusal. */
function blendNotes(db: Db, parsed: ParsedStudy, scope: PlanScope | undefined): string[] {
  const warning = studyBlendWarning(db, parsed, scope);
  return warning === null ? [] : [warning];
}

/** Lines for the CLI and the studio: what each source held, read as a dry run. */
export function describeMaterial(material: StudyMaterial): string {
  const clips = [...material.utterances.values()].filter((u) => u.audio !== null).length;
  return `read ${material.utterances.size} utterances (${clips} with audio), ${material.captions.length} captions, ${material.judgeScores.length} judge scores`;
}

/**
 * Is this study right? Parses the definition, confines its source paths to the corpus roots,
 * reads every source file (file:line:column for what does not parse) and plans the items from
 * that material — a dry run: nothing is written to the database or the disk. The CLI's
 * `validate` and the studio's Validate both call this. A template (a .yaml under
 * studies/templates/) may name files its user has not provided yet: those are listed, not refused.
 */
export async function validateStudyDir(db: Db, path: string, options: RootOptions = {}): Promise<ValidationResult> {
  const studyId = studyIdOf(path);
  const parsed = readDefinition(path);
  const { file, dir } = definitionFile(path);
  const template = isTemplate(file);
  const roots = studyRoots(dir, options);
  const { sources, missing } = await resolveSources(parsed, dir, { roots, template });
  const material = sources.length > 0 ? await readMaterial(sources, { roots, studyDir: dir }) : null;
  const notes = [...(material?.notes ?? [])];
  // A template keeps its placeholder code: the researcher's copy is what must have the real one.
  for (const p of completionProblems(parsed.definition)) {
    notes.push(`${formatProblem(parsed.problemAt(p.path, p.message))}${template ? ' (a template: set it in your copy)' : ' — build and open refuse it'}`);
  }
  if (missing.length > 0) {
    const named = [...new Set(missing.map((m) => relative(dir, m)))];
    notes.push(`the template names ${named.length} path${named.length === 1 ? '' : 's'} to provide: ${named.join(', ')}; items are planned once they are there`);
    return { studyId, plan: null, material, items: countItems([], parsed.definition.trial.kind), notes };
  }
  const scope = material ? { material, ...beforeImport } : undefined;
  const plan = planStudy(db, parsed, scope);
  return { studyId, plan, material, items: countItems(plan.items, parsed.definition.trial.kind), notes: [...notes, ...blendNotes(db, parsed, scope)] };
}

/**
 * Parses and validates `<dir>/study.yaml`, reads its sources (the study's own material), imports
 * them into the manifest, plans the items from that material and writes the study (status draft
 * when new). Throws StudyDefinitionError (line and field per problem) or StudyLockedError (items
 * would change under collected votes). A malformed source file stops the build before anything
 * is imported.
 */
export async function loadStudyDir(db: Db, dir: string, options: LoadOptions = {}): Promise<{ studyId: string; summary: BuildSummary }> {
  const studyId = studyIdOf(dir);
  const parsed = readDefinition(dir);
  // A definition file (a template) is read like a folder's study.yaml: its paths start beside it.
  const studyDir = definitionFile(dir).dir;
  const completion = completionProblems(parsed.definition);
  if (completion.length > 0 && !isTemplate(definitionFile(dir).file)) throw new StudyDefinitionError(completion.map((p) => parsed.problemAt(p.path, p.message)));
  const roots = studyRoots(studyDir, options);
  const { sources: resolved } = await resolveSources(parsed, studyDir, { roots });
  const material = resolved.length > 0 ? await readMaterial(resolved, { roots, studyDir }) : null;
  // A study its own files cannot satisfy is refused before anything is imported.
  if (material) planStudy(db, parsed, { material, ...beforeImport });
  const sources = options.skipSources ? [] : await runSources(db, resolved, options.importers ?? (resolved.length ? await defaultImporters() : {}));
  const manifest = manifestStore(db);
  const renditions = renditionStore(db);
  const scope: PlanScope | undefined = material
    ? { material, clipOf: (audio) => manifest.clipByPath(audio)?.id ?? null, derivedOf: (utteranceId, derived) => renditions.find(utteranceId, derived) }
    : undefined;
  const plan = planStudy(db, parsed, scope);
  const audio = await prepareStudyAudio(db, studyId, parsed.definition.loudness, plan.items.flatMap((i) => clipsOf(i.stimuli)), replayedClips(plan.items));
  // Items and the copies their clips play from are written together: no trial is ever served without its copy.
  const store = studyStore(db);
  const action = db
    .transaction(() => {
      const written = writeStudy(db, studyId, parsed.definition, plan, options.now, options.planChangeReason);
      const changed = changedCopies(db, audio);
      const votes = store.votes(studyId);
      if (changed > 0 && votes > 0) throw new StudyAudioLockedError(studyId, votes, changed);
      recordStudyAudio(db, audio);
      return written;
    })
    .immediate();
  const status = store.status(studyId)!;
  return {
    studyId,
    summary: {
      studyId, action, status, items: countItems(plan.items, parsed.definition.trial.kind), sampler: plan.sampler, sources,
      notes: [...(material?.notes ?? []), ...blendNotes(db, parsed, scope)],
      audio: summariseStudyAudio(audio),
    },
  };
}

/** Items per kind: the study's trial kind (its scored items), attention checks and practice trials. */
export type ItemCounts = Partial<Record<TrialKind, number>> & Record<'attention' | 'practice', number>;

/** How many items of each kind a plan of a study of this trial kind has (the build's and validate's report). */
export function countItems(items: readonly PlannedItem[], kind: TrialKind): ItemCounts {
  const counts: Partial<Record<ItemKind, number>> = { [kind]: 0, attention: 0, practice: 0 };
  for (const item of items) counts[item.kind] = (counts[item.kind] ?? 0) + 1;
  return counts as ItemCounts;
}

/** "16 items, 4 attention checks, 0 practice trials": scored items of whichever kind the study has. */
export function formatItemCounts(counts: ItemCounts): string {
  const scored = Object.entries(counts).reduce((n, [kind, k]) => (kind === 'attention' || kind === 'practice' ? n : n + (k ?? 0)), 0);
  return `${scored} items, ${counts.attention} attention checks, ${counts.practice} practice trials`;
}

export function formatBuildSummary(summary: BuildSummary): string {
  const lines = [...summary.sources.map((s) => `import ${s.source.kind}: ${s.summary}`), ...summary.notes.map((n) => `warning: ${n}`)];
  lines.push(
    `study ${summary.studyId}: ${summary.action} (status ${summary.status}) — ${formatItemCounts(summary.items)}`,
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

/**
 * From a validated definition and the manifest to the rows listeners are served from: check
 * every reference against the manifest (problems point at the YAML line), sample or list the
 * pair items, make attention checks and practice trials, and write `studies` + `items`.
 * A study that already has votes keeps its items and captions: a rebuild that would change
 * them is refused, with the advice to clone the study instead.
 */
import { applyPlanEdit, freezePlanAtOpening } from './analysis-plan';
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/open';
import { generateAttentionChecks, type AttentionCandidate, type GeneratedCheck, type Labels } from './attention';
import { fieldName, StudyDefinitionError, type DefinitionProblem, type FieldPath, type ParsedStudy } from './parse';
import { completionProblems } from './completion';
import { readStudyDefinition } from './settings';
import { keyedRandom } from '../analysis/random';
import { captionKey, SamplingError, type SamplerSummary } from './sampler';
import { planItems } from './trials';
import type { MaterialScore, StudyMaterial } from './material';
import { bestBtHalfWidth, type AttentionAttribute, type StudyDefinition, type UtteranceFilter } from '../contract/study-definition';
import type { StudyStatus } from '../contract/constants';
import type { TrialKind } from '../contract/trials';
import type { ItemKind } from '../contract/constants';
import { studyStore } from './store';
import { clipsOf, systemsOf, type Stimulus } from './stimuli';
import { renditionStore } from '../audio-manifest/rendition-store';
import { derivedSystemOf } from '../audio-manifest/anchors';

/** An item's role: an ordinary trial of the study's kind, an attention check or a practice trial. */

/**
 * One row of `items`, before it gets its opaque id (db/migrations.ts, version 15): its role, its
 * kind, the utterance it is about and its stimuli (studies/stimuli.ts), which its kind planned.
 */
export interface PlannedItem {
  kind: ItemKind;
  trialKind: TrialKind;
  utteranceId: string;
  stimuli: Stimulus[];
  /** An attention or practice item's intended answer: a pair's side (a|b), a rating's score ('1'..'7'). */
  expected: string | null;
}

export interface StudyPlan {
  items: PlannedItem[];
  sampler: SamplerSummary | null;
  /** The judge scores of the captions the items show, kept with the study when it is written. */
  judgeScores: ScoreRow[];
}

interface UtteranceRow {
  id: string;
  corpus: string;
  clipId: string | null;
  labels: Labels;
}

type ScoreRow = MaterialScore;

/**
 * What a plan draws on. A study that declares `sources:` draws only on its own material
 * (material.ts), with each utterance's audio mapped to its clip; a study that declares none draws
 * on the whole manifest (it named nothing narrower).
 */
export interface PlanScope {
  material: StudyMaterial;
  /** The clip id of an audio file (null: not imported). Validate passes a placeholder: it writes nothing. */
  clipOf(audio: string): string | null;
  /**
   * The clip of a derived copy of a rendition — `derived` is `degraded:<system>` (audio-manifest/degrade.ts)
   * or a MUSHRA anchor's `anchor35:<system>` (anchors.ts) — made when the rendition was imported (null, or
   * absent: not made). Validate imports nothing and passes a placeholder.
   */
  derivedOf?(utteranceId: string, derived: string, audio: string): string | null;
}

/** The utterances, captions and judge scores the build may use, and its questions about them. */
export class ManifestView {
  private readonly utterances = new Map<string, UtteranceRow>();
  private readonly captions = new Map<string, string>();
  private readonly captionUtterance = new Map<string, string>();
  readonly systems: Set<string>;
  private readonly scores: ScoreRow[];
  /** System audio of an utterance: its clip id (null: the file is not imported), by captionKey(utterance, system). */
  private readonly renditions: (utteranceId: string, system: string) => string | null;
  /** The systems that have audio of some utterance (renditions), for kinds that play systems' audio. */
  readonly renditionSystems: Set<string>;
  /** What problems say the build looked in. */
  readonly name: string;

  /**
   * `corpusRenditions`: an audio-only rating study (trial.caption: false) rates clips, not captions, so each
   * clip is also a caption-less rendition whose system is its corpus (`vctk`, `ravdess`): a MOS of corpus
   * clips needs no caption file.
   */
  constructor(db: Db, readonly task: string, scope: PlanScope | undefined, corpusRenditions = false) {
    this.name = scope ? "the study's sources" : 'the manifest';
    let captions: { utteranceId: string; system: string; text: string }[];
    if (scope) {
      for (const u of scope.material.utterances.values()) {
        this.utterances.set(u.id, { id: u.id, corpus: u.corpus, clipId: u.audio === null ? null : scope.clipOf(u.audio), labels: u.labels });
      }
      captions = scope.material.captions.filter((c) => c.task === task);
      this.scores = scope.material.judgeScores;
      const renditions = new Map([...scope.material.renditions.values()].map((r) => [captionKey(r.utteranceId, r.system), r.audio]));
      this.renditions = (utteranceId, system) => {
        const derived = derivedSystemOf(system);
        const audio = renditions.get(captionKey(utteranceId, derived?.source ?? system));
        if (audio === undefined) return null;
        return derived === null ? scope.clipOf(audio) : (scope.derivedOf?.(utteranceId, system, audio) ?? null);
      };
      this.renditionSystems = new Set([...scope.material.renditions.values()].map((r) => r.system));
    } else {
      const store = studyStore(db);
      for (const r of store.manifestUtterances()) {
        // Clip labels (corpus file facts) first, utterance labels (e.g. MetaSet metadata) on top.
        this.utterances.set(r.id, { id: r.id, corpus: r.corpus, clipId: r.clipId, labels: { ...parseLabels(r.clipLabels), ...parseLabels(r.utteranceLabels) } });
      }
      captions = store.manifestCaptions(task);
      this.scores = store.manifestJudgeScores();
      const renditions = renditionStore(db);
      this.renditions = (utteranceId, system) => renditions.find(utteranceId, system);
      this.renditionSystems = new Set(renditions.perSystem().map((r) => r.system));
    }
    if (corpusRenditions) {
      for (const u of this.utterances.values()) if (u.clipId !== null) captions.push({ utteranceId: u.id, system: u.corpus, text: '' });
    }
    for (const c of captions) {
      this.captions.set(captionKey(c.utteranceId, c.system), c.text);
      this.captionUtterance.set(captionKey(c.utteranceId, c.system), c.utteranceId);
    }
    this.systems = new Set(captions.map((c) => c.system));
  }

  /** "system x is not in the study's sources (task t has: a, b)": a problem that names what there is instead (`audio`: systems with renditions). */
  unknownSystem(system: string, audio = false): string {
    const known = [...(audio ? this.renditionSystems : this.systems)].sort();
    if (audio) return `system ${system} has no renditions in ${this.name} (${known.length === 0 ? 'no system has any; import them with npm run manifest -- renditions, or a renditions source' : `systems with renditions: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ` and ${known.length - 20} more` : ''}`})`;
    const listed = known.length === 0 ? 'no systems' : `systems ${known.slice(0, 20).join(', ')}${known.length > 20 ? ` and ${known.length - 20} more` : ''}`;
    return `system ${system} is not in ${this.name} (task ${this.task} has ${listed})`;
  }

  utterance(id: string): UtteranceRow | undefined {
    return this.utterances.get(id);
  }

  /**
   * The clip of the system's rendition of the utterance (its audio: a `renditions` source), or null
   * when the study's sources (or, declaring none, the manifest) have none. For kinds that play
   * systems' audio (A/B, MUSHRA): an item's stimulus per system.
   */
  rendition(utteranceId: string, system: string): string | null {
    return this.renditions(utteranceId, system);
  }

  caption(utteranceId: string, system: string): string | undefined {
    return this.captions.get(captionKey(utteranceId, system));
  }

  /** Every caption text of the task in scope. */
  captionTexts(): Set<string> {
    return new Set(this.captions.values());
  }

  /** Every caption of the task in scope, as [utterance id, text]. */
  *captionEntries(): Generator<[string, string]> {
    for (const [key, text] of this.captions) yield [this.captionUtterance.get(key)!, text];
  }

  filtered(filter: UtteranceFilter | undefined): UtteranceRow[] {
    const ids = filter?.ids ? new Set(filter.ids) : null;
    return [...this.utterances.values()].filter(
      (u) =>
        u.clipId !== null &&
        (!filter?.corpus || u.corpus === filter.corpus) &&
        (!ids || ids.has(u.id)) &&
        Object.entries(filter?.labels ?? {}).every(([k, v]) => sameLabel(u.labels[k], v)),
    );
  }

  judgeRows(systems: ReadonlySet<string>): ScoreRow[] {
    return this.scores.filter((r) => systems.has(r.system));
  }

  judges(): Set<string> {
    return new Set(this.scores.map((r) => r.judge));
  }

  /** The judge scores of the captions the scored items show: what the study's export carries. */
  scoresOf(items: readonly PlannedItem[]): ScoreRow[] {
    const shown = new Set(
      items.filter((i) => i.kind === i.trialKind).flatMap((i) => systemsOf(i.stimuli).map((s) => captionKey(i.utteranceId, s))),
    );
    return this.scores.filter((r) => shown.has(captionKey(r.utteranceId, r.system)));
  }
}

/** Text labels match whatever their case: corpora spell the same value differently (MetaSet `source`: vctk, VCTK). */
function sameLabel(actual: unknown, wanted: string | number | boolean): boolean {
  return typeof actual === 'string' && typeof wanted === 'string' ? actual.toLowerCase() === wanted.toLowerCase() : actual === wanted;
}

function parseLabels(text: string | null): Labels {
  if (!text) return {};
  const value: unknown = JSON.parse(text);
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Labels) : {};
}

/** `name*` matches every system starting with `name`. */
function resolveSystems(patterns: readonly string[], known: ReadonlySet<string>): Map<string, string[]> {
  return new Map(patterns.map((p) => [p, p.endsWith('*') ? [...known].filter((s) => s.startsWith(p.slice(0, -1))).sort() : known.has(p) ? [p] : []]));
}

/** What a trial kind's planner (studies/trials) draws on, and where it reports what cannot be satisfied. */
export interface PlanContext {
  manifest: ManifestView;
  /** A problem at the YAML node of `path`. */
  problem(path: FieldPath, message: string): void;
  /** Whether any problem was reported so far (sampling waits until the references are right). */
  failed(): boolean;
  /** The utterance's clip; a problem at `path` when it is unknown or has none. */
  clipOf(utteranceId: string, path: FieldPath): string | undefined;
  /** The system's caption of the utterance; a problem at `path` when there is none. */
  captionOf(utteranceId: string, system: string, path: FieldPath): string | undefined;
  /** A sample config's systems with `name*` patterns resolved; unknown ones and utterance ids are problems at their lines. */
  sampledSystems(config: { systems: readonly string[]; utterances?: UtteranceFilter }, audio?: boolean): string[];
  /** The clip of the system's rendition of the utterance; a problem at `path` when there is none. */
  renditionOf(utteranceId: string, system: string, path: FieldPath): string | undefined;
  /** The utterances a sample draws from: the filter's with a clip, less the practice clips and the attention checks' and their donors' (listed, or generated before sampling). */
  samplePool(filter: UtteranceFilter | undefined, checks: readonly { utteranceId: string; clipId: string; donorUtteranceId?: string; donorClipId?: string }[]): { id: string }[];
  /** Sampling that cannot be satisfied: a problem at the sample setting it names. */
  samplingProblem(error: unknown): void;
  /**
   * Generated attention checks over the declared split (the checks' `utterances`, else the sampled
   * items' `utterances`), never on a practice trial's clip nor on one of `items` (listed items; sampled
   * items are drawn after the checks, away from their clips and their donors' clips). Both sides are
   * captions by the systems the items show (and `descriptionSystem`); `sides` 1 when a trial shows only
   * the wrong one.
   */
  generatedChecks(
    config: { count: number; attributes: readonly AttentionAttribute[]; descriptionSystem: string; utterances?: UtteranceFilter },
    items: readonly PlannedItem[],
    sides: 1 | 2,
  ): (GeneratedCheck & { clipId: string; donorClipId: string })[];
}

/**
 * Plans the study's items from its own material (or, declaring no sources, the manifest): the
 * study's trial kind (studies/trials) turns its item config into items, attention checks and
 * practice trials; the design must then be possible with them. Throws StudyDefinitionError
 * listing every reference that cannot be satisfied (each with its YAML line and field).
 */
export function planStudy(db: Db, parsed: ParsedStudy, scope?: PlanScope): StudyPlan {
  const def = parsed.definition;
  const problems: DefinitionProblem[] = [];
  const manifest = new ManifestView(db, def.task, scope, def.trial.kind === 'rating' && !def.trial.caption);
  const problem = (path: FieldPath, message: string) => void problems.push(parsed.problemAt(path, message));

  const context: PlanContext = {
    manifest,
    problem,
    failed: () => problems.length > 0,
    clipOf(utteranceId, path) {
      const u = manifest.utterance(utteranceId);
      if (!u) problem(path, `utterance ${utteranceId} is not in ${manifest.name}`);
      else if (!u.clipId) problem(path, `utterance ${utteranceId} has no audio clip in ${manifest.name}`);
      return u?.clipId ?? undefined;
    },
    captionOf(utteranceId, system, path) {
      const text = manifest.caption(utteranceId, system);
      if (text === undefined && manifest.utterance(utteranceId)) {
        problem(path, manifest.systems.has(system) ? `system ${system} has no ${def.task} caption for ${utteranceId}` : manifest.unknownSystem(system));
      }
      return text;
    },
    sampledSystems(config, audio = false) {
      const resolved = resolveSystems(config.systems, audio ? manifest.renditionSystems : manifest.systems);
      config.systems.forEach((p, i) => {
        if (resolved.get(p)!.length === 0) problem(['items', 'systems', i], manifest.unknownSystem(p, audio));
      });
      config.utterances?.ids?.forEach((id, i) => context.clipOf(id, ['items', 'utterances', 'ids', i]));
      return [...new Set([...resolved.values()].flat())];
    },
    renditionOf(utteranceId, system, path) {
      if (!manifest.utterance(utteranceId)) {
        problem(path.slice(0, -1).concat('utterance'), `utterance ${utteranceId} is not in ${manifest.name}`);
        return undefined;
      }
      const clip = manifest.rendition(utteranceId, system);
      if (clip === null) {
        problem(path, manifest.renditionSystems.has(system)
          ? `system ${system} has no rendition of ${utteranceId} (its renditions: a ${system}/ file named after the utterance, or a list row)`
          : manifest.unknownSystem(system, true));
      }
      return clip ?? undefined;
    },
    samplePool(filter, checks) {
      // A practice clip teaches the task and an attention check has a known answer: drawing either
      // as a scored item would score a taught or a checked answer.
      const kept = reserved();
      for (const c of checks) {
        kept.utterances.add(c.utteranceId);
        kept.clips.add(c.clipId);
        // The clip whose caption is a check's wrong side: that caption in a scored trial would mark the check.
        if (c.donorUtteranceId !== undefined && c.donorClipId !== undefined) {
          kept.utterances.add(c.donorUtteranceId);
          kept.clips.add(c.donorClipId);
        }
      }
      return manifest.filtered(filter).filter((u) => !kept.utterances.has(u.id) && !kept.clips.has(u.clipId!));
    },
    samplingProblem(error) {
      if (!(error instanceof SamplingError)) throw error;
      problem(['items', error.field], error.message);
    },
    generatedChecks(config, items, sides) {
      const split = config.utterances ?? (def.items.mode === 'sample' ? def.items.utterances : undefined);
      const kept = reserved();
      const scored = items.filter((i) => i.kind === i.trialKind);
      const taken = { utterances: new Set([...kept.utterances, ...scored.map((i) => i.utteranceId)]), clips: new Set([...kept.clips, ...scored.flatMap((i) => clipsOf(i.stimuli))]) };
      // The systems whose captions the items show: checks written by them read like items.
      // (A tags study's clips name no system; a MUSHRA page's systems are its trial's, and it has no checks.)
      const patterns = def.items.mode === 'sample' ? ('systems' in def.items ? def.items.systems : []) : def.items.list.flatMap((e) => ('system' in e ? [e.system] : 'systemA' in e ? [e.systemA, e.systemB] : []));
      const systems = new Set([...[...resolveSystems(patterns, manifest.systems).values()].flat(), config.descriptionSystem]);
      const usable = manifest.filtered(split).filter((u) => !taken.utterances.has(u.id) && !taken.clips.has(u.clipId!));
      const candidates: AttentionCandidate[] = usable.map((u) => ({
        utteranceId: u.id,
        labels: u.labels,
        captions: [...systems].flatMap((system) => {
          const text = manifest.caption(u.id, system);
          return text === undefined ? [] : [{ system, text }];
        }),
      }));
      // A caption of any other clip may be shown in a trial: a check must not repeat it.
      const own = new Set(usable.map((u) => u.id));
      const elsewhere = new Set([...manifest.captionEntries()].filter(([utteranceId]) => !own.has(utteranceId)).map(([, text]) => text));
      // A sample drawn after the checks needs its clips: checks keep at most the pool's spare ones out of it.
      const sample = def.items.mode === 'sample' ? def.items : null;
      const pool = sample ? manifest.filtered(sample.utterances).filter((u) => !taken.utterances.has(u.id) && !taken.clips.has(u.clipId!)) : [];
      const spare = sample ? pool.length - Math.ceil(sample.count / ((sample as { maxPerUtterance?: number }).maxPerUtterance ?? 1)) : 0;
      // Too small a pool for even the checks' own clips: the sample says so at its own setting.
      const budget = sample && spare >= config.count ? { within: new Set(pool.map((u) => u.id)), clips: spare } : undefined;
      try {
        return generateAttentionChecks(candidates, { count: config.count, attributes: config.attributes, sides, elsewhere, budget }, keyedRandom(def.seed, 'attention')).map((check) => ({
          ...check,
          clipId: manifest.utterance(check.utteranceId)!.clipId!,
          donorClipId: manifest.utterance(check.donorUtteranceId)!.clipId!,
        }));
      } catch (error) {
        problem(['attentionChecks', 'count'], `${(error as Error).message} (checks and the clips their wrong captions describe never use a scored item's or a practice trial's clip)`);
        return [];
      }
    },
  };
  /** The utterances and clips of the practice trials and the listed attention checks: never scored. */
  function reserved(): { utterances: Set<string>; clips: Set<string> } {
    const listed = [...def.practice, ...(def.attentionChecks?.mode === 'explicit' ? def.attentionChecks.list : [])].map((e) => e.utterance);
    return {
      utterances: new Set(listed),
      clips: new Set(listed.map((u) => manifest.utterance(u)?.clipId).filter((c): c is string => typeof c === 'string')),
    };
  }
  const { items, sampler } = planItems(def, context);
  checkRoles(def, items, problem);

  // The design must be possible with what was planned.
  const scored = items.filter((i) => i.kind === i.trialKind).length;
  const checks = items.filter((i) => i.kind === 'attention').length;
  if (problems.length === 0) {
    const perListener = def.design.kind === 'crossed' ? scored : Math.min(def.design.itemsPerListener, scored);
    if (def.design.kind !== 'crossed' && def.design.itemsPerListener > scored) {
      problem(['design', 'itemsPerListener'], `each listener cannot get ${def.design.itemsPerListener} items: the study has ${scored}`);
    } else if (def.design.kind === 'adaptive' && unreachableStop(def.design.stop, def.trial.kind, items)) {
      problem(['design', 'stop'], unreachableStop(def.design.stop, def.trial.kind, items)!);
    } else if (checks > 0 && checks > perListener - 1) {
      problem(['attentionChecks'], `${checks} attention checks need at least ${checks + 1} items per listener to sit between; a listener gets ${perListener}`);
    }
  }
  if (problems.length > 0) throw new StudyDefinitionError(problems);
  return { items, sampler, judgeScores: manifest.scoresOf(items) };
}

/**
 * Why an adaptive study's stopping rule can never be met, or null. With a vote budget V among K
 * systems: a CI target below bestBtHalfWidth(K, V) (pairs, A/B), or fewer votes than systems (a
 * rating study's system without a vote has no CI; pairs need K − 1 to connect every system).
 */
function unreachableStop(stop: Extract<StudyDefinition['design'], { kind: 'adaptive' }>['stop'], kind: TrialKind, items: readonly PlannedItem[]): string | null {
  if (stop.votes === undefined) return null;
  const systems = new Set(items.filter((i) => i.kind === i.trialKind).flatMap((i) => systemsOf(i.stimuli))).size;
  const needed = kind === 'rating' ? systems : systems - 1;
  if (stop.votes < needed) return `${stop.votes} votes cannot give each of the ${systems} systems a ${kind === 'rating' ? 'rating' : 'comparison'}; the budget needs at least ${needed}`;
  if (kind !== 'rating' && stop.ciHalfWidth !== undefined && stop.ciHalfWidth < bestBtHalfWidth(systems, stop.votes)) {
    return `a CI half-width of ${stop.ciHalfWidth} is out of reach in ${stop.votes} votes among ${systems} systems: the best possible is ${bestBtHalfWidth(systems, stop.votes).toFixed(3)} (every pair compared equally, p = 1/2); raise votes or the target`;
  }
  return null;
}

/**
 * One role per clip: a practice clip is never an attention check or a scored item, an attention
 * check's clip never a scored item (a clip reached through two utterance ids counts as one). A
 * problem at the practice or attention entry that breaks it.
 */
function checkRoles(def: StudyDefinition, items: readonly PlannedItem[], problem: (path: FieldPath, message: string) => void): void {
  const shares = (a: PlannedItem, b: PlannedItem) => a.utteranceId === b.utteranceId || clipsOf(a.stimuli).some((c) => b.stimuli.some((s) => s.clip === c));
  const scored = items.filter((i) => i.kind === i.trialKind);
  const attention = items.filter((i) => i.kind === 'attention');
  const scoredAt = (item: PlannedItem) => {
    const at = scored.findIndex((s) => shares(s, item));
    return at < 0 ? null : def.items.mode === 'explicit' ? ` (items.list[${at}])` : '';
  };
  items
    .filter((i) => i.kind === 'practice')
    .forEach((item, i) => {
      const where = scoredAt(item);
      if (where !== null) problem(['practice', i, 'utterance'], `${item.utteranceId} is also a scored item${where}; a practice trial must use a clip listeners are not scored on`);
      else if (attention.some((a) => shares(a, item))) {
        problem(['practice', i, 'utterance'], `${item.utteranceId} is also an attention check; a practice trial must use a clip of its own`);
      }
    });
  if (def.attentionChecks?.mode === 'explicit') {
    attention.forEach((item, j) => {
      const where = scoredAt(item);
      if (where !== null) {
        problem(['attentionChecks', 'list', j, 'utterance'], `${item.utteranceId} is also a scored item${where}; an attention check must use a clip listeners are not scored on`);
      }
    });
  }
}

/**
 * A new item's opaque id: 16 base64url characters that never start with `-` or `_`. Exports write
 * text that starts with `-` with a leading quote so spreadsheets cannot run it (analysis/csv.ts);
 * an id must reach items.csv and votes.csv exactly as the database holds it.
 */
export function newItemId(): string {
  for (;;) {
    const id = randomBytes(12).toString('base64url');
    if (/^[A-Za-z0-9]/.test(id)) return id;
  }
}

export class StudyLockedError extends Error {
  constructor(
    studyId: string,
    /** how many votes hold the study's items */
    readonly votes: number,
  ) {
    super(
      `study ${studyId} already has ${votes} vote${votes === 1 ? '' : 's'}, so its items and captions cannot change. ` +
        `Clone it instead: copy studies/${studyId} to a new folder (e.g. studies/${studyId}-v2), edit that, and build it.`,
    );
    this.name = 'StudyLockedError';
  }
}

export type BuildAction = 'created' | 'rebuilt' | 'definition updated' | 'unchanged';

function fingerprint(items: readonly PlannedItem[]): string {
  return JSON.stringify(items.map((i) => [i.kind, i.trialKind, i.utteranceId, i.stimuli, i.expected]));
}

/**
 * Writes the study and its items in one transaction. New study → status draft. Existing study:
 * same items → only the definition is updated (e.g. reworded instructions); different items →
 * replaced if nobody has voted yet, otherwise StudyLockedError.
 */
export function writeStudy(db: Db, studyId: string, definition: StudyDefinition, plan: StudyPlan, now = new Date(), planChangeReason?: string): BuildAction {
  const store = studyStore(db);
  // The study's own copy of its judge scores: the export reads these, so no other import can change them.
  const keepJudgeScores = () => store.replaceJudgeScores(studyId, plan.judgeScores);
  // Opaque: random, so an id says nothing about the clip, the systems or the item's kind.
  const insertItems = () => plan.items.forEach((item, seq) => store.insertItem(newItemId(), studyId, seq, item));
  return db
    .transaction((): BuildAction => {
      const at = now.toISOString();
      const existing = store.definition(studyId);
      const json = JSON.stringify(definition);
      if (existing === undefined) {
        store.insertStudy(studyId, definition.title, json, at);
        insertItems();
        keepJudgeScores();
        return 'created';
      }
      const votes = store.votes(studyId);
      const sameItems = fingerprint(store.plannedItems(studyId)) === fingerprint(plan.items);
      if (sameItems) {
        // The study's own judge files may gain a run before anyone votes; after, the export stays as it was.
        if (votes === 0) keepJudgeScores();
        if (existing === json) return 'unchanged';
        applyPlanEdit(db, studyId, definition, votes, at, planChangeReason);
        store.updateDefinition(studyId, definition.title, json, at);
        return 'definition updated';
      }
      if (votes > 0) throw new StudyLockedError(studyId, votes);
      store.removeItems(studyId);
      insertItems();
      keepJudgeScores();
      applyPlanEdit(db, studyId, definition, votes, at);
      store.updateDefinition(studyId, definition.title, json, at);
      return 'rebuilt';
    })
    .immediate();
}


const TRANSITIONS: Record<StudyStatus, StudyStatus[]> = {
  draft: ['open', 'closed'],
  open: ['paused', 'closed'],
  paused: ['open', 'closed'],
  closed: [],
};

/** open / pause / close. Closed is final; opening needs at least one item. Setting the current status is a no-op. */
export function setStudyStatus(db: Db, studyId: string, to: StudyStatus, now = new Date()): { from: StudyStatus; to: StudyStatus } {
  const store = studyStore(db);
  return db
    .transaction(() => {
      const from = store.status(studyId);
      if (!from) throw new Error(`unknown study ${studyId}: build it first`);
      if (from === to) return { from, to };
      if (!TRANSITIONS[from].includes(to)) {
        throw new Error(`study ${studyId} is ${from}; it cannot become ${to}${from === 'closed' ? ' (a closed study stays closed; clone it to run again)' : ''}`);
      }
      if (to === 'open' && store.scoredItems(studyId) === 0) throw new Error(`study ${studyId} has no items to open with`);
      if (to === 'open') {
        const [wrong] = completionProblems(readStudyDefinition(db, studyId));
        if (wrong) throw new Error(`study ${studyId} cannot open: ${fieldName(wrong.path)}: ${wrong.message}; edit study.yaml and build again`);
      }
      if (to === 'open') freezePlanAtOpening(db, studyId, readStudyDefinition(db, studyId), now.toISOString());
      store.setStatus(studyId, to, now.toISOString());
      return { from, to };
    })
    .immediate();
}

/**
 * The CCR kind's build (analysis-spec §5.4): each item one utterance heard as the reference
 * system's rendition (slot `reference`) and a processed system's (slot `processed`); the processed
 * renditions listed or sampled as a rating study samples clips (every system in ≥ k items), only
 * where the reference has a rendition of the same utterance. Checks and practice trials set the
 * reference rendition against its clearly degraded copy (audio-manifest/degrade.ts): the processed
 * side is worse, so `expected` is −1 (any score below 0 is right).
 * The order of the two is balanced per item across listeners: each listener meets an item in the
 * order fewer earlier listeners met it in (a coin on a tie), so reference-first and
 * processed-first differ by at most one per item, whoever drops out.
 */
import { sampleRatedCaptions, type SamplerSummary } from '../../studies/sampler';
import { keyedRandom, type StudyRandom } from '../../analysis/random';
import { degradedSystem } from '../../audio-manifest/degrade';
import type { PlanContext, PlannedItem } from '../../studies/build';
import type { StudyDefinitionOf } from '../../contract/study-definition';
import type { KindPlan, OrderedTrial } from '../../studies/trials';
import { stimulus, type Stimulus } from '../../studies/stimuli';

/** A check's expected answer: the processed (degraded) side rated worse than the reference. */
export const CCR_WORSE = '-1';

const ccrStimuli = (referenceClip: string, reference: string, processedClip: string, processed: string): Stimulus[] => [
  stimulus('reference', 'reference', referenceClip, reference, null),
  stimulus('processed', 'rendition', processedClip, processed, null),
];

export function planCcrItems(def: StudyDefinitionOf<'ccr'>, study: PlanContext): KindPlan {
  const { manifest } = study;
  const reference = def.trial.reference;
  const items: PlannedItem[] = [];
  let sampler: SamplerSummary | null = null;
  const ccr = (utteranceId: string, referenceClip: string, processedClip: string, system: string): PlannedItem => ({
    kind: 'ccr', trialKind: 'ccr', utteranceId, stimuli: ccrStimuli(referenceClip, reference, processedClip, system), expected: null,
  });
  if (!manifest.renditionSystems.has(reference)) {
    study.problem(['trial', 'reference'], manifest.unknownSystem(reference, true));
    return { items, sampler };
  }

  if (def.items.mode === 'explicit') {
    def.items.list.forEach((entry, i) => {
      const base = ['items', 'list', i];
      if (entry.system === reference) study.problem([...base, 'system'], `is the study's reference (trial.reference): compare another system with it`);
      const processed = study.renditionOf(entry.utterance, entry.system, [...base, 'system']);
      const ref = study.renditionOf(entry.utterance, reference, [...base, 'utterance']);
      if (processed && ref) items.push(ccr(entry.utterance, ref, processed, entry.system));
    });
  } else {
    const config = def.items;
    const systems = study.sampledSystems(config, true).filter((s) => s !== reference);
    if (!study.failed()) {
      const pool = study.samplePool(config.utterances, []).filter((u) => manifest.rendition(u.id, reference) !== null);
      const renditions = pool.flatMap((u) => systems.filter((s) => manifest.rendition(u.id, s) !== null).map((system) => ({ utteranceId: u.id, system, score: null })));
      try {
        const result = sampleRatedCaptions(renditions, systems, { count: config.count, minPerSystem: config.minPerSystem, maxPerUtterance: config.maxPerUtterance, seed: def.seed });
        sampler = result.summary;
        for (const s of result.items) items.push(ccr(s.utteranceId, manifest.rendition(s.utteranceId, reference)!, manifest.rendition(s.utteranceId, s.system)!, s.system));
      } catch (error) {
        study.samplingProblem(error);
      }
    }
  }

  const known = (role: 'attention' | 'practice', utteranceId: string, path: (string | number)[]): PlannedItem | null => {
    const clean = study.renditionOf(utteranceId, reference, path);
    if (!clean) return null;
    const degraded = manifest.rendition(utteranceId, degradedSystem(reference));
    if (degraded === null) {
      study.problem(path, `the rendition of ${utteranceId} by ${reference} has no degraded copy; import the renditions again (npm run manifest -- renditions) to make one`);
      return null;
    }
    return { kind: role, trialKind: 'ccr', utteranceId, stimuli: ccrStimuli(clean, reference, degraded, degradedSystem(reference)), expected: CCR_WORSE };
  };
  const checks = def.attentionChecks;
  const extra: PlannedItem[] = [];
  if (checks?.mode === 'explicit') {
    checks.list.forEach((entry, i) => {
      const item = known('attention', entry.utterance, ['attentionChecks', 'list', i, 'utterance']);
      if (item) extra.push(item);
    });
  } else if (checks?.mode === 'degraded') {
    const utterances = [...new Set(items.map((i) => i.utteranceId))];
    const drawn = keyedRandom(def.seed, 'ccr attention').shuffle(utterances).slice(0, checks.count);
    if (drawn.length < checks.count) study.problem(['attentionChecks', 'count'], `${checks.count} checks need ${checks.count} utterances among the items; the items have ${utterances.length}`);
    for (const u of drawn) {
      const item = known('attention', u, ['attentionChecks']);
      if (item) extra.push(item);
    }
  }
  def.practice.forEach((entry, i) => {
    const item = known('practice', entry.utterance, ['practice', i, 'utterance']);
    if (item) extra.push(item);
  });
  return { items: [...items, ...extra], sampler };
}

/** Each trial's order: the slot fewer earlier listeners met first leads (a coin on a tie). */
export function ccrOrders(trials: readonly OrderedTrial[], random: StudyRandom, firstSlots: (itemId: string) => Record<string, number>): string[][] {
  return trials.map((t) => {
    const counts = firstSlots(t.itemId);
    const r = counts.reference ?? 0;
    const p = counts.processed ?? 0;
    const coin = random.next() < 0.5;
    const referenceFirst = r < p || (r === p && coin);
    return referenceFirst ? ['reference', 'processed'] : ['processed', 'reference'];
  });
}

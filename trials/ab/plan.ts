/**
 * The A/B kind's item config turned into items: each item one utterance heard as two systems'
 * renditions (slot a: system a's, slot b: system b's), listed or sampled over system pairs with
 * the caption pair's sampler (every system in ≥ k items, each system `a` in half of its items,
 * stratified over an automatic score's |Δ| when the study names one). Attention checks and
 * practice trials set a system's rendition against its clearly degraded copy
 * (audio-manifest/degrade.ts), addressed like any rendition; the expected answer is the clean side.
 */
import { captionKey, type SamplerSummary } from '../../studies/sampler';
import { samplePairs } from '../../studies/sample-pairs';
import { keyedRandom } from '../../analysis/random';
import { degradedSystem } from '../../audio-manifest/degrade';
import type { PlanContext, PlannedItem } from '../../studies/build';
import type { StudyDefinitionOf } from '../../contract/study-definition';
import type { KindPlan } from '../../studies/trials';
import { stimulus, type Stimulus } from '../../studies/stimuli';

/** An A/B item's stimuli: system a's rendition in slot a, system b's in slot b. */
export const abStimuli = (clipA: string, systemA: string, clipB: string, systemB: string): Stimulus[] => [
  stimulus('a', 'rendition', clipA, systemA, null),
  stimulus('b', 'rendition', clipB, systemB, null),
];

export const planAbItems = (def: StudyDefinitionOf<'ab'>, study: PlanContext): KindPlan => planRenditionPairs(def, study, 'ab', 'clean');

/**
 * Items of two systems' renditions of one utterance, for A/B and ABX alike (`kind`); a check's or
 * practice trial's expected answer is the side of its `known` stimulus: the clean one (A/B: the
 * better version) or the degraded copy (ABX: X is the degraded copy, so the right answer is its side).
 */
export function planRenditionPairs(def: StudyDefinitionOf<'ab' | 'abx'>, study: PlanContext, kind: 'ab' | 'abx', known: 'clean' | 'degraded'): KindPlan {
  const { manifest } = study;
  const items: PlannedItem[] = [];
  let sampler: SamplerSummary | null = null;
  const ab = (utteranceId: string, clipA: string, systemA: string, clipB: string, systemB: string): PlannedItem => ({
    kind, trialKind: kind, utteranceId, stimuli: abStimuli(clipA, systemA, clipB, systemB), expected: null,
  });

  if (def.items.mode === 'explicit') {
    def.items.list.forEach((entry, i) => {
      const base = ['items', 'list', i];
      if (entry.systemA === entry.systemB) study.problem([...base, 'systemB'], 'systemA and systemB must differ');
      const clipA = study.renditionOf(entry.utterance, entry.systemA, [...base, 'systemA']);
      const clipB = study.renditionOf(entry.utterance, entry.systemB, [...base, 'systemB']);
      if (clipA && clipB) items.push(ab(entry.utterance, clipA, entry.systemA, clipB, entry.systemB));
    });
  }
  const checks = def.attentionChecks;
  if (def.items.mode === 'sample') {
    // A rendition is a version as a caption is for the pair; two systems never share one clip, so no text is compared.
    const sample = samplePairs(def.items, study, { seed: def.seed, audio: true, checks: [], version: (u, system) => (manifest.rendition(u, system) === null ? null : {}) });
    if (sample) {
      sampler = sample.summary;
      for (const s of sample.items) {
        items.push(ab(s.utteranceId, manifest.rendition(s.utteranceId, s.systemA)!, s.systemA, manifest.rendition(s.utteranceId, s.systemB)!, s.systemB));
      }
    }
  }

  // Checks and practice: a rendition against its degraded copy; which side (a|b) is clean is drawn.
  const sides = keyedRandom(def.seed, 'known-answer sides');
  const knownItem = (role: 'attention' | 'practice', utteranceId: string, system: string, path: (string | number)[]): PlannedItem | null => {
    const clean = study.renditionOf(utteranceId, system, [...path, 'system']);
    if (!clean) return null;
    const degraded = manifest.rendition(utteranceId, degradedSystem(system));
    if (degraded === null) {
      study.problem([...path, 'system'], `the rendition of ${utteranceId} by ${system} has no degraded copy; import the renditions again (npm run manifest -- renditions) to make one`);
      return null;
    }
    const cleanSide = sides.next() < 0.5 ? 'a' : 'b';
    const stimuli = cleanSide === 'a' ? abStimuli(clean, system, degraded, degradedSystem(system)) : abStimuli(degraded, degradedSystem(system), clean, system);
    const expected = known === 'clean' ? cleanSide : cleanSide === 'a' ? 'b' : 'a';
    return { kind: role, trialKind: kind, utteranceId, stimuli, expected };
  };
  if (checks?.mode === 'explicit') {
    checks.list.forEach((entry, i) => {
      const item = knownItem('attention', entry.utterance, entry.system, ['attentionChecks', 'list', i]);
      if (item) items.push(item);
    });
  } else if (checks?.mode === 'degraded') {
    // Drawn from the scored items' utterances and systems, each check a different (utterance, system).
    const scored = items.filter((i) => i.kind === kind);
    const candidates = scored.flatMap((i) => i.stimuli.map((s) => ({ utteranceId: i.utteranceId, system: s.system! })));
    const unique = [...new Map(candidates.map((c) => [captionKey(c.utteranceId, c.system), c])).values()];
    const drawn = keyedRandom(def.seed, `${kind} attention`).shuffle(unique).slice(0, checks.count);
    if (drawn.length < checks.count) study.problem(['attentionChecks', 'count'], `${checks.count} checks need ${checks.count} renditions among the items; the items have ${unique.length}`);
    for (const c of drawn) {
      const item = knownItem('attention', c.utteranceId, c.system, ['attentionChecks']);
      if (item) items.push(item);
    }
  }
  def.practice.forEach((entry, i) => {
    const item = knownItem('practice', entry.utterance, entry.system, ['practice', i]);
    if (item) items.push(item);
  });
  return { items, sampler };
}

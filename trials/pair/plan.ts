/**
 * The caption pair's item config (contract/study-definition.ts ItemsConfig, AttentionConfig,
 * KnownAnswer) turned into item rows: pair items listed or sampled (every system in ≥ k items,
 * stratified over the judge's |Δ|), then attention checks and practice trials, each a right and a
 * wrong description of one clip.
 */
import type { SamplerSummary } from '../../studies/sampler';
import { samplePairs } from '../../studies/sample-pairs';
import { keyedRandom } from '../../analysis/random';
import type { PlanContext, PlannedItem } from '../../studies/build';
import type { StudyDefinitionOf } from '../../contract/study-definition';
import type { KindPlan } from '../../studies/trials';
import { stimulus, type Stimulus } from '../../studies/stimuli';

/** A pair item's stimuli: the clip with system a's caption in slot a and with system b's in slot b. */
export const pairStimuli = (clipId: string, systemA: string, systemB: string, captionA: string, captionB: string): Stimulus[] => [
  stimulus('a', 'caption', clipId, systemA, captionA),
  stimulus('b', 'caption', clipId, systemB, captionB),
];

export function planPairItems(def: StudyDefinitionOf<'pair'>, study: PlanContext): KindPlan {
  const { manifest } = study;
  const items: PlannedItem[] = [];
  let sampler: SamplerSummary | null = null;
  const pair = (utteranceId: string, clipId: string, systemA: string, systemB: string, captionA: string, captionB: string): PlannedItem => ({
    kind: 'pair', trialKind: 'pair', utteranceId, stimuli: pairStimuli(clipId, systemA, systemB, captionA, captionB), expected: null,
  });

  if (def.items.mode === 'explicit') {
    def.items.list.forEach((entry, i) => {
      const base = ['items', 'list', i];
      const clipId = study.clipOf(entry.utterance, [...base, 'utterance']);
      const captionA = study.captionOf(entry.utterance, entry.systemA, [...base, 'systemA']);
      const captionB = study.captionOf(entry.utterance, entry.systemB, [...base, 'systemB']);
      if (entry.systemA === entry.systemB) study.problem([...base, 'systemB'], 'systemA and systemB must differ');
      if (clipId && captionA !== undefined && captionB !== undefined) items.push(pair(entry.utterance, clipId, entry.systemA, entry.systemB, captionA, captionB));
    });
  }
  // Generated checks are drawn before a sample, so the sample leaves their clips alone (listed items come first).
  const attention = def.attentionChecks;
  const generated = attention?.mode === 'generated' && !study.failed() ? study.generatedChecks(attention, items, 2) : [];
  if (def.items.mode === 'sample') {
    const caption = (u: string, system: string) => manifest.caption(u, system);
    const sample = samplePairs(def.items, study, { seed: def.seed, audio: false, checks: generated, version: (u, system) => (caption(u, system) === undefined ? null : { text: caption(u, system) }) });
    if (sample) {
      sampler = sample.summary;
      for (const s of sample.items) {
        items.push(pair(s.utteranceId, manifest.utterance(s.utteranceId)!.clipId!, s.systemA, s.systemB, caption(s.utteranceId, s.systemA)!, caption(s.utteranceId, s.systemB)!));
      }
    }
  }

  // Attention checks and practice trials: a right and a wrong description of one clip; which
  // side (a|b) holds the right one is drawn, and the system names only mark which is which.
  const sides = keyedRandom(def.seed, 'known-answer sides');
  const known = (kind: 'attention' | 'practice', utteranceId: string, clipId: string, correct: string, wrong: string): PlannedItem => {
    const expected = sides.next() < 0.5 ? 'a' : 'b';
    const [right, other] = [`${kind}:true`, `${kind}:false`];
    return expected === 'a'
      ? { kind, trialKind: 'pair', utteranceId, stimuli: pairStimuli(clipId, right, other, correct, wrong), expected }
      : { kind, trialKind: 'pair', utteranceId, stimuli: pairStimuli(clipId, other, right, wrong, correct), expected };
  };
  if (attention?.mode === 'explicit') {
    attention.list.forEach((entry, i) => {
      const clipId = study.clipOf(entry.utterance, ['attentionChecks', 'list', i, 'utterance']);
      if (entry.correct === entry.wrong) study.problem(['attentionChecks', 'list', i, 'wrong'], 'the wrong description must differ from the correct one');
      if (clipId) items.push(known('attention', entry.utterance, clipId, entry.correct, entry.wrong));
    });
  } else {
    for (const check of generated) items.push(known('attention', check.utteranceId, check.clipId, check.correct!, check.wrong));
  }
  def.practice.forEach((entry, i) => {
    const clipId = study.clipOf(entry.utterance, ['practice', i, 'utterance']);
    if (clipId) items.push(known('practice', entry.utterance, clipId, entry.correct, entry.wrong));
  });
  return { items, sampler };
}

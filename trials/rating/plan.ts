/**
 * The rating's item config (contract/study-definition.ts RatingItemsConfig, RatingAttentionConfig,
 * KnownScore) turned into item rows: one clip with one system's caption per item, listed or
 * sampled with the pair sampler's machinery (every system rated in ≥ k items, maxPerUtterance),
 * then attention checks and practice trials with the score they must get. A row fills the a side
 * only: system_a = the rated system ('attention'/'practice' for those), caption_a = the caption
 * shown (null when the study rates the audio alone and the entry gives none), expected = the score.
 */
import { sampleRatedCaptions, type SamplerSummary } from '../../studies/sampler';
import type { PlanContext, PlannedItem } from '../../studies/build';
import type { StudyDefinitionOf } from '../../contract/study-definition';
import type { KindPlan } from '../../studies/trials';
import { stimulus, type Stimulus } from '../../studies/stimuli';

/** A generated check shows a real caption that states a clearly wrong value for the clip (studies/attention.ts): it must get the lowest score. */
const WRONG_DESCRIPTION_SCORE = 1;

/** A rating item's one stimulus: the clip as the rated system's, with its caption if the study shows one. */
export const ratedStimuli = (clipId: string, system: string, caption: string | null): Stimulus[] => [stimulus('a', 'rated', clipId, system, caption)];

export function planRatingItems(def: StudyDefinitionOf<'rating'>, study: PlanContext): KindPlan {
  const { manifest } = study;
  const shown = (caption: string) => (def.trial.caption ? caption : null);
  const items: PlannedItem[] = [];
  let sampler: SamplerSummary | null = null;
  const rating = (utteranceId: string, clipId: string, system: string, caption: string): PlannedItem => ({
    kind: 'rating', trialKind: 'rating', utteranceId, stimuli: ratedStimuli(clipId, system, shown(caption)), expected: null,
  });

  if (def.items.mode === 'explicit') {
    def.items.list.forEach((entry, i) => {
      const base = ['items', 'list', i];
      const clipId = study.clipOf(entry.utterance, [...base, 'utterance']);
      const caption = study.captionOf(entry.utterance, entry.system, [...base, 'system']);
      if (clipId && caption !== undefined) items.push(rating(entry.utterance, clipId, entry.system, caption));
    });
  }
  // Generated checks are drawn before a sample, so the sample leaves their clips alone (listed items come first).
  const attention = def.attentionChecks;
  const generated = attention?.mode === 'generated' && !study.failed() ? study.generatedChecks(attention, items, 1) : [];
  if (def.items.mode === 'sample') {
    const config = def.items;
    const systems = study.sampledSystems(config);
    if (!study.failed()) {
      const pool = study.samplePool(config.utterances, generated);
      const captions = pool.flatMap((u) => systems.filter((s) => manifest.caption(u.id, s) !== undefined).map((system) => ({ utteranceId: u.id, system, score: null })));
      try {
        const result = sampleRatedCaptions(captions, systems, { count: config.count, minPerSystem: config.minPerSystem, maxPerUtterance: config.maxPerUtterance, seed: def.seed });
        sampler = result.summary;
        for (const s of result.items) items.push(rating(s.utteranceId, manifest.utterance(s.utteranceId)!.clipId!, s.system, manifest.caption(s.utteranceId, s.system)!));
      } catch (error) {
        study.samplingProblem(error);
      }
    }
  }

  const known = (kind: 'attention' | 'practice', utteranceId: string, clipId: string, caption: string | undefined, score: number): PlannedItem => ({
    kind, trialKind: 'rating', utteranceId, stimuli: ratedStimuli(clipId, kind, caption ?? null), expected: String(score),
  });
  const practice: PlannedItem[] = [];
  def.practice.forEach((entry, i) => {
    const clipId = study.clipOf(entry.utterance, ['practice', i, 'utterance']);
    if (clipId) practice.push(known('practice', entry.utterance, clipId, entry.caption, entry.score));
  });
  const checks: PlannedItem[] = [];
  if (attention?.mode === 'explicit') {
    attention.list.forEach((entry, i) => {
      const clipId = study.clipOf(entry.utterance, ['attentionChecks', 'list', i, 'utterance']);
      if (clipId) checks.push(known('attention', entry.utterance, clipId, entry.caption, entry.score));
    });
  } else {
    for (const check of generated) checks.push(known('attention', check.utteranceId, check.clipId, check.wrong, WRONG_DESCRIPTION_SCORE));
  }
  return { items: [...items, ...checks, ...practice], sampler };
}

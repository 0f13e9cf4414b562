/**
 * The describe kind's build (analysis-spec §5.6): one item per clip (the utterance's own clip),
 * listed or sampled from the manifest with the study's seed; practice clips are items of kind
 * `practice`. There are no attention checks (a description has no right answer).
 */
import { keyedRandom } from '../../analysis/random';
import type { PlanContext, PlannedItem } from '../../studies/build';
import type { StudyDefinitionOf } from '../../contract/study-definition';
import type { KindPlan } from '../../studies/trials';
import { stimulus } from '../../studies/stimuli';

export const CLIP_SLOT = 'clip';

export function planDescribeItems(def: StudyDefinitionOf<'describe'>, study: PlanContext): KindPlan {
  const item = (kind: PlannedItem['kind'], utteranceId: string, clipId: string): PlannedItem => ({
    kind, trialKind: 'describe', utteranceId, stimuli: [stimulus(CLIP_SLOT, 'clip', clipId, null, null)], expected: null,
  });
  const listed = (kind: PlannedItem['kind'], entries: readonly { utterance: string }[], path: (string | number)[]) =>
    entries.flatMap((entry, i) => {
      const clipId = study.clipOf(entry.utterance, [...path, i, 'utterance']);
      return clipId ? [item(kind, entry.utterance, clipId)] : [];
    });
  const practice = listed('practice', def.practice, ['practice']);

  let items: PlannedItem[] = [];
  if (def.items.mode === 'explicit') items = listed('describe', def.items.list, ['items', 'list']);
  else if (!study.failed()) {
    const config = def.items;
    const pool = study.samplePool(config.utterances, practice.map((p) => ({ utteranceId: p.utteranceId, clipId: p.stimuli[0].clip! })));
    if (pool.length < config.count) study.problem(['items', 'count'], `${config.count} clips asked for; the utterances drawn from have ${pool.length} with a clip (less practice clips)`);
    items = keyedRandom(def.seed, 'describe items').shuffle(pool).slice(0, config.count).map((u) => item('describe', u.id, study.manifest.utterance(u.id)!.clipId!));
  }
  return { items: [...items, ...practice], sampler: null };
}

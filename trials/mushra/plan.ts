/**
 * The MUSHRA kind's build (ITU-R BS.1534-3, analysis-spec §5.3): each item is one utterance with
 * the hidden reference (slot `reference`: the reference system's rendition), the anchors the study
 * names (slots `anchor35`, `anchor70`: the renditions of `anchor35:<reference>` and
 * `anchor70:<reference>`, made at the renditions import, audio-manifest/anchors.ts) and one stimulus
 * per system (slot `condition-<k>`, role `condition`). The open reference a page also offers is the
 * hidden reference's clip, so it is not a stimulus of its own. The utterances are listed (each must
 * have the reference's, the anchors' and every system's rendition, else a problem at its line) or
 * sampled from those that have them all. Training pages are the same page on other utterances.
 * Every assignment draws a random permutation of the slots (the screen order, recorded as the
 * assignment's slot order).
 */
import { anchorSystem } from '../../audio-manifest/anchors';
import { keyedRandom } from '../../analysis/random';
import type { PlanContext, PlannedItem } from '../../studies/build';
import type { StudyDefinitionOf } from '../../contract/study-definition';
import type { KindPlan } from '../../studies/trials';
import { stimulus, type Stimulus } from '../../studies/stimuli';

export const conditionSlot = (k: number) => `condition-${k + 1}`;

export function planMushraItems(def: StudyDefinitionOf<'mushra'>, study: PlanContext): KindPlan {
  const { manifest } = study;
  const { reference, anchors, systems } = def.trial;
  if (!manifest.renditionSystems.has(reference)) {
    study.problem(['trial', 'reference'], manifest.unknownSystem(reference, true));
    return { items: [], sampler: null };
  }
  systems.forEach((s, i) => {
    if (!manifest.renditionSystems.has(s)) study.problem(['trial', 'systems', i], manifest.unknownSystem(s, true));
  });
  if (study.failed()) return { items: [], sampler: null };

  /** The page's stimuli for an utterance; problems at `path` (listed utterances) or undefined quietly (sampling). */
  const page = (utteranceId: string, path: (string | number)[] | null): Stimulus[] | undefined => {
    const clip = (system: string) => (path ? study.renditionOf(utteranceId, system, path) : (manifest.rendition(utteranceId, system) ?? undefined));
    const ref = clip(reference);
    if (ref === undefined) return undefined;
    const out = [stimulus('reference', 'reference', ref, reference, null)];
    for (const a of anchors) {
      const made = manifest.rendition(utteranceId, anchorSystem(a, reference));
      if (made === null) {
        if (path) study.problem(path, `the rendition of ${utteranceId} by ${reference} has no ${a} anchor; import the renditions again (npm run manifest -- renditions) to make it`);
        return undefined;
      }
      out.push(stimulus(a, a, made, a, null));
    }
    let complete = true;
    systems.forEach((system, k) => {
      const c = clip(system);
      if (c === undefined) complete = false;
      else out.push(stimulus(conditionSlot(k), 'condition', c, system, null));
    });
    return complete ? out : undefined;
  };
  const item = (kind: 'mushra' | 'practice', utteranceId: string, stimuli: Stimulus[]): PlannedItem => ({ kind, trialKind: 'mushra', utteranceId, stimuli, expected: null });

  const items: PlannedItem[] = [];
  if (def.items.mode === 'explicit') {
    def.items.list.forEach((entry, i) => {
      const stimuli = page(entry.utterance, ['items', 'list', i, 'utterance']);
      if (stimuli) items.push(item('mushra', entry.utterance, stimuli));
    });
  } else {
    const config = def.items;
    const pool = study.samplePool(config.utterances, []).filter((u) => page(u.id, null) !== undefined);
    const drawn = keyedRandom(def.seed, 'mushra items').shuffle(pool.map((u) => u.id)).slice(0, config.count).sort();
    if (drawn.length < config.count) {
      study.problem(['items', 'count'], `${config.count} pages need ${config.count} utterances that ${reference} (the reference), its anchors and every system (${systems.join(', ')}) have renditions of; there are ${pool.length}`);
    }
    for (const u of drawn) items.push(item('mushra', u, page(u, null)!));
  }
  def.practice.forEach((entry, i) => {
    const stimuli = page(entry.utterance, ['practice', i, 'utterance']);
    if (stimuli) items.push(item('practice', entry.utterance, stimuli));
  });
  return { items, sampler: null };
}

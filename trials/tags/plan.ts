/**
 * The tags kind's build (analysis-spec §5.5): one item per clip (the utterance's own clip), listed
 * or sampled from the manifest with the study's seed. Each item keeps what the corpus says of the
 * clip for every attribute that names a manifest label (`metadata`), as a stimulus of role
 * `metadata` (text = {attribute: values} as JSON): the export writes metadata.csv from it, as the
 * corpus said when the study was built. It is never served. An attribute whose label none of the
 * study's clips has is refused at validate, naming the labels they have. Attention checks and
 * practice trials are clips whose value of one attribute is certain (expected `attribute=value`).
 */
import { keyedRandom } from '../../analysis/random';
import type { PlanContext, PlannedItem } from '../../studies/build';
import type { StudyDefinitionOf } from '../../contract/study-definition';
import type { KindPlan } from '../../studies/trials';
import { stimulus, type Stimulus } from '../../studies/stimuli';
import { knownTagText, type KnownTag, type TagsAttribute } from './contract';
import { tagsAttributes } from './presets';

export const CLIP_SLOT = 'clip';
export const METADATA_ROLE = 'metadata';

/** A label's values as text: a list (ParaSpeechCaps' tags) value by value, anything else as one value. */
function labelValues(label: unknown): string[] {
  if (label === undefined || label === null || label === '') return [];
  return Array.isArray(label) ? label.map(String) : [String(label)];
}

/** The metadata of an utterance for the attributes that name a label: attribute → values. */
function metadataOf(labels: Record<string, unknown>, attributes: readonly TagsAttribute[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const a of attributes) if (a.metadata !== undefined && labelValues(labels[a.metadata]).length > 0) out[a.name] = labelValues(labels[a.metadata]);
  return out;
}

const tagsStimuli = (clipId: string, metadata: Record<string, string[]>): Stimulus[] => [
  stimulus(CLIP_SLOT, 'clip', clipId, null, null),
  ...(Object.keys(metadata).length > 0 ? [stimulus(METADATA_ROLE, METADATA_ROLE, null, null, JSON.stringify(metadata))] : []),
];

export function planTagsItems(def: StudyDefinitionOf<'tags'>, study: PlanContext): KindPlan {
  const { manifest } = study;
  const attributes = tagsAttributes(def.trial);
  const labelsOf = (utteranceId: string) => (manifest.utterance(utteranceId)?.labels ?? {}) as Record<string, unknown>;
  const item = (kind: PlannedItem['kind'], utteranceId: string, clipId: string, expected: string | null): PlannedItem => ({
    kind, trialKind: 'tags', utteranceId, stimuli: tagsStimuli(clipId, metadataOf(labelsOf(utteranceId), attributes)), expected,
  });

  const known = (kind: 'attention' | 'practice', entry: KnownTag, path: (string | number)[]): PlannedItem | null => {
    const attribute = attributes.find((a) => a.name === entry.attribute);
    if (!attribute) {
      study.problem([...path, 'attribute'], `is not an attribute of this study (attributes: ${attributes.map((a) => a.name).join(', ')})`);
      return null;
    }
    if (!attribute.values.includes(entry.value)) {
      study.problem([...path, 'value'], `is not a value of ${attribute.name} (values: ${attribute.values.join(', ')})`);
      return null;
    }
    const clipId = study.clipOf(entry.utterance, [...path, 'utterance']);
    return clipId ? item(kind, entry.utterance, clipId, knownTagText(entry.attribute, entry.value)) : null;
  };
  const checks = (def.attentionChecks?.list ?? []).map((e, i) => known('attention', e, ['attentionChecks', 'list', i])).filter((x): x is PlannedItem => x !== null);
  const practice = def.practice.map((e, i) => known('practice', e, ['practice', i])).filter((x): x is PlannedItem => x !== null);

  const items: PlannedItem[] = [];
  if (def.items.mode === 'explicit') {
    def.items.list.forEach((entry, i) => {
      const clipId = study.clipOf(entry.utterance, ['items', 'list', i, 'utterance']);
      if (clipId) items.push(item('tags', entry.utterance, clipId, null));
    });
  } else if (!study.failed()) {
    const config = def.items;
    const reserved = [...checks, ...practice].map((c) => ({ utteranceId: c.utteranceId, clipId: c.stimuli[0].clip! }));
    const pool = study.samplePool(config.utterances, reserved);
    if (pool.length < config.count) study.problem(['items', 'count'], `${config.count} clips asked for; the utterances drawn from have ${pool.length} with a clip (less checks and practice clips)`);
    for (const u of keyedRandom(def.seed, 'tags items').shuffle(pool).slice(0, config.count)) {
      items.push(item('tags', u.id, manifest.utterance(u.id)!.clipId!, null));
    }
  }

  // A label the study's clips do not have cannot be compared with: say which labels they have.
  const all = [...items, ...checks];
  def.trial.attributes.forEach((declared, i) => {
    for (const a of tagsAttributes({ attributes: [declared] })) {
      if (a.metadata === undefined || all.length === 0) continue;
      if (all.some((x) => labelValues(labelsOf(x.utteranceId)[a.metadata!]).length > 0)) continue;
      const keys = [...new Set(all.flatMap((x) => Object.keys(labelsOf(x.utteranceId))))].sort();
      const preset = typeof declared === 'string';
      study.problem(preset ? ['trial', 'attributes', i] : ['trial', 'attributes', i, 'metadata'],
        `the study's clips have no label "${a.metadata}" for ${a.name}${preset ? ` (preset ${declared})` : ''}: their labels are ${keys.length > 0 ? keys.join(', ') : 'none'}; name one of them${preset ? ', or declare the attribute without metadata' : ', or leave metadata out'}`);
    }
  });
  return { items: [...items, ...checks, ...practice], sampler: null };
}

/** The metadata an item kept (attribute → values), read from its stimuli. */
export function itemMetadata(stimuli: readonly Stimulus[]): Record<string, string[]> {
  const s = stimuli.find((x) => x.role === METADATA_ROLE);
  return s?.text ? (JSON.parse(s.text) as Record<string, string[]>) : {};
}

/**
 * A seeded simulated tags respondent and study (analysis-spec §5.5), for tests and `npm run
 * simulate -- --kind tags`. Each careful listener has a confusion of their own: they give a single
 * attribute's true value with their accuracy (drawn per listener from [0.55, 0.9]), and otherwise
 * the value next to it in the list (a neighbour: calm for neutral, …) half of the time, else any
 * other value; in a multi attribute they tick each true value with probability 0.8 and each other
 * one with 0.08. A careless listener answers uniformly: any single value, each multi value with
 * probability ½. On an attention check (a clip whose single value is certain) a careful listener
 * is right with probability 0.95. The corpus's metadata is the truth.
 */
import { keyedRandom, type Random } from '../../analysis/random';
import type { BundleItem, BundleListener, BundleToWrite } from '../../analysis/bundle';
import type { StudySettings } from '../../analysis/study-settings';
import { knownTagText, type DeclaredAttribute } from './attributes';
import { TAG_PRESETS } from './presets';
import { ANNOTATION_COLUMNS, METADATA_COLUMNS } from './report';

export interface TagsListener {
  careless: boolean;
  /** P(true value) for a single attribute */
  accuracy: number;
}

/** The listener's value of a single attribute whose true value is values[truth]. */
export function singleAnswer(random: Random, listener: TagsListener, values: readonly string[], truth: number): string {
  if (listener.careless) return values[Math.floor(random() * values.length)];
  if (random() < listener.accuracy) return values[truth];
  const others = values.filter((_, k) => k !== truth);
  return random() < 0.5 ? values[(truth + 1) % values.length] : others[Math.floor(random() * others.length)];
}

/** The listener's set for a multi attribute whose true set is `truth`. */
export function multiAnswer(random: Random, listener: TagsListener, values: readonly string[], truth: ReadonlySet<string>): string[] {
  return values.filter((v) => random() < (listener.careless ? 0.5 : truth.has(v) ? 0.8 : 0.08));
}

export interface TagsSimulationOptions {
  items: number;
  listeners: number;
  careless: number;
  attention: number;
  answersPerItem: number;
  seed: number;
}

const EMOTION = TAG_PRESETS['ravdess-emotion'][0];
const TIMBRE: DeclaredAttribute = { name: 'timbre', mode: 'multi', values: ['breathy', 'husky', 'nasal', 'shrill', 'deep', 'crisp'], metadata: 'timbre' };

/** A RAVDESS-like study: every clip's emotion (8 values) and timbre tags (a set of 6), with the corpus's labels as metadata. */
export function simulateTags(o: TagsSimulationOptions): BundleToWrite & { truth: { emotion: Record<string, string>; careless: string[] } } {
  const random = keyedRandom(o.seed, 'tags simulation');
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  const emotions = [...EMOTION.values];
  const truthOf = new Map<string, { emotion: number; timbre: Set<string> }>();
  const items: BundleItem[] = [];
  for (let i = 0; i < o.items + o.attention; i++) {
    const attention = i >= o.items;
    const id = `item-${pad(i + 1, 3)}`;
    const emotion = random.int(emotions.length);
    const timbre = new Set(TIMBRE.values.filter(() => random.next() < 0.3));
    truthOf.set(id, { emotion, timbre });
    items.push({ kind: 'tags', item_id: id, utterance_id: `ravdess:sim-${pad(i + 1, 3)}`, system_a: '', system_b: '', attention, expected: attention ? knownTagText('emotion', emotions[emotion]) : null });
  }
  const listeners = Array.from({ length: o.listeners }, (_, j) => ({
    id: `L${pad(j + 1, 2)}`,
    careless: j < o.careless,
    accuracy: 0.55 + 0.35 * random.next(),
  }));
  const rows: { cells: Record<string, string> }[] = [];
  const scored = items.filter((i) => !i.attention);
  // Each scored item gets answersPerItem listeners in turn; every listener meets every check.
  const answering = new Map(listeners.map((l) => [l.id, [] as BundleItem[]]));
  scored.forEach((item, i) => {
    for (let k = 0; k < o.answersPerItem; k++) answering.get(listeners[(i * o.answersPerItem + k) % listeners.length].id)!.push(item);
  });
  for (const l of listeners) {
    const own = keyedRandom(o.seed, 'tags listener', l.id).next;
    for (const item of [...answering.get(l.id)!, ...items.filter((i) => i.attention)]) {
      const truth = truthOf.get(item.item_id)!;
      const emotion = item.attention && !l.careless ? (own() < 0.95 ? emotions[truth.emotion] : emotions[(truth.emotion + 1) % emotions.length]) : singleAnswer(own, l, emotions, truth.emotion);
      rows.push({ cells: { item_id: item.item_id, listener_id: l.id, attribute: 'emotion', value: emotion } });
      const timbre = multiAnswer(own, l, TIMBRE.values, truth.timbre);
      for (const value of timbre.length === 0 ? [''] : timbre) rows.push({ cells: { item_id: item.item_id, listener_id: l.id, attribute: 'timbre', value } });
    }
  }
  const metadata = scored.flatMap((item) => {
    const truth = truthOf.get(item.item_id)!;
    return [{ item_id: item.item_id, attribute: 'emotion', value: emotions[truth.emotion] }, ...[...truth.timbre].map((value) => ({ item_id: item.item_id, attribute: 'timbre', value }))];
  });
  const study: StudySettings = {
    study: 'simulated-tags', exportedAt: '2026-01-01T00:00:00.000Z', minAttention: 0.75, splitThreshold: 0.75, rules: {}, linkParameters: [],
    trial: { kind: 'tags', attributes: ['ravdess-emotion', TIMBRE] },
  };
  const listenerRows: BundleListener[] = listeners.map((l) => ({ listener_id: l.id, started_at: '2026-01-01T00:00:00.000Z', completed_at: '2026-01-01T00:30:00.000Z', screening: null }));
  return {
    items, votes: [], judgeScores: [], listeners: listenerRows, study,
    answerFiles: [{ file: 'annotations.csv', columns: ANNOTATION_COLUMNS, rows }],
    factFiles: [{ file: 'metadata.csv', columns: METADATA_COLUMNS, rows: metadata }],
    truth: { emotion: Object.fromEntries(scored.map((i) => [i.item_id, emotions[truthOf.get(i.item_id)!.emotion]])), careless: listeners.filter((l) => l.careless).map((l) => l.id) },
  };
}

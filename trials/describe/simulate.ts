/**
 * The describe kind's seeded simulated respondent (analysis-spec §5.6): a careful listener writes
 * a description built from the clip's true delivery (a few style phrases, so its length varies),
 * a careless one the shortest text the study takes. `simulateDescribe` draws a study of MetaSet
 * demo-like utterances, each answered by `answersPerItem` listeners in turn.
 */
import { keyedRandom, type Random } from '../../analysis/random';
import type { BundleItem, BundleListener, BundleToWrite } from '../../analysis/bundle';
import type { StudySettings } from '../../analysis/study-settings';
import { TEXT_COLUMNS } from './report';

const PHRASES = ['a calm voice', 'speaking slowly', 'a fast, excited delivery', 'low in pitch', 'high and bright', 'a little husky', 'warm and friendly', 'flat and tired', 'clearly angry', 'softly, almost whispered'];

export interface DescribeListener {
  id: string;
  careless: boolean;
}

/** One listener's text on a clip whose delivery is the phrases `truth` (indices into PHRASES). */
export function describeAnswer(random: Random, listener: DescribeListener, truth: readonly number[], minLength: number): string {
  if (listener.careless) return 'ok '.repeat(Math.ceil(minLength / 3)).trim().padEnd(minLength, '.');
  const picked = truth.filter(() => random() < 0.8);
  return `The speaker sounds like ${(picked.length > 0 ? picked : truth).map((p) => PHRASES[p]).join(', ')}.`;
}

export interface DescribeSimulationOptions {
  items: number;
  listeners: number;
  careless: number;
  answersPerItem: number;
  seed: number;
}

export function simulateDescribe(o: DescribeSimulationOptions): BundleToWrite & { truth: { phrases: Record<string, string[]>; careless: string[] } } {
  const random = keyedRandom(o.seed, 'describe simulation');
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  const minLength = 20;
  const truthOf = new Map<string, number[]>();
  const items: BundleItem[] = Array.from({ length: o.items }, (_, i) => {
    const id = `item-${pad(i + 1, 3)}`;
    truthOf.set(id, [random.int(PHRASES.length), random.int(PHRASES.length)].filter((p, k, all) => all.indexOf(p) === k));
    return { kind: 'describe', item_id: id, utterance_id: `metaset:sim/sim-${pad(i + 1, 3)}.wav`, system_a: '', system_b: '', attention: false, expected: null };
  });
  const listeners: DescribeListener[] = Array.from({ length: o.listeners }, (_, j) => ({ id: `L${pad(j + 1, 2)}`, careless: j < o.careless }));
  const rows: { cells: Record<string, string> }[] = [];
  items.forEach((item, i) => {
    for (let k = 0; k < Math.min(o.answersPerItem, listeners.length); k++) {
      const l = listeners[(i * o.answersPerItem + k) % listeners.length];
      rows.push({ cells: { item_id: item.item_id, listener_id: l.id, text: describeAnswer(keyedRandom(o.seed, 'describe listener', l.id, item.item_id).next, l, truthOf.get(item.item_id)!, minLength) } });
    }
  });
  const study: StudySettings = {
    study: 'simulated-describe', exportedAt: '2026-01-01T00:00:00.000Z', minAttention: 0.75, splitThreshold: 0.75, rules: {}, linkParameters: [],
    trial: { kind: 'describe', instruction: 'Describe how the speaker says this.', minLength, system: 'human' },
  };
  const listenerRows: BundleListener[] = listeners.map((l) => ({ listener_id: l.id, started_at: '2026-01-01T00:00:00.000Z', completed_at: '2026-01-01T00:30:00.000Z', screening: null }));
  return {
    items, votes: [], judgeScores: [], listeners: listenerRows, study,
    answerFiles: [{ file: 'texts.csv', columns: TEXT_COLUMNS, rows }],
    truth: { phrases: Object.fromEntries([...truthOf].map(([id, p]) => [id, p.map((x) => PHRASES[x])])), careless: listeners.filter((l) => l.careless).map((l) => l.id) },
  };
}

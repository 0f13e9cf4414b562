/**
 * ABX in the analysis (analysis-spec §5.2): abx.csv read and checked against items.csv, an
 * attention answer right when X was named (its X is the degraded copy), and the section
 * `abx.pairs`: per unordered system pair, over retained listeners' answers on scored items, the
 * proportion correct with its one-sided exact binomial p and d′ under both of Macmillan &
 * Creelman's models (analysis/stats/abx-d-prime.ts).
 */
import { BundleError } from '../../analysis/bundle-error';
import type { Bundle, BundleItem } from '../../analysis/bundle';
import type { AnalysisKind, KindAnswer } from '../../analysis/kinds/types';
import { binomialUpperTail } from '../../analysis/stats/binomial-upper-tail';
import { abxSensitivity, type AbxSensitivity } from '../../analysis/stats/abx-d-prime';

/** The columns of abx.csv (analysis-spec §5.2), the export's (trials/abx/server.ts) and the reader's. */
export const ABX_COLUMNS = ['item_id', 'listener_id', 'system_a', 'system_b', 'x', 'chosen'] as const;

type Slot = 'a' | 'b';
export interface AbxRow {
  x: Slot;
  chosen: Slot;
}

export interface AbxPair extends AbxSensitivity {
  /** the pair, system_a < system_b in ordinal string order; H and F are about system_a */
  system_a: string;
  system_b: string;
  n: number;
  correct: number;
  p_correct: number | null;
  /** one-sided exact binomial P(K ≥ correct | n, ½) */
  p_value: number | null;
}

export interface AbxSection {
  /** scored answers of retained listeners */
  answers: number;
  pairs: AbxPair[];
}

const slot = (v: string): v is Slot => v === 'a' || v === 'b';

export const abxAnalysis: AnalysisKind<AbxRow, AbxSection> = {
  kind: 'abx',
  file: 'abx.csv',
  columns: ABX_COLUMNS,
  item(cells, line) {
    if (cells.system_a === '' || cells.system_b === '') return new BundleError('items.csv', line, cells.system_a === '' ? '3 (system_a)' : '4 (system_b)', 'an ABX item names both systems', 'abx_item');
    if (cells.system_a === cells.system_b) return new BundleError('items.csv', line, '4 (system_b)', 'an ABX item compares two different systems', 'abx_item');
    const attention = cells.attention === '1';
    if (attention ? !slot(cells.expected) : cells.expected !== '') {
      return new BundleError('items.csv', line, '6 (expected)', attention ? 'an ABX attention item expects a or b (the side X is)' : 'must be empty for an item that is not an attention check', 'abx_item');
    }
    return { item_id: cells.item_id, utterance_id: cells.utterance_id, system_a: cells.system_a, system_b: cells.system_b, attention, expected: attention ? (cells.expected as Slot) : null };
  },
  row(cells, item, line) {
    if (cells.system_a !== item.system_a || cells.system_b !== item.system_b) {
      return new BundleError('abx.csv', line, cells.system_a !== item.system_a ? 'system_a' : 'system_b', `must be the item's systems (${item.system_a}, ${item.system_b}) as items.csv has them`, 'abx_systems');
    }
    for (const column of ['x', 'chosen'] as const) if (!slot(cells[column])) return new BundleError('abx.csv', line, column, 'must be a or b', 'abx_value');
    return { x: cells.x as Slot, chosen: cells.chosen as Slot };
  },
  part: () => '',
  correct: (answer, item) => answer.rows[0].chosen === item.expected,
  section: 'abx',
  report: (bundle, answers, context) => abxPairs(bundle, answers, context.retained),
  csv: (section) => ({
    'abx_pairs.csv': {
      header: ['system_a', 'system_b', 'n', 'correct', 'p_correct', 'p_value', 'hit_rate', 'false_alarm_rate', 'p_c_unbiased', 'd_prime_independent', 'd_prime_differencing'],
      rows: section.pairs.map((p) => [p.system_a, p.system_b, p.n, p.correct, p.p_correct, p.p_value, p.hit_rate, p.false_alarm_rate, p.p_c_unbiased, p.d_prime_independent, p.d_prime_differencing]),
    },
  }),
};

/** The pair's name (lesser system first) and whether the item's a is the pair's b. */
const pairOf = (item: BundleItem) => (item.system_a < item.system_b ? { a: item.system_a, b: item.system_b, swapped: false } : { a: item.system_b, b: item.system_a, swapped: true });

export function abxPairs(bundle: Bundle, answers: readonly KindAnswer<AbxRow>[], retained: Uint8Array): AbxSection {
  const tallies = new Map<string, { a: string; b: string; n: number; correct: number; hits: number; mA: number; falseA: number; mB: number }>();
  const tally = (item: BundleItem) => {
    const { a, b } = pairOf(item);
    const key = `${a}\u0000${b}`;
    let t = tallies.get(key);
    if (!t) tallies.set(key, (t = { a, b, n: 0, correct: 0, hits: 0, mA: 0, falseA: 0, mB: 0 }));
    return t;
  };
  // Every pair a scored item compares is reported, even one nobody answered.
  for (const item of bundle.items) if (item.kind === 'abx' && !item.attention) tally(item);
  let count = 0;
  for (const answer of answers) {
    const item = bundle.items[answer.item];
    if (item.attention || retained[answer.listener] !== 1) continue;
    count++;
    const t = tally(item);
    const { swapped } = pairOf(item);
    const flip = (s: Slot): Slot => (swapped ? (s === 'a' ? 'b' : 'a') : s);
    const x = flip(answer.rows[0].x);
    const chosen = flip(answer.rows[0].chosen);
    t.n++;
    if (chosen === x) t.correct++;
    if (x === 'a') {
      t.mA++;
      if (chosen === 'a') t.hits++;
    } else {
      t.mB++;
      if (chosen === 'a') t.falseA++;
    }
  }
  const pairs = [...tallies.values()]
    .sort((p, q) => (p.a < q.a ? -1 : p.a > q.a ? 1 : p.b < q.b ? -1 : p.b > q.b ? 1 : 0))
    .map((t): AbxPair => ({
      system_a: t.a,
      system_b: t.b,
      n: t.n,
      correct: t.correct,
      p_correct: t.n === 0 ? null : t.correct / t.n,
      p_value: binomialUpperTail(t.correct, t.n),
      ...abxSensitivity(t.hits, t.mA, t.falseA, t.mB),
    }));
  return { answers: count, pairs };
}

/**
 * CCR/CMOS in the analysis (analysis-spec §5.4): ccr.csv read and checked against items.csv
 * (system_a = the processed system, system_b = the reference), the sign correction checked on every
 * row, an attention answer right when its score has the sign of `expected` (−1: the degraded copy
 * rated worse), and the section `ccr`: per processed system the CMOS (mean score "processed
 * relative to reference") with its t interval and ranks, and the order effect.
 */
import { BundleError } from '../../analysis/bundle-error';
import type { Bundle } from '../../analysis/bundle';
import type { AnalysisKind, KindAnswer } from '../../analysis/kinds/types';
import { meanOpinionScore } from '../../analysis/stats/mean-opinion-score';
import { ranksByEstimate, ranksFromIntervals } from '../../analysis/stats/rank-ci';
import { orderEffect, type OrderEffect } from '../../analysis/stats/order-effect';

/** The columns of ccr.csv (analysis-spec §5.4), the export's (trials/ccr/server.ts) and the reader's. */
export const CCR_COLUMNS = ['item_id', 'listener_id', 'system', 'reference_system', 'first', 'raw', 'score'] as const;

type First = 'reference' | 'processed';
/** The score "processed relative to reference": the answer as given with the reference first, else its negation. */
export const signCorrected = (first: First, raw: number): number => (first === 'reference' || raw === 0 ? raw : -raw);

export interface CcrRow {
  first: First;
  raw: number;
  score: number;
}

export interface CcrSystem {
  system: string;
  reference_system: string;
  n: number;
  cmos: number | null;
  sd: number | null;
  ci95: [number, number] | null;
  rank: number | null;
  rank_ci: number | null;
}

export interface CcrSection extends OrderEffect {
  answers: number;
  systems: CcrSystem[];
}

const SCORE = /^-?[0-3]$/;

export const ccrAnalysis: AnalysisKind<CcrRow, CcrSection> = {
  kind: 'ccr',
  file: 'ccr.csv',
  columns: CCR_COLUMNS,
  item(cells, line) {
    if (cells.system_a === '' || cells.system_b === '') return new BundleError('items.csv', line, cells.system_a === '' ? '3 (system_a)' : '4 (system_b)', 'a CCR item names its processed system (system_a) and its reference (system_b)', 'ccr_item');
    const attention = cells.attention === '1';
    if (attention ? !SCORE.test(cells.expected) || cells.expected === '0' : cells.expected !== '') {
      return new BundleError('items.csv', line, '6 (expected)', attention ? 'a CCR attention item expects a non-zero score (−3 … 3): its sign is the right answer' : 'must be empty for an item that is not an attention check', 'ccr_item');
    }
    return { item_id: cells.item_id, utterance_id: cells.utterance_id, system_a: cells.system_a, system_b: cells.system_b, attention, expected: attention ? Number(cells.expected) : null };
  },
  row(cells, item, line) {
    if (cells.system !== item.system_a) return new BundleError('ccr.csv', line, 'system', `must be the item's processed system (${item.system_a}, items.csv system_a)`, 'ccr_systems');
    if (cells.reference_system !== item.system_b) return new BundleError('ccr.csv', line, 'reference_system', `must be the item's reference (${item.system_b}, items.csv system_b)`, 'ccr_systems');
    if (cells.first !== 'reference' && cells.first !== 'processed') return new BundleError('ccr.csv', line, 'first', 'must be reference or processed', 'ccr_value');
    for (const column of ['raw', 'score'] as const) if (!SCORE.test(cells[column])) return new BundleError('ccr.csv', line, column, 'must be an integer from -3 to 3', 'ccr_value');
    const raw = Number(cells.raw);
    const score = Number(cells.score);
    if (score !== signCorrected(cells.first, raw)) return new BundleError('ccr.csv', line, 'score', `must be ${signCorrected(cells.first, raw)}: raw with the reference first, −raw with the processed first`, 'ccr_sign');
    return { first: cells.first, raw, score };
  },
  part: () => '',
  correct: (answer, item) => Math.sign(answer.rows[0].score) === Math.sign(Number(item.expected)),
  section: 'ccr',
  paperCitations: ['itu-p800'],
  report: (bundle, answers, context) => ccrSystems(bundle, answers, context.retained),
  csv: (section) => ({
    'ccr_systems.csv': {
      header: ['system', 'reference_system', 'n', 'cmos', 'sd', 'ci95_low', 'ci95_high', 'rank', 'rank_ci'],
      rows: section.systems.map((s) => [s.system, s.reference_system, s.n, s.cmos, s.sd, s.ci95?.[0] ?? null, s.ci95?.[1] ?? null, s.rank, s.rank_ci]),
    },
    'ccr_order.csv': {
      header: ['order_effect', 'reference_first_n', 'reference_first_mean', 'processed_first_n', 'processed_first_mean'],
      rows: [[section.order_effect, section.reference_first.n, section.reference_first.mean, section.processed_first.n, section.processed_first.mean]],
    },
  }),
};

export function ccrSystems(bundle: Bundle, answers: readonly KindAnswer<CcrRow>[], retained: Uint8Array): CcrSection {
  const scores = new Map<string, { reference: string; scores: number[] }>();
  // Every processed system a scored item has is reported, even one nobody rated.
  for (const item of bundle.items) if (item.kind === 'ccr' && !item.attention && !scores.has(item.system_a)) scores.set(item.system_a, { reference: item.system_b, scores: [] });
  const counted: CcrRow[] = [];
  for (const answer of answers) {
    const item = bundle.items[answer.item];
    if (item.attention || retained[answer.listener] !== 1) continue;
    counted.push(answer.rows[0]);
    scores.get(item.system_a)!.scores.push(answer.rows[0].score);
  }
  const rows = [...scores.entries()].map(([system, s]) => {
    const m = meanOpinionScore(s.scores);
    return { system, reference_system: s.reference, n: s.scores.length, cmos: m?.mos ?? null, sd: m?.sd ?? null, ci95: m?.ci95 ?? null };
  });
  const rated = rows.filter((r) => r.cmos !== null);
  const rank = ranksByEstimate(rated.map((r) => r.cmos!));
  const rankCi = ranksFromIntervals(rated.map((r) => r.ci95));
  const ranked = new Map(rated.map((r, i) => [r.system, { rank: rank[i], rank_ci: rankCi[i] }]));
  const systems = rows
    .map((r): CcrSystem => ({ ...r, rank: ranked.get(r.system)?.rank ?? null, rank_ci: ranked.get(r.system)?.rank_ci ?? null }))
    .sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity) || (a.system < b.system ? -1 : 1));
  return { answers: counted.length, systems, ...orderEffect(counted) };
}

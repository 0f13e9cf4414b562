/**
 * MUSHRA in the analysis (ITU-R BS.1534-3, analysis-spec §5.3): mushra.csv read and checked against
 * items.csv (system_a = the reference system), the post-screening rule `mushra` (BS.1534-3 §4.1.2,
 * on by default; study.json `trial.excludeMushraScreening: false` turns it off) and the section
 * `mushra`: per stimulus system the mean with its t interval, the box plot's figures and, for the
 * systems under test, ranks.
 */
import { BundleError } from '../../analysis/bundle-error';
import type { Bundle } from '../../analysis/bundle';
import type { ExclusionRule } from '../../analysis/exclusion';
import type { AnalysisKind, KindAnswer } from '../../analysis/kinds/types';
import type { StudySettings } from '../../analysis/study-settings';
import { meanOpinionScore } from '../../analysis/stats/mean-opinion-score';
import { ranksByEstimate, ranksFromIntervals } from '../../analysis/stats/rank-ci';
import { scoreDistribution } from '../../analysis/stats/score-distribution';

/** The columns of mushra.csv (analysis-spec §5.3), the export's (trials/mushra/server.ts) and the reader's. */
export const MUSHRA_COLUMNS = ['item_id', 'listener_id', 'system', 'role', 'score'] as const;

export const MUSHRA_ROLES = ['reference', 'anchor35', 'anchor70', 'condition'] as const;
export type MushraRole = (typeof MUSHRA_ROLES)[number];

/** BS.1534-3 §4.1.2's thresholds: a reference below 90, an anchor70 above 90, on more than 15 % of items; an item exempt when more than 25 % of listeners gave its anchor70 above 90. */
export const SCREENING = { reference: 90, anchor70: 90, share: 0.15, exempt: 0.25 } as const;

export interface MushraRow {
  system: string;
  role: MushraRole;
  score: number;
}

export interface MushraScreened {
  listener_id: string;
  /** share of the listener's items with the hidden reference scored below 90 */
  reference_below_90: number | null;
  /** share of the listener's non-exempt items with anchor70 scored above 90 (null: none of them has one) */
  anchor70_above_90: number | null;
}

export interface MushraSystem {
  system: string;
  role: MushraRole;
  n: number;
  mean: number | null;
  sd: number | null;
  ci95: [number, number] | null;
  median: number | null;
  iqr: [number, number] | null;
  /** Tukey's whiskers: the lowest and highest score within 1.5 IQR of the quartiles */
  whiskers: [number, number] | null;
  rank: number | null;
  rank_ci: number | null;
}

export interface MushraSection {
  items: number;
  listeners: number;
  screening: { applied: boolean; excluded: MushraScreened[]; exempt_items: string[] };
  systems: MushraSystem[];
}

const SCORE = /^(100|[1-9]?[0-9])$/;
const isRole = (s: string): s is MushraRole => (MUSHRA_ROLES as readonly string[]).includes(s);

/** Whether the study screens (the default) or has turned the rule off. */
const screens = (study: StudySettings | null) => study?.trial?.excludeMushraScreening !== false;

/**
 * BS.1534-3 §4.1.2 over every listener's scored (non-attention) answers: the exempt items (more than
 * 25 % of their listeners scored anchor70 above 90) and each listener's two fractions.
 */
export function mushraScreening(bundle: Bundle, answers: readonly KindAnswer<MushraRow>[]): { exempt: Set<string>; listeners: Map<string, MushraScreened> } {
  const scored = answers.filter((a) => !bundle.items[a.item].attention);
  const anchorHigh = new Map<number, { n: number; high: number }>();
  for (const a of scored) {
    const anchor = a.rows.find((r) => r.role === 'anchor70');
    if (!anchor) continue;
    const c = anchorHigh.get(a.item) ?? { n: 0, high: 0 };
    c.n++;
    if (anchor.score > SCREENING.anchor70) c.high++;
    anchorHigh.set(a.item, c);
  }
  const exemptIndex = new Set([...anchorHigh].filter(([, c]) => c.high > SCREENING.exempt * c.n).map(([i]) => i));
  const per = new Map<string, { items: number; low: number; anchored: number; high: number }>();
  for (const a of scored) {
    const id = bundle.listeners[a.listener];
    const c = per.get(id) ?? { items: 0, low: 0, anchored: 0, high: 0 };
    const reference = a.rows.find((r) => r.role === 'reference');
    if (reference) {
      c.items++;
      if (reference.score < SCREENING.reference) c.low++;
    }
    const anchor = a.rows.find((r) => r.role === 'anchor70');
    if (anchor && !exemptIndex.has(a.item)) {
      c.anchored++;
      if (anchor.score > SCREENING.anchor70) c.high++;
    }
    per.set(id, c);
  }
  const listeners = new Map([...per].map(([id, c]) => [id, {
    listener_id: id,
    reference_below_90: c.items === 0 ? null : c.low / c.items,
    anchor70_above_90: c.anchored === 0 ? null : c.high / c.anchored,
  }]));
  return { exempt: new Set([...exemptIndex].map((i) => bundle.items[i].item_id)), listeners };
}

/** Whether BS.1534-3's post-screening excludes the listener: either fraction above 15 %. */
export const screenedOut = (s: MushraScreened) => (s.reference_below_90 ?? 0) > SCREENING.share || (s.anchor70_above_90 ?? 0) > SCREENING.share;

/** Tukey's whiskers of sorted scores: the extremes within [q1 − 1.5·IQR, q3 + 1.5·IQR]. */
function whiskers(sorted: readonly number[], [q1, q3]: [number, number]): [number, number] {
  const lo = q1 - 1.5 * (q3 - q1);
  const hi = q3 + 1.5 * (q3 - q1);
  return [sorted.find((x) => x >= lo)!, [...sorted].reverse().find((x) => x <= hi)!];
}

export function mushraSection(bundle: Bundle, answers: readonly KindAnswer<MushraRow>[], retained: Uint8Array): MushraSection {
  const scoredItems = bundle.items.filter((i) => i.kind === 'mushra' && !i.attention);
  const bySystem = new Map<string, { system: string; role: MushraRole; scores: number[] }>();
  // Every stimulus of a scored item is listed, even one nobody rated (from stimuli.csv when it is there).
  const ids = new Set(scoredItems.map((i) => i.item_id));
  const key = (role: MushraRole, system: string) => `${role}\0${system}`;
  const add = (role: MushraRole, system: string) => {
    if (!bySystem.has(key(role, system))) bySystem.set(key(role, system), { system, role, scores: [] });
    return bySystem.get(key(role, system))!;
  };
  for (const s of bundle.stimuli ?? []) if (ids.has(s.item_id) && isRole(s.role)) add(s.role, s.system);
  const listeners = new Set<number>();
  for (const a of answers) {
    if (bundle.items[a.item].attention || retained[a.listener] !== 1) continue;
    listeners.add(a.listener);
    for (const r of a.rows) add(r.role, r.system).scores.push(r.score);
  }
  const rows = [...bySystem.values()].map((s) => {
    const m = meanOpinionScore(s.scores);
    const d = scoreDistribution(s.scores, [0, 100]);
    const sorted = [...s.scores].sort((x, y) => x - y);
    return { system: s.system, role: s.role, n: s.scores.length, mean: m?.mos ?? null, sd: m?.sd ?? null, ci95: m?.ci95 ?? null, median: d.median, iqr: d.iqr, whiskers: d.iqr ? whiskers(sorted, d.iqr) : null };
  });
  const ranked = rows.filter((r) => r.role === 'condition' && r.mean !== null);
  const rank = ranksByEstimate(ranked.map((r) => r.mean!));
  const rankCi = ranksFromIntervals(ranked.map((r) => r.ci95));
  const ranks = new Map(ranked.map((r, i) => [r.system, { rank: rank[i], rank_ci: rankCi[i] }]));
  const systems = rows
    .map((r): MushraSystem => ({ ...r, rank: r.role === 'condition' ? (ranks.get(r.system)?.rank ?? null) : null, rank_ci: r.role === 'condition' ? (ranks.get(r.system)?.rank_ci ?? null) : null }))
    .sort((a, b) => (b.mean ?? -Infinity) - (a.mean ?? -Infinity) || (a.system < b.system ? -1 : 1));
  const screening = mushraScreening(bundle, answers);
  const applied = screens(bundle.study);
  return {
    items: scoredItems.length,
    listeners: listeners.size,
    screening: { applied, excluded: applied ? [...screening.listeners.values()].filter(screenedOut) : [], exempt_items: [...screening.exempt].sort() },
    systems,
  };
}

export const mushraAnalysis: AnalysisKind<MushraRow, MushraSection> = {
  kind: 'mushra',
  file: 'mushra.csv',
  columns: MUSHRA_COLUMNS,
  item(cells, line) {
    if (cells.system_a === '') return new BundleError('items.csv', line, '3 (system_a)', 'a MUSHRA item names its reference system (system_a)', 'mushra_item');
    if (cells.attention === '1' || cells.expected !== '') {
      return new BundleError('items.csv', line, cells.attention === '1' ? '5 (attention)' : '6 (expected)', 'a MUSHRA item has no attention check (BS.1534-3 screens listeners afterwards, rule mushra): attention 0, expected empty', 'mushra_item');
    }
    return { item_id: cells.item_id, utterance_id: cells.utterance_id, system_a: cells.system_a, system_b: cells.system_b, attention: false, expected: null };
  },
  row(cells, item, line) {
    if (!isRole(cells.role)) return new BundleError('mushra.csv', line, 'role', `must be one of ${MUSHRA_ROLES.join(', ')}`, 'mushra_value');
    if (cells.role === 'reference' && cells.system !== item.system_a) return new BundleError('mushra.csv', line, 'system', `must be the item's reference (${item.system_a}, items.csv system_a) for role reference`, 'mushra_systems');
    if ((cells.role === 'anchor35' || cells.role === 'anchor70') && cells.system !== cells.role) return new BundleError('mushra.csv', line, 'system', `must be ${cells.role} for role ${cells.role}`, 'mushra_systems');
    if (cells.system === '') return new BundleError('mushra.csv', line, 'system', 'must name the system', 'mushra_systems');
    if (!SCORE.test(cells.score)) return new BundleError('mushra.csv', line, 'score', 'must be an integer from 0 to 100', 'mushra_value');
    return { system: cells.system, role: cells.role, score: Number(cells.score) };
  },
  part: (row) => `${row.role}\0${row.system}`,
  correct: () => false,
  rules(bundle, answers, study): ExclusionRule[] {
    if (!screens(study)) return [];
    const { listeners } = mushraScreening(bundle, answers);
    return [{
      reason: 'mushra',
      evaluate(id) {
        const s = listeners.get(id);
        if (!s) return { outcome: 'not_run' };
        return screenedOut(s) ? { outcome: 'fail', detail: { reference_below_90: s.reference_below_90, anchor70_above_90: s.anchor70_above_90 } } : { outcome: 'pass' };
      },
    }];
  },
  describeRules: (study) => (screens(study)
    ? [{ reason: 'mushra', description: 'BS.1534-3 post-screening: hidden reference scored ≥ 90 on at least 85 % of items, anchor70 ≤ 90 on at least 85 % of non-exempt items' }]
    : []),
  section: 'mushra',
  report: (bundle, answers, context) => mushraSection(bundle, answers, context.retained),
  csv: (section) => ({
    'mushra_systems.csv': {
      header: ['system', 'role', 'n', 'mean', 'sd', 'ci95_low', 'ci95_high', 'median', 'q1', 'q3', 'whisker_low', 'whisker_high', 'rank', 'rank_ci'],
      rows: section.systems.map((s) => [s.system, s.role, s.n, s.mean, s.sd, s.ci95?.[0] ?? null, s.ci95?.[1] ?? null, s.median, s.iqr?.[0] ?? null, s.iqr?.[1] ?? null, s.whiskers?.[0] ?? null, s.whiskers?.[1] ?? null, s.rank, s.rank_ci]),
    },
    'mushra_screening.csv': {
      header: ['listener_id', 'reference_below_90', 'anchor70_above_90'],
      rows: section.screening.excluded.map((e) => [e.listener_id, e.reference_below_90, e.anchor70_above_90]),
    },
  }),
};

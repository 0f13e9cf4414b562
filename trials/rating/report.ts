import { isRatingItem, type Bundle } from '../../analysis/bundle';
import { clusterBootstrapMeans } from '../../analysis/stats/cluster-bootstrap-means';
import { krippendorffAlpha } from '../../analysis/stats/krippendorff-alpha-metric';
import { listenerCorrelations, type ListenerCorrelation } from '../../analysis/stats/listener-correlation';
import { meanOpinionScore } from '../../analysis/stats/mean-opinion-score';
import { ranksByEstimate, ranksFromIntervals } from '../../analysis/stats/rank-ci';
import { scoreDistribution } from '../../analysis/stats/score-distribution';
import type { Interval } from '../../analysis/report';

/**
 * The `ratings` section of the report (analysis-spec §4): MOS per system with the t-interval and,
 * when asked, the listener-bootstrap interval; rank and rank_ci on the t-intervals; Krippendorff's
 * α (interval, ordinal) over the retained listeners; and each listener's correlation with the
 * rest of the panel, which also feeds the `listener_correlation` exclusion rule. Attention items
 * take no part in any of these; their answers count towards the attention score. Beside them, the
 * per-clip table (each rated item's MOS with its t-interval) and the spread of each system's
 * ratings over the scale (docs/reports.md).
 */

export interface RatedSystem {
  system: string;
  n: number;
  mos: number;
  sd: number | null;
  ci95: Interval | null;
  ci95_bootstrap?: Interval | null;
  rank: number;
  rank_ci: number | null;
}

export interface RatingsReport {
  /** the study's scale when the bundle was read with it, else the lowest and highest score given */
  scale: Interval | null;
  /** ratings of retained listeners on non-attention items */
  votes: number;
  /** retained listeners with at least one such rating */
  listeners: number;
  systems: RatedSystem[];
  reliability: { krippendorff_alpha_interval: number | null; krippendorff_alpha_ordinal: number | null };
  /** every listener who rated, excluded ones included (the figure the exclusion rule reads) */
  listener_correlation: Array<{ listener_id: string } & ListenerCorrelation>;
  bootstrap?: { resamples: number; seed: number; resampled: 'listeners' };
  /** every non-attention rating item (clip) with the MOS of its retained ratings, in items.csv order */
  items: RatedClip[];
  /** per system, in the order of `systems`: how often each scale point was given, median and quartiles */
  spread: SystemSpread[];
}

/** One rated clip (a rating item): the same summary as a system's, over the item's ratings. */
export interface RatedClip {
  item_id: string;
  utterance_id: string;
  system: string;
  n: number;
  /** null without ratings */
  mos: number | null;
  sd: number | null;
  ci95: Interval | null;
}

export interface SystemSpread {
  system: string;
  n: number;
  /** counts[k] = ratings with score scale[0] + k */
  counts: number[];
  median: number | null;
  /** [first quartile, third quartile], R type 7 */
  iqr: Interval | null;
}

/** Ratings on non-attention rating items, as parallel arrays (indices into the bundle's arrays). */
function ordinaryRatings(bundle: Bundle, keep: (listener: number) => boolean) {
  const r = bundle.ratings;
  const item: number[] = [];
  const listener: number[] = [];
  const score: number[] = [];
  if (r) for (let x = 0; x < r.length; x++) {
    if (bundle.items[r.item[x]].attention || !keep(r.listener[x])) continue;
    item.push(r.item[x]);
    listener.push(r.listener[x]);
    score.push(r.score[x]);
  }
  return { item, listener, score };
}

/**
 * Each listener's Pearson r with the mean of the other listeners in the panel on the same items,
 * starting from all listeners, by iterative leave-out when the rule's threshold `min` is given
 * (see listener-correlation.ts), keyed by listener id; listeners without ratings are absent, so
 * the exclusion rule reports them as not run.
 */
export function ratingListenerCorrelations(bundle: Bundle, min: number | null = null): Map<string, ListenerCorrelation> {
  const { item, listener, score } = ordinaryRatings(bundle, () => true);
  const correlations = listenerCorrelations(item, listener, score, bundle.listeners.length, min);
  const rated = new Set(listener);
  return new Map(bundle.listeners.flatMap((id, l) => (rated.has(l) ? [[id, correlations[l]] as const] : [])));
}

/** Adds rating attention answers (correct when score = expected) to per-listener tallies. */
export function countRatingAttention(bundle: Bundle, answered: Int32Array, correct: Int32Array): void {
  const r = bundle.ratings;
  if (!r) return;
  for (let x = 0; x < r.length; x++) {
    const item = bundle.items[r.item[x]];
    if (!item.attention) continue;
    answered[r.listener[x]]++;
    if (r.score[x] === item.expected) correct[r.listener[x]]++;
  }
}

/** `correlations`: the ones the correlation rule read (with its threshold), else one round without. */
export function ratingsReport(
  bundle: Bundle,
  retained: ArrayLike<number>,
  bootstrap: { n: number; seed: number } | null,
  correlations: ReadonlyMap<string, ListenerCorrelation> = ratingListenerCorrelations(bundle),
): RatingsReport {
  const all = bundle.ratings!;
  let scale = all.scale;
  if (!scale && all.length > 0) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let x = 0; x < all.length; x++) {
      lo = Math.min(lo, all.score[x]);
      hi = Math.max(hi, all.score[x]);
    }
    scale = [lo, hi];
  }

  const used = ordinaryRatings(bundle, (l) => retained[l] === 1);
  const systems: string[] = [];
  const systemIndex = new Map<string, number>();
  const systemOfRating = used.item.map((i) => {
    const name = bundle.items[i].system_a;
    let s = systemIndex.get(name);
    if (s === undefined) {
      s = systems.length;
      systemIndex.set(name, s);
      systems.push(name);
    }
    return s;
  });
  const K = systems.length;
  const scores: number[][] = Array.from({ length: K }, () => []);
  used.score.forEach((v, x) => scores[systemOfRating[x]].push(v));
  const summaries = scores.map((s) => meanOpinionScore(s)!);
  const rank = ranksByEstimate(summaries.map((m) => m.mos));
  const rankCi = ranksFromIntervals(summaries.map((m) => m.ci95));

  let bootstrapCi: Array<Interval | null> | null = null;
  if (bootstrap && bootstrap.n > 0) {
    // Clusters are the retained listeners who rated; dense (listener × system) sums and counts.
    const clusterOf = new Map<number, number>();
    for (const l of used.listener) if (!clusterOf.has(l)) clusterOf.set(l, clusterOf.size);
    const sums = new Float64Array(clusterOf.size * K);
    const counts = new Float64Array(clusterOf.size * K);
    used.score.forEach((v, x) => {
      const cell = clusterOf.get(used.listener[x])! * K + systemOfRating[x];
      sums[cell] += v;
      counts[cell]++;
    });
    bootstrapCi = clusterBootstrapMeans(sums, counts, clusterOf.size, K, { resamples: bootstrap.n, seed: bootstrap.seed });
  }

  const units = new Map<number, number[]>();
  used.item.forEach((i, x) => {
    const unit = units.get(i);
    if (unit) unit.push(used.score[x]);
    else units.set(i, [used.score[x]]);
  });
  const items: RatedClip[] = [];
  bundle.items.forEach((item, i) => {
    if (item.attention || !isRatingItem(item)) return;
    const m = meanOpinionScore(units.get(i) ?? []);
    items.push({
      item_id: item.item_id, utterance_id: item.utterance_id, system: item.system_a,
      n: m?.n ?? 0, mos: m?.mos ?? null, sd: m?.sd ?? null, ci95: m?.ci95 ?? null,
    });
  });
  const order = systems.map((_, s) => s).sort((a, b) => rank[a] - rank[b]);
  const spread: SystemSpread[] = scale
    ? order.map((s) => ({ system: systems[s], ...scoreDistribution(scores[s], scale!) }))
    : [];

  return {
    scale,
    votes: used.score.length,
    listeners: new Set(used.listener).size,
    systems: systems
      .map((system, s) => ({
        system,
        n: summaries[s].n,
        mos: summaries[s].mos,
        sd: summaries[s].sd,
        ci95: summaries[s].ci95,
        ...(bootstrapCi ? { ci95_bootstrap: bootstrapCi[s] } : {}),
        rank: rank[s],
        rank_ci: rankCi[s],
      }))
      .sort((a, b) => a.rank - b.rank),
    reliability: {
      krippendorff_alpha_interval: krippendorffAlpha([...units.values()], 'interval'),
      krippendorff_alpha_ordinal: krippendorffAlpha([...units.values()], 'ordinal'),
    },
    listener_correlation: [...correlations].map(([listener_id, c]) => ({ listener_id, ...c })),
    ...(bootstrapCi ? { bootstrap: { resamples: bootstrap!.n, seed: bootstrap!.seed, resampled: 'listeners' as const } } : {}),
    items,
    spread,
  };
}

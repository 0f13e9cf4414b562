import type { Bundle } from '../bundle';
import { minAttentionScore } from '../exclusion';
import { clusterBootstrapMeans } from '../stats/cluster-bootstrap-means';
import { meanOpinionScore } from '../stats/mean-opinion-score';
import { normalCdf } from '../stats/normal';
import { normal, type Random } from '../random';
import { PilotTooSmallError } from './pair-model';

/**
 * The pilot model of a rating (MOS) study, for the planner (docs/planner.md), from the retained
 * listeners' non-attention ratings: per-system MOS (mean score); listener bias SD by moments
 * (variance of the listeners' mean residual from their systems' MOS minus residual variance over
 * their count, floored at 0); residual SD from what the bias leaves, with Sheppard's correction
 * (σ² − 1/12) for the rounding the simulation puts back; careless share as for pairs, a random
 * answerer passing a check with chance 1/(points on the scale). Edge cases: fewer than 2 retained
 * ratings of a system or 2 listeners → PilotTooSmallError.
 */
export interface RatingModel {
  systems: string[];
  mos: number[];
  listenerBias: number;
  residual: number;
  careless: number;
  scale: [number, number];
  ratingsPerListener: number;
  checksPerListener: number;
  minAttention: number;
}

/** P(share of right answers over n checks < min) for a random answerer right with chance p per check. */
function failChance(checks: number, min: number, p: number): number {
  let fail = 0;
  for (let k = 0; k <= checks; k++) {
    if (k / checks >= min) continue;
    let binom = 1;
    for (let j = 0; j < k; j++) binom = (binom * (checks - j)) / (j + 1);
    fail += binom * p ** k * (1 - p) ** (checks - k);
  }
  return fail;
}

export function fitRatingModel(bundle: Bundle, minAttention: number): RatingModel {
  const ratings = bundle.ratings;
  if (!ratings || ratings.length === 0) throw new PilotTooSmallError('the pilot has no ratings');
  const rule = minAttentionScore(minAttention, bundle);
  const retained = bundle.listeners.map((id) => rule.evaluate(id).outcome !== 'fail');
  const systems: string[] = [];
  const index = new Map<string, number>();
  const L = bundle.listeners.length;
  const perListener = new Int32Array(L);
  const checks = new Int32Array(L);
  const rows: { s: number; l: number; x: number }[] = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (let r = 0; r < ratings.length; r++) {
    const item = bundle.items[ratings.item[r]];
    const l = ratings.listener[r];
    lo = Math.min(lo, ratings.score[r]);
    hi = Math.max(hi, ratings.score[r]);
    if (item.attention) { checks[l]++; continue; }
    perListener[l]++;
    if (!retained[l]) continue;
    if (!index.has(item.system_a)) index.set(item.system_a, systems.push(item.system_a) - 1);
    rows.push({ s: index.get(item.system_a)!, l, x: ratings.score[r] });
  }
  const scale = ratings.scale ?? bundle.study?.ratingScale ?? [lo, hi];
  const K = systems.length;
  const sum = new Float64Array(K);
  const n = new Float64Array(K);
  for (const { s, x } of rows) { sum[s] += x; n[s]++; }
  const thin = systems.filter((_, s) => n[s] < 2);
  if (thin.length > 0) throw new PilotTooSmallError(`the pilot has fewer than 2 retained ratings of ${thin.join(', ')}; collect more ratings`);
  const mos = [...sum].map((x, s) => x / n[s]);
  const lsum = new Float64Array(L);
  const ln = new Float64Array(L);
  let ss = 0;
  for (const { s, l, x } of rows) { lsum[l] += x - mos[s]; ln[l]++; ss += (x - mos[s]) ** 2; }
  const listeners = [...ln.keys()].filter((l) => ln[l] > 0);
  if (listeners.length < 2) throw new PilotTooSmallError('the pilot has fewer than 2 retained listeners; collect more');
  const total = ss / (rows.length - K);
  const means = listeners.map((l) => lsum[l] / ln[l]);
  const mean = means.reduce((a, b) => a + b, 0) / means.length;
  const varMeans = means.reduce((a, m) => a + (m - mean) ** 2, 0) / (means.length - 1);
  const meanInv = listeners.reduce((a, l) => a + 1 / ln[l], 0) / listeners.length;
  // Two moment equations: var(listener mean) = τ² + σ²·mean(1/n_l), total = τ² + σ².
  const sigma2 = Math.max(0, (total - varMeans) / (1 - meanInv));
  const tau2 = Math.max(0, total - sigma2);
  const avg = (xs: ArrayLike<number>) => Array.from(xs).reduce((a, b) => a + b, 0) / xs.length;
  const checksPerListener = Math.round(avg(checks));
  const fail = checksPerListener > 0 ? failChance(checksPerListener, minAttention, 1 / (scale[1] - scale[0] + 1)) : 0;
  const dropped = retained.filter((r) => !r).length / L;
  return {
    systems, mos, listenerBias: Math.sqrt(tau2), residual: Math.sqrt(Math.max(0, sigma2 - 1 / 12)),
    careless: fail > 0 ? Math.min(1, dropped / fail) : 0, scale,
    ratingsPerListener: Math.max(1, Math.round(avg(perListener))), checksPerListener, minAttention,
  };
}

/** Listener-bootstrap resamples per simulated study: the report's `--bootstrap` count users are told to ask for. */
export const PLAN_BOOTSTRAP_RESAMPLES = 1000;

/**
 * One simulated rating study of `listeners` listeners: each rates ratingsPerListener items, the
 * system drawn uniformly; attentive ratings are clamp(round(MOS_s + b_l + e)), careless ones uniform
 * on the scale, and the careless are dropped when their random checks fall under minAttention.
 * Returns the mean over systems of the half-width of the listener-bootstrap interval
 * (`ci95_bootstrap`, clusterBootstrapMeans with the report's percentile method) as `width`, and of
 * meanOpinionScore's t-interval as `tWidth`. The target is the bootstrap interval because ratings
 * share their listener's bias: the t-interval, which treats them as independent, is narrower and
 * covers the population MOS too rarely (87 % where 95 % is promised, docs/planner.md).
 */
export function simulateRatingWidth(model: RatingModel, listeners: number, random: Random): { width: number; tWidth: number; mos: number[] | null; intervals: Array<[number, number]> | null } {
  const K = model.mos.length;
  const [lo, hi] = model.scale;
  const points = hi - lo + 1;
  const scores: number[][] = model.mos.map(() => []);
  const sums: number[] = [];
  const counts: number[] = [];
  let clusters = 0;
  for (let l = 0; l < listeners; l++) {
    const careless = random() < model.careless;
    if (careless && model.checksPerListener > 0) {
      let right = 0;
      for (let c = 0; c < model.checksPerListener; c++) if (random() < 1 / points) right++;
      if (right / model.checksPerListener < model.minAttention) continue;
    }
    const bias = model.listenerBias * normal(random);
    const base = clusters++ * K;
    for (let s = 0; s < K; s++) { sums[base + s] = 0; counts[base + s] = 0; }
    for (let i = 0; i < model.ratingsPerListener; i++) {
      const s = Math.floor(random() * K);
      const x = careless ? lo + Math.floor(random() * points) : Math.min(hi, Math.max(lo, Math.round(model.mos[s] + bias + model.residual * normal(random))));
      scores[s].push(x);
      sums[base + s] += x;
      counts[base + s]++;
    }
  }
  const fits = scores.map((x) => meanOpinionScore(x));
  if (fits.some((f) => !f?.ci95)) return { width: Infinity, tWidth: Infinity, mos: null, intervals: null };
  const boot = clusterBootstrapMeans(sums, counts, clusters, K, { resamples: PLAN_BOOTSTRAP_RESAMPLES, seed: Math.floor(random() * 2 ** 31) });
  if (boot.some((b) => b === null)) return { width: Infinity, tWidth: Infinity, mos: null, intervals: null };
  const intervals = boot as Array<[number, number]>;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / K;
  return {
    width: mean(intervals.map(([a, b]) => (b - a) / 2)),
    tWidth: mean(fits.map((f) => (f!.ci95![1] - f!.ci95![0]) / 2)),
    mos: fits.map((f) => f!.mos),
    intervals,
  };
}

/**
 * The population MOS of system s under the model: the expected score of an attentive listener,
 * E[clamp(round(MOS_s + b + e))] with b + e ~ N(0, τ² + σ²), that is
 *   Σ_k k·P(score = k),  P(k) = Φ((k + ½ − MOS_s)/sd) − Φ((k − ½ − MOS_s)/sd), the two end points
 *   taking the tails. This, not the latent MOS_s, is what a study's mean score estimates: the scale's
 *   ends pull the means of the best and worst systems towards the middle. O(points on the scale).
 */
export function populationMos(model: RatingModel, s: number): number {
  const [lo, hi] = model.scale;
  const sd = Math.hypot(model.listenerBias, model.residual);
  const cdf = (x: number) => (sd === 0 ? (x >= 0 ? 1 : 0) : normalCdf(x / sd));
  let expected = 0;
  for (let k = lo; k <= hi; k++) {
    const upper = k === hi ? 1 : cdf(k + 0.5 - model.mos[s]);
    const lower = k === lo ? 0 : cdf(k - 0.5 - model.mos[s]);
    expected += k * (upper - lower);
  }
  return expected;
}

import type { Bundle } from '../bundle';
import { isVoteItem } from '../bundle';
import { seededRandom } from '../random';
import { fitPairModel, simulatePairWidth, type PairModel } from './pair-model';
import { fitRatingModel, PLAN_BOOTSTRAP_RESAMPLES, simulateRatingWidth, type RatingModel } from './rating-model';
import type { Random } from '../random';

/**
 * The study planner (issue 25.3, docs/planner.md): the smallest number of listeners N whose
 * simulated studies (R seeded studies per N, from the pilot's fitted model) have a mean interval
 * half-width ≤ the target. N doubles from 2 until the target is met (or maxListeners is passed:
 * TargetUnreachableError), then bisects between the last miss and the first hit. Each N's studies
 * use seeds derived from (seed, N, r), so a plan is reproducible and N's answer does not depend on
 * the search path.
 */
export type Target = { statistic: 'bt-ci'; width: number } | { statistic: 'mos-ci'; width: number };

export class PlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanError';
  }
}

export function parseTarget(text: string): Target {
  const m = /^\s*([a-z-]+)\s*=\s*([0-9.eE+-]+)\s*$/.exec(text);
  if (!m) throw new PlanError(`target "${text}" is not <statistic>=<width>, e.g. bt-ci=0.3 or mos-ci=0.1`);
  const width = Number(m[2]);
  if (!(width > 0) || !Number.isFinite(width)) throw new PlanError(`target width must be a positive number, got ${m[2]}`);
  if (m[1] === 'bt-ci' || m[1] === 'mos-ci') return { statistic: m[1], width };
  throw new PlanError(`unknown target statistic "${m[1]}": known are bt-ci (pair and A/B studies) and mos-ci (rating studies)`);
}

export interface PlanOptions {
  seed?: number;
  /** seeded simulations per candidate N (default 20) */
  replicates?: number;
  maxListeners?: number;
  minAttention?: number;
  design?: { itemsPerListener?: number };
}

export interface Plan {
  target: Target;
  listeners: number;
  votes: number;
  /** items (pairs or ratings) per listener in the planned study, attention checks not counted */
  itemsPerListener: number;
  predictedWidth: number;
  /** the report's interval whose half-width is predicted */
  interval: string;
  /** the standard deviation of the width across the R simulated studies of the predicted size */
  widthSpread: number;
  model: PairModel | RatingModel;
}

export class TargetUnreachableError extends PlanError {}

function widths(study: (n: number, random: Random) => number, n: number, seed: number, replicates: number): number[] {
  return Array.from({ length: replicates }, (_, r) => study(n, seededRandom(seed * 1_000_003 + n * 101 + r)));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export function planStudy(bundle: Bundle, target: Target, options: PlanOptions = {}): Plan {
  const hasVotes = bundle.items.some((item) => !item.attention && isVoteItem(item));
  const hasRatings = (bundle.ratings?.length ?? 0) > 0;
  const minAttention = options.minAttention ?? bundle.study?.minAttention ?? 0.75;
  const perListener = options.design?.itemsPerListener;
  let model: PairModel | RatingModel;
  let study: (n: number, random: Random) => number;
  let items: number;
  let interval: string;
  if (target.statistic === 'mos-ci') {
    if (!hasRatings) throw new PlanError(hasVotes ? 'mos-ci is a rating-study target; this pilot is a pair / A/B study: use bt-ci' : 'mos-ci needs a rating pilot (ratings.csv)');
    const fitted = fitRatingModel(bundle, minAttention);
    const m = perListener ? { ...fitted, ratingsPerListener: perListener } : fitted;
    model = m;
    items = m.ratingsPerListener;
    study = (n, random) => simulateRatingWidth(m, n, random).width;
    interval = `ratings.systems[].ci95_bootstrap, the listener bootstrap (earmark analyze --bootstrap ${PLAN_BOOTSTRAP_RESAMPLES}); the P.808 t-interval beside it is narrower but ignores the listeners' bias`;
  } else {
    if (!hasVotes) throw new PlanError('bt-ci is a pair / A/B study target; this pilot has no pair or A/B items' + (hasRatings ? ': use mos-ci' : ''));
    const fitted = fitPairModel(bundle, minAttention);
    const m = perListener ? { ...fitted, itemsPerListener: perListener } : fitted;
    model = m;
    items = m.itemsPerListener;
    study = (n, random) => simulatePairWidth(m, n, random).width;
    interval = 'bradley_terry.systems[].ci95, the Wald interval of the log-strengths';
  }
  const seed = options.seed ?? 1;
  const R = options.replicates ?? 20;
  const max = options.maxListeners ?? 10_000;
  const meets = (n: number) => mean(widths(study, n, seed, R)) <= target.width;
  let hi = 2;
  while (!meets(hi)) {
    if (hi >= max) throw new TargetUnreachableError(`target ${target.statistic}=${target.width} is not reached by ${max} listeners; the widest part is the pilot's spread of strengths or its careless share`);
    hi = Math.min(max, hi * 2);
  }
  let lo = Math.floor(hi / 2);
  if (hi === 2) lo = 1;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (meets(mid)) hi = mid;
    else lo = mid;
  }
  const w = widths(study, hi, seed, R);
  const m = mean(w);
  return {
    target, listeners: hi, votes: hi * items, itemsPerListener: items, predictedWidth: m, interval,
    widthSpread: Math.sqrt(w.reduce((s, x) => s + (x - m) ** 2, 0) / Math.max(1, w.length - 1)), model,
  };
}

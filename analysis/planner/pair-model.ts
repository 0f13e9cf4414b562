import type { Bundle } from '../bundle';
import { attentionCounts, minAttentionScore } from '../exclusion';
import { fitBradleyTerry, BradleyTerryNotIdentifiedError } from '../stats/bradley-terry';
import { Z95 } from '../stats/wilson-interval';
import type { Random } from '../random';

/**
 * The pilot model of a pair / A/B study, for the planner (docs/planner.md):
 * - strengths θ: Bradley–Terry on the retained listeners' non-attention votes (as analysis/report.ts
 *   fits them, λ = 0), natural-log, Σθ = 0;
 * - position bias β: logit of the share of retained votes for the side shown first. This ignores
 *   Δθ, which only pulls β towards 0 (the first side is a coin flip), so it slightly under-states it;
 * - careless share c: the share of listeners minAttentionScore drops, divided by the chance that a
 *   random answerer fails the pilot's checks (so it counts the careless who slipped through too);
 * - shape: the pilot's items per listener, attention checks per listener and its pairs of systems.
 * Listener spread (per-listener sensitivity) is not a parameter: the report's Wald width follows
 * the pooled win probabilities, which the pooled θ holds (tested with sensitivities ×0.6–1.4 in
 * plan.test.ts). Edge cases: a pilot without attention checks gets c = 0; a pilot whose BT fit is
 * not identified (a system never wins / never loses) is too small and throws PilotTooSmallError.
 */
export interface PairModel {
  systems: string[];
  theta: number[];
  positionBias: number;
  careless: number;
  itemsPerListener: number;
  checksPerListener: number;
  minAttention: number;
  /** the pilot's non-attention pairs as [a, b] system indices, drawn from uniformly */
  pairs: [number, number][];
}

export class PilotTooSmallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PilotTooSmallError';
  }
}

const logit = (p: number) => Math.log(p / (1 - p));

/** P(a random answerer's share of right answers over n two-way checks < min): the careless the rule drops. */
export function carelessFailChance(checks: number, min: number): number {
  let fail = 0;
  for (let k = 0; k <= checks; k++) {
    if (k / checks >= min) continue;
    let binom = 1;
    for (let j = 0; j < k; j++) binom = (binom * (checks - j)) / (j + 1);
    fail += binom / 2 ** checks;
  }
  return fail;
}

export function fitPairModel(bundle: Bundle, minAttention: number): PairModel {
  const { items, votes, listeners } = bundle;
  const rule = minAttentionScore(minAttention, bundle);
  const retained = listeners.map((id) => rule.evaluate(id).outcome !== 'fail');
  const { answered } = attentionCounts(bundle);
  const systems: string[] = [];
  const index = new Map<string, number>();
  const sys = (name: string) => {
    if (!index.has(name)) index.set(name, systems.push(name) - 1);
    return index.get(name)!;
  };
  const pairs: [number, number][] = [];
  const itemPair = new Map<number, [number, number]>();
  items.forEach((item, i) => {
    if (item.attention || item.system_b === '') return;
    const pair: [number, number] = [sys(item.system_a), sys(item.system_b)];
    itemPair.set(i, pair);
    pairs.push(pair);
  });
  const K = systems.length;
  if (K < 2) throw new PilotTooSmallError(`the pilot has ${K} system(s) in pair items; the planner needs at least 2`);
  const wins = new Float64Array(K * K);
  const perListener = new Int32Array(listeners.length);
  let used = 0;
  let first = 0;
  for (let v = 0; v < votes.length; v++) {
    const pair = itemPair.get(votes.item[v]);
    if (!pair) continue;
    perListener[votes.listener[v]]++;
    if (!retained[votes.listener[v]]) continue;
    const [a, b] = pair;
    if (votes.chosenA[v]) wins[a * K + b]++;
    else wins[b * K + a]++;
    used++;
    if (votes.chosenA[v] === votes.firstA[v]) first++;
  }
  let theta: Float64Array;
  try {
    theta = fitBradleyTerry(wins, K, { standardErrors: false }, systems).theta;
  } catch (e) {
    if (e instanceof BradleyTerryNotIdentifiedError) throw new PilotTooSmallError(`the pilot is too small to fit strengths: ${e.message}; collect more votes`);
    throw e;
  }
  if (used < 2 * K) throw new PilotTooSmallError(`the pilot has ${used} retained votes for ${K} systems; the planner needs at least ${2 * K}`);
  const n = listeners.length;
  const mean = (xs: ArrayLike<number>) => Array.from(xs).reduce((s, x) => s + x, 0) / xs.length;
  const checksPerListener = Math.round(mean(answered));
  const failChance = checksPerListener > 0 ? carelessFailChance(checksPerListener, minAttention) : 0;
  const dropped = retained.filter((r) => !r).length / n;
  const share = (first + 0.5) / (used + 1);
  return {
    systems,
    theta: [...theta],
    positionBias: logit(share),
    careless: failChance > 0 ? Math.min(1, dropped / failChance) : 0,
    itemsPerListener: Math.max(1, Math.round(mean(perListener))),
    checksPerListener,
    minAttention,
    pairs,
  };
}

/**
 * One simulated study of `listeners` listeners from the model, analysed as the report does: the
 * careless listener answers every vote and check at random and is dropped when the checks catch
 * them (binomial draw of right answers); attentive listeners are taken to pass. Returns the mean
 * over systems of the BT ci95 half-width Z95·SE, or Infinity when the fit is not identified.
 * `listenerSpread` gives each attentive listener a sensitivity uniform in 1 ± spread (a factor on
 * θa − θb), for studies of a heterogeneous truth; the planner itself simulates none (docs/planner.md).
 */
export function simulatePairWidth(model: PairModel, listeners: number, random: Random, listenerSpread = 0): { width: number; theta: Float64Array | null; se: Float64Array | null } {
  const K = model.theta.length;
  const wins = new Float64Array(K * K);
  const sigma = (x: number) => 1 / (1 + Math.exp(-x));
  for (let l = 0; l < listeners; l++) {
    const careless = random() < model.careless;
    if (careless) {
      let right = 0;
      for (let c = 0; c < model.checksPerListener; c++) if (random() < 0.5) right++;
      if (model.checksPerListener > 0 && right / model.checksPerListener < model.minAttention) continue;
    }
    // Drawn only with a spread, so the planner's seeded studies stay as they were.
    const sensitivity = listenerSpread > 0 && !careless ? 1 + listenerSpread * (2 * random() - 1) : 1;
    for (let i = 0; i < model.itemsPerListener; i++) {
      const [a, b] = model.pairs[Math.floor(random() * model.pairs.length)];
      const firstA = random() < 0.5;
      const p = careless ? 0.5 : sigma(sensitivity * (model.theta[a] - model.theta[b]) + (firstA ? model.positionBias : -model.positionBias));
      if (random() < p) wins[a * K + b]++;
      else wins[b * K + a]++;
    }
  }
  try {
    const fit = fitBradleyTerry(wins, K, { standardErrors: true });
    const se = fit.se!;
    let sum = 0;
    for (let s = 0; s < K; s++) sum += Z95 * se[s];
    return { width: sum / K, theta: fit.theta, se };
  } catch (e) {
    if (e instanceof BradleyTerryNotIdentifiedError) return { width: Infinity, theta: null, se: null };
    throw e;
  }
}

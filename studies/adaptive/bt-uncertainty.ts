/**
 * The adaptive design's rule for kinds that compare two systems (caption pairs, A/B): spend the
 * next vote on the system pair whose Bradley–Terry comparison it settles most.
 *
 * Model: the votes so far (each a win of one system over the other; every listener's, since whether a
 * listener is retained is the analysis's judgement, made on all their attention checks at the end)
 * give the ridge (MAP) Bradley–Terry fit θ̂ with covariance C under Σθ = 0
 * (analysis/stats/bradley-terry.ts; the small prior λ keeps a young study's fit finite).
 * One more comparison of i and j adds information w·d dᵀ, with d = e_i − e_j and
 * w = p(1 − p), p = σ(θ̂_i − θ̂_j). By Sherman–Morrison the covariance becomes
 * C − w·(C d)(C d)ᵀ / (1 + w·dᵀC d), so the expected drop of Σ_s Var(θ_s) — the quantity the
 * mean CI half-width follows — is
 *   gain(i, j) = w·‖C d‖² / (1 + w·dᵀ C d).
 * Choosing the largest gain is greedy A-optimal design (Atkinson, Donev & Tobias 2007,
 * Optimum Experimental Designs, ch. 10; for paired comparisons: Mantiuk et al. 2018's
 * "ASAP" uses the expected information gain of the same Gaussian posterior).
 * The rule never repeats a pair for a listener more than `maxPairRepeats` times (repeated pairs
 * were the complaint against ASAP: gfxdisp/asap #9, #13), never gives a listener an item twice
 * (the caller lists only items the listener has not met) and among a pair's items takes the
 * least-voted, so votes spread over utterances. A system without votes has the prior's large
 * variance and therefore the largest gains: every system is kept connected.
 * Complexity: O(K³) for the fit and inverse plus O(K²·K) for the gains; K = 20 takes well under
 * a millisecond. Edge cases: no candidate → null; ties broken by the caller's random draw.
 */
import { fitBradleyTerry } from '../../analysis/stats/bradley-terry';
import { spdInverse } from '../../analysis/stats/linear-algebra';

/** A scored item the listener may still get, and the two systems it compares. */
export interface PairCandidate {
  itemId: string;
  systems: readonly [string, string];
  /** votes plus live unanswered assignments of the item */
  load: number;
}

export interface PairChoiceInput {
  /** Every system of the study, in a fixed order. */
  systems: readonly string[];
  /** wins[i·K + j]: votes so far in which systems[i] beat systems[j]. */
  wins: ArrayLike<number>;
  candidates: readonly PairCandidate[];
  /** How often this listener already has each system pair (pairKey). */
  listenerPairs: ReadonlyMap<string, number>;
  maxPairRepeats: number;
  /** Uniform in [0, 1): breaks ties between equally useful pairs and items. */
  random: () => number;
  /** The ridge prior λ of the working fit (default 0.1). */
  lambda?: number;
  /**
   * pending[i·K + j]: comparisons of systems[i] and systems[j] already handed out and not yet
   * answered. Their outcome is unknown but their information w = p(1 − p) is not, so they count
   * as information: listeners choosing at the same moment spread over pairs instead of all
   * getting the one best pair.
   */
  pending?: ArrayLike<number>;
}

/** One key per unordered system pair. */
export const pairKey = (a: string, b: string): string => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** θ̂ (from the wins) and the K×K covariance under Σθ = 0 of the ridge Bradley–Terry fit, pending comparisons counted as information. */
export function btPosterior(wins: ArrayLike<number>, k: number, lambda: number, pending?: ArrayLike<number>): { theta: Float64Array; cov: Float64Array } {
  const { theta } = fitBradleyTerry(wins, k, { lambda });
  const info = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    for (let j = i + 1; j < k; j++) {
      const n = wins[i * k + j] + wins[j * k + i] + (pending ? pending[i * k + j] + pending[j * k + i] : 0);
      if (n === 0) continue;
      const p = sigmoid(theta[i] - theta[j]);
      const w = n * p * (1 - p);
      info[i * k + j] -= w;
      info[j * k + i] -= w;
      info[i * k + i] += w;
      info[j * k + j] += w;
    }
  }
  // (I + J/K)⁻¹ − J/(K(1 + λ)): the covariance under Σθ = 0 (see bradley-terry.ts).
  for (let i = 0; i < k; i++) info[i * k + i] += lambda;
  for (let i = 0; i < k * k; i++) info[i] += 1 / k;
  const cov = spdInverse(info, k);
  if (cov === null) throw new Error('Bradley–Terry information is not positive definite');
  for (let i = 0; i < k * k; i++) cov[i] -= 1 / (k * (1 + lambda));
  return { theta, cov };
}

/** The expected drop of Σ Var(θ) from one more comparison of systems i and j (see above). */
export function comparisonGain(theta: ArrayLike<number>, cov: ArrayLike<number>, k: number, i: number, j: number): number {
  const p = sigmoid(theta[i] - theta[j]);
  const w = p * (1 - p);
  let norm = 0;
  for (let s = 0; s < k; s++) {
    const d = cov[s * k + i] - cov[s * k + j];
    norm += d * d;
  }
  const v = cov[i * k + i] + cov[j * k + j] - 2 * cov[i * k + j];
  return (w * norm) / (1 + w * v);
}

/** The item the listener's next trial should show, or null when no candidate is left. */
export function choosePairItem(input: PairChoiceInput): string | null {
  const k = input.systems.length;
  const index = new Map(input.systems.map((s, i) => [s, i]));
  const allowed = input.candidates.filter((c) => (input.listenerPairs.get(pairKey(c.systems[0], c.systems[1])) ?? 0) < input.maxPairRepeats);
  if (allowed.length === 0) return null;
  const { theta, cov } = btPosterior(input.wins, k, input.lambda ?? 0.1, input.pending);
  const gains = new Map<string, number>();
  let best: PairCandidate | null = null;
  let bestScore = -Infinity;
  for (const c of allowed) {
    const key = pairKey(c.systems[0], c.systems[1]);
    let gain = gains.get(key);
    if (gain === undefined) {
      gain = comparisonGain(theta, cov, k, index.get(c.systems[0])!, index.get(c.systems[1])!);
      gains.set(key, gain);
    }
    // Equal gains (one pair's items) fall to the least-voted item; equal loads to the draw.
    const score = gain - 1e-12 * c.load + 1e-15 * input.random();
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best!.itemId;
}

import { normal, type Random } from '../../analysis/random';

/**
 * A seeded simulated rating (MOS / ACR) listener (the `rating` kind, docs/analysis-spec.md §4):
 * what the simulator answers a rating trial with. It sees, where the caller knows the truth, the
 * item's latent mean (the system's true MOS plus the item's effect) or, for an attention check,
 * the score asked for.
 *
 * An attentive listener scores round(mean + bias + e) clamped to the scale, with its own bias and
 * noise e ~ N(0, noise²), and gives an attention check's score with probability `accuracy`, else
 * any point of the scale. A careless listener picks any point of the scale at random, attention
 * checks included — unless `passesChecks`, who answers the checks as an attentive one does.
 * Every answer draws from `random` in the same order for the same trials, so a seed reproduces a
 * listener exactly.
 */
export interface RatingRespondentOptions {
  careless?: boolean;
  /** a careless listener who answers the attention checks as an attentive one does */
  passesChecks?: boolean;
  /** the scale's lowest and highest score */
  scale: readonly [number, number];
  /** the listener's bias (default 0) */
  bias?: number;
  /** SD of a single rating's noise (default 0.7) */
  noise?: number;
  /** chance of the asked-for score on an attention check (default 0.97) */
  accuracy?: number;
}

/** A rating trial as the respondent sees it: an ordinary item's latent mean, or a check's score. */
export type RatingTrialView = { mean: number; expected?: undefined } | { expected: number; mean?: undefined };

export type RatingRespondent = (trial: RatingTrialView) => number;

/** A listener drawing from `random`, a generator the caller shares. */
export function ratingRespondent(random: Random, o: RatingRespondentOptions): RatingRespondent {
  const [lo, hi] = o.scale;
  const bias = o.bias ?? 0;
  const noise = o.noise ?? 0.7;
  const accuracy = o.accuracy ?? 0.97;
  const point = () => lo + Math.floor(random() * (hi - lo + 1));
  return (trial) => {
    if (trial.expected !== undefined) return (o.careless && !o.passesChecks) || random() >= accuracy ? point() : trial.expected;
    return o.careless ? point() : Math.min(hi, Math.max(lo, Math.round(trial.mean + bias + noise * normal(random))));
  };
}

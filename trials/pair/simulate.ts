import type { Random } from '../../analysis/random';

/**
 * A seeded simulated caption-pair listener (the `pair` kind, docs/analysis-spec.md §3): what the
 * simulator answers a pair trial with. It sees which caption is shown first and, where the caller
 * knows the truth, the strength gap d = θ_a − θ_b (Bradley–Terry log-strengths of the captions'
 * systems) or, for an attention check, the right caption.
 *
 * An attentive listener picks caption a with probability σ(s·d ± positionBias) (+ when a is shown
 * first; s the listener's own sensitivity, default 1), and the right caption of an attention check with probability `accuracy`. A careless
 * listener clicks at random, attention checks included — unless `passesChecks`, the careless
 * listener the checks miss, who answers them as an attentive one does. Each answer draws once
 * from `random`, so a seed reproduces a listener exactly.
 */
export interface PairRespondentOptions {
  careless?: boolean;
  /** a careless listener who answers the attention checks as an attentive one does */
  passesChecks?: boolean;
  /** logit in favour of the caption shown first (default 0.2) */
  positionBias?: number;
  /** chance of the right caption on an attention check (default 0.97) */
  accuracy?: number;
  /** this listener's sensitivity s, the factor on the strength gap (default 1) */
  sensitivity?: number;
}

/** A pair trial as the respondent sees it, in the item's terms. */
export interface PairTrialView {
  /** the caption shown first */
  first: 'a' | 'b';
  /** θ_a − θ_b where the caller knows the truth (default 0) */
  gap?: number;
  /** the right caption of an attention check; absent on an ordinary trial */
  expected?: 'a' | 'b';
}

export type PairRespondent = (trial: PairTrialView) => 'a' | 'b';

/** A listener drawing from `random`, a generator the caller shares. */
export function pairRespondent(random: Random, o: PairRespondentOptions = {}): PairRespondent {
  const positionBias = o.positionBias ?? 0.2;
  const accuracy = o.accuracy ?? 0.97;
  const sensitivity = o.sensitivity ?? 1;
  return (trial) => {
    if (o.careless && !(trial.expected && o.passesChecks)) return random() < 0.5 ? 'a' : 'b';
    if (trial.expected) return (random() < accuracy) === (trial.expected === 'a') ? 'a' : 'b';
    return random() < 1 / (1 + Math.exp(-(sensitivity * (trial.gap ?? 0) + (trial.first === 'a' ? positionBias : -positionBias)))) ? 'a' : 'b';
  };
}

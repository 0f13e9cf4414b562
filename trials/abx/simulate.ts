/**
 * A seeded simulated ABX respondent (analysis-spec §5.2), for tests and the simulator: it sees a
 * trial as a listener does (A, B, X) and, where the caller knows the truth, the pair's true d′.
 * An attentive listener, on an ordinary trial, is right with the probability the independent-
 * observation model gives that d′ (Macmillan & Creelman: Φ(d/√2)Φ(d/2) + Φ(−d/√2)Φ(−d/2)); when
 * it does not know, it says "X is A" with probability ½ + `bias` (a pull towards the first
 * version). On an attention check (X a clearly degraded copy) it is right with probability
 * `accuracy`. A careless listener answers A or B at random, checks included. Every answer draws
 * from `random` in the same order, so a seed reproduces a listener.
 */
import { normalCdf } from '../../analysis/stats/normal';
import type { Random } from '../../analysis/random';

export interface AbxRespondentOptions {
  careless?: boolean;
  /** extra chance of "X is A" when guessing (default 0) */
  bias?: number;
  /** chance of the right answer on an attention check (default 0.97) */
  accuracy?: number;
}

/** P(correct) of the independent-observation observer with sensitivity d. */
export const abxProportionCorrect = (d: number): number =>
  normalCdf(d / Math.SQRT2) * normalCdf(d / 2) + normalCdf(-d / Math.SQRT2) * normalCdf(-d / 2);

/** The answer to one trial: `xIs` the truth (which screen side X is), `dPrime` the pair's true d′, `check` an attention check. */
export function abxAnswer(random: Random, trial: { xIs: 'A' | 'B'; dPrime: number; check: boolean }, options: AbxRespondentOptions = {}): 'A' | 'B' {
  const guess = () => (random() < 0.5 + (options.bias ?? 0) ? 'A' : 'B');
  if (options.careless) return random() < 0.5 ? 'A' : 'B';
  const wrong = trial.xIs === 'A' ? 'B' : 'A';
  if (trial.check) return random() < (options.accuracy ?? 0.97) ? trial.xIs : wrong;
  // An observer who discriminates (probability 2·p_c − 1) is right; otherwise it guesses.
  const knows = 2 * abxProportionCorrect(Math.abs(trial.dPrime)) - 1;
  return random() < knows ? trial.xIs : guess();
}

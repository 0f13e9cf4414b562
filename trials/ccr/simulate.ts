/**
 * A seeded simulated CCR respondent (analysis-spec §5.4), for tests and the simulator: it sees a
 * trial as a listener does (version 1 then version 2) and, where the caller knows the truth, the
 * true CMOS of the processed system against the reference. Its latent judgement of "second
 * against first" is the truth's difference in that order (+cmos when the reference came first,
 * −cmos otherwise) plus `recency` (a pull towards whichever came second) plus normal noise of sd
 * `noise`, rounded and clipped to −3..+3. On an attention check (processed = a clearly degraded
 * copy) the truth is −2.5. A careless listener answers uniformly. A seed reproduces a listener.
 */
import { normal, type Random } from '../../analysis/random';

export interface CcrRespondentOptions {
  careless?: boolean;
  /** added to every "second against first" judgement (default 0) */
  recency?: number;
  /** sd of the judgement's noise (default 0.8) */
  noise?: number;
}

export function ccrAnswer(random: Random, trial: { first: 'reference' | 'processed'; cmos: number; check: boolean }, options: CcrRespondentOptions = {}): number {
  if (options.careless) return Math.floor(random() * 7) - 3;
  const truth = trial.check ? -2.5 : trial.cmos;
  const latent = (trial.first === 'reference' ? truth : -truth) + (options.recency ?? 0) + (options.noise ?? 0.8) * normal(random);
  return Math.max(-3, Math.min(3, Math.round(latent)));
}

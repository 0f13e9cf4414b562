/**
 * A seeded simulated MUSHRA respondent (analysis-spec §5.3), for tests and the simulator: it sees a
 * page's stimuli with their roles and, where the caller knows the truth, each one's true score. An
 * attentive listener scores truth + its own bias + normal noise of sd `noise`, rounded and clipped to
 * 0–100; the hidden reference is heard as what it is (100 less a small |noise|). A listener who
 * `missesReference` scores the hidden reference as an ordinary good system (truth 75) on every page,
 * so BS.1534-3's post-screening should exclude them. A careless listener scores uniformly.
 */
import { normal, type Random } from '../../analysis/random';
import type { MushraRole } from './report';

export interface MushraRespondentOptions {
  careless?: boolean;
  missesReference?: boolean;
  /** added to every score but the hidden reference's (default 0) */
  bias?: number;
  /** sd of a score's noise (default 8) */
  noise?: number;
}

const clip = (x: number) => Math.max(0, Math.min(100, Math.round(x)));

export function mushraRespondent(random: Random, options: MushraRespondentOptions = {}) {
  const noise = options.noise ?? 8;
  return (stimuli: readonly { role: MushraRole; truth: number }[]): number[] =>
    stimuli.map(({ role, truth }) => {
      if (options.careless) return Math.floor(random() * 101);
      if (role === 'reference') return options.missesReference ? clip(75 + noise * normal(random)) : clip(100 - Math.abs(3 * normal(random)));
      return clip(truth + (options.bias ?? 0) + noise * normal(random));
    });
}

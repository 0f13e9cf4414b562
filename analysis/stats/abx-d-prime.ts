import { normalCdf, normalQuantile } from './normal';

/**
 * ABX sensitivity d′ under Macmillan & Creelman's two observer models (analysis-spec §5.2).
 *
 * From the answers on one system pair: H = P(chosen = a | x = a), F = P(chosen = a | x = b),
 * a rate of 0 or 1 replaced by 1/(2m) or 1 − 1/(2m) (m = trials with that x);
 * p_c_unbiased = Φ((z(H) − z(F))/2), the proportion correct an unbiased observer would reach;
 * - independent observations ("ABX fixed"): d solves Φ(d/√2)·Φ(d/2) + Φ(−d/√2)·Φ(−d/2) = p_c_unbiased,
 * - differencing ("ABX roving"): d solves Φ(d/√2)·Φ(d/√6) + Φ(−d/√2)·Φ(−d/√6) = p_c_unbiased.
 * Both are 0 when p_c_unbiased ≤ ½; for H < F, d′ is −d′ of the swapped rates (H ↔ F).
 * Each left-hand side rises from ½ at d = 0 towards 1, so the root is found by bisection on
 * [0, 40] to 1e-12 (a p_c of 1 − 1e-16 needs d ≈ 17 for the differencing model).
 * Source: Macmillan & Creelman, Detection Theory: A User's Guide (2nd ed., 2005), ch. 9 and
 * tables A5.5/A5.6; the same equations as pysdt/DetectionTheory.jl `dprimeABX` ('IO', 'diff')
 * and chrplr/dprime (R). Worked values checked against scipy (norm, brentq): H = 0.7, F = 0.2 →
 * p_c 0.75270, d′ 1.80499 (independent), 2.03715 (differencing).
 * Edge cases: m = 0 for either x → null rates and null d′ (no trial says anything about it).
 */
export interface AbxSensitivity {
  hit_rate: number | null;
  false_alarm_rate: number | null;
  p_c_unbiased: number | null;
  d_prime_independent: number | null;
  d_prime_differencing: number | null;
}

/** A rate from counts with 0 and 1 replaced by 1/(2m) and 1 − 1/(2m); null without trials. */
export function correctedRate(count: number, m: number): number | null {
  if (m === 0) return null;
  const rate = count / m;
  return rate === 0 ? 1 / (2 * m) : rate === 1 ? 1 - 1 / (2 * m) : rate;
}

const independent = (d: number) => normalCdf(d / Math.SQRT2) * normalCdf(d / 2) + normalCdf(-d / Math.SQRT2) * normalCdf(-d / 2);
const differencing = (d: number) => normalCdf(d / Math.SQRT2) * normalCdf(d / Math.sqrt(6)) + normalCdf(-d / Math.SQRT2) * normalCdf(-d / Math.sqrt(6));

function solve(model: (d: number) => number, pc: number): number {
  if (pc <= 0.5) return 0;
  let lo = 0;
  let hi = 40;
  while (hi - lo > 1e-12) {
    const mid = (lo + hi) / 2;
    if (model(mid) < pc) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** p_c of an unbiased observer with rates H and F (symmetric: swapping H and F gives 1 − p_c). */
export const unbiasedProportionCorrect = (h: number, f: number): number => normalCdf((normalQuantile(h) - normalQuantile(f)) / 2);

/** d′ of both models from H and F (negative when H < F, as −d′ of the swapped rates). */
export function abxDPrime(h: number, f: number): { independent: number; differencing: number } {
  const sign = h < f ? -1 : 1;
  const pc = unbiasedProportionCorrect(Math.max(h, f), Math.min(h, f));
  return { independent: sign * solve(independent, pc), differencing: sign * solve(differencing, pc) };
}

/** From counts: hitsA = chosen a with x = a (of mA), falseA = chosen a with x = b (of mB). */
export function abxSensitivity(hitsA: number, mA: number, falseA: number, mB: number): AbxSensitivity {
  const h = correctedRate(hitsA, mA);
  const f = correctedRate(falseA, mB);
  if (h === null || f === null) return { hit_rate: h, false_alarm_rate: f, p_c_unbiased: null, d_prime_independent: null, d_prime_differencing: null };
  const d = abxDPrime(h, f);
  return { hit_rate: h, false_alarm_rate: f, p_c_unbiased: unbiasedProportionCorrect(h, f), d_prime_independent: d.independent, d_prime_differencing: d.differencing };
}

import { errorFunction } from 'simple-statistics';

/**
 * The standard normal distribution function Φ and its inverse z = Φ⁻¹.
 *
 * Formula: Φ(x) = ½·(1 + erf(x/√2)) with simple-statistics' erf (absolute error < 1e-8 in Φ);
 * z(p) by P. J. Acklam's rational approximation (relative error < 1.15e-9), central region
 * 0.02425 ≤ p ≤ 0.97575 and the two tails. simple-statistics' own probit is not used: it is
 * off by up to ~1e-4 (z(0.2) = −0.84155 instead of −0.84162), too coarse for d′.
 * Source: Abramowitz & Stegun 26.2.2; Acklam, "An algorithm for computing the inverse normal
 * cumulative distribution function" (2003). Checked against scipy.stats.norm.
 * Edge cases: z(0) = −∞, z(1) = +∞, p outside [0, 1] → NaN.
 */
export const normalCdf = (x: number): number => 0.5 * (1 + errorFunction(x / Math.SQRT2));

const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const LOW = 0.02425;

export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const tail = (q: number) => {
    const t = Math.sqrt(-2 * Math.log(q));
    return (((((C[0] * t + C[1]) * t + C[2]) * t + C[3]) * t + C[4]) * t + C[5]) / ((((D[0] * t + D[1]) * t + D[2]) * t + D[3]) * t + 1);
  };
  if (p < LOW) return tail(p);
  if (p > 1 - LOW) return -tail(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q) / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1);
}

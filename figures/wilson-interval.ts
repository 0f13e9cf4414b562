/**
 * Wilson score interval for a binomial proportion.
 *
 * Formula: with p̂ = x/n,
 *   centre = (p̂ + z²/(2n)) / (1 + z²/n)
 *   half   = z·√(p̂(1−p̂)/n + z²/(4n²)) / (1 + z²/n)
 *   CI = [centre − half, centre + half], clamped to [0, 1] against rounding.
 * Source: E. B. Wilson (1927), "Probable inference, the law of succession, and statistical
 * inference", JASA 22:209–212; Newcombe (1998), Statistics in Medicine 17:857–872, method 3.
 * Complexity: O(1).
 * Edge cases: n = 0 → null (no data, no interval); x = 0 or x = n give a one-sided-looking
 * interval that still has width (unlike the Wald interval), with the bound at 0 or 1 exact. Written by hand: simple-statistics
 * has no proportion interval.
 */
export const Z95 = 1.959963984540054;

export function wilsonInterval(successes: number, n: number, z: number = Z95): [number, number] | null {
  if (n <= 0) return null;
  if (successes < 0 || successes > n) throw new RangeError(`successes ${successes} outside 0..${n}`);
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // At x = 0 (x = n) the lower (upper) bound is exactly 0 (1) algebraically; set it so rounding
  // cannot leave the point estimate outside its own interval.
  const lo = successes === 0 ? 0 : Math.max(0, centre - half);
  const hi = successes === n ? 1 : Math.min(1, centre + half);
  return [lo, hi];
}

import { Z95 } from './wilson-interval';

/**
 * 95% interval of a Pearson correlation by Fisher's z-transformation.
 *
 * Formula: z = atanh(r) = ½·ln((1 + r)/(1 − r)) is approximately normal with SE 1/√(n − 3), so
 *   CI = [tanh(z − 1.959963984540054/√(n − 3)), tanh(z + 1.959963984540054/√(n − 3))].
 * Source: R. A. Fisher (1921), "On the 'probable error' of a coefficient of correlation deduced
 * from a small sample", Metron 1:3–32; as in R's cor.test (method "pearson").
 * Used by the per-listener quality view: a listener whose interval reaches 0 rates no better than
 * at random as far as the panel can tell.
 * Complexity: O(1).
 * Edge cases: r null or n ≤ 3 → null (no standard error); |r| = 1 → [r, r] (atanh is infinite);
 * the bounds stay within [−1, 1].
 */
export function correlationInterval(r: number | null, n: number, z: number = Z95): [number, number] | null {
  if (r === null || !Number.isFinite(r) || n <= 3) return null;
  if (Math.abs(r) >= 1) return [r, r];
  const centre = Math.atanh(r);
  const half = z / Math.sqrt(n - 3);
  return [Math.tanh(centre - half), Math.tanh(centre + half)];
}

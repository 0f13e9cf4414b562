import { sampleRankCorrelation } from 'simple-statistics';

/**
 * Spearman's rank correlation ρ with average ranks for ties.
 *
 * Formula: ρ = Pearson correlation of the mid-ranks of x and of y (ties share the mean of the
 * ranks they span), so the general tie-corrected form is used, not 1 − 6Σd²/(n(n²−1)).
 * Source: C. Spearman (1904); scipy.stats.spearmanr (example: [1,2,3,4,5] vs [5,6,7,8,7]
 * → 0.8207826816681233). Computed by simple-statistics' sampleRankCorrelation, which ranks
 * with mid-ranks; this wrapper only adds the undefined cases.
 * Complexity: O(n log n).
 * Edge cases: n < 2, unequal lengths, or a constant series (no rank variance) → null.
 */
export function spearmanRho(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new RangeError('spearmanRho: series must have the same length');
  if (x.length < 2) return null;
  const r = sampleRankCorrelation([...x], [...y]);
  return Number.isFinite(r) ? r : null;
}

/**
 * Distances between two sets of labels (a `multi` attribute's answers, analysis-spec §5.5), for
 * Krippendorff's α with a distance (krippendorff-alpha-distance.ts).
 *
 * Jaccard: J = |A ∩ B| / |A ∪ B|; jaccardDistance = 1 − J (two empty sets: J = 1, d = 0).
 * MASI (Measuring Agreement on Set-valued Items): d = 1 − J·M with the monotonicity weight
 *   M = 1 when A = B, 2/3 when one is a proper subset of the other, 1/3 when they overlap
 *   otherwise, 0 when they are disjoint.
 * Source: R. Passonneau (2006), "Measuring Agreement on Set-valued Items (MASI) for Semantic and
 * Pragmatic Annotation", LREC 2006. The weights here are the EXACT fractions 2/3 and 1/3; nltk's
 * `masi_distance` uses the rounded 0.67 and 0.33 (its doctest: masi_distance({1,2,3,4}, {3,4,5})
 * = 0.868, where the exact value is 1 − (2/5)(1/3) = 0.8666…), so α-MASI from nltk differs from
 * ours in the third decimal (set-distance.test.ts shows both).
 * Edge cases: two empty sets are identical (d = 0); an empty set and a non-empty one are disjoint
 * (d = 1). Complexity: O(|A| + |B|).
 */

/** MASI's monotonicity weights for "one a proper subset of the other" and "overlapping". */
export interface MasiWeights {
  subset: number;
  overlap: number;
}

export const MASI_WEIGHTS: MasiWeights = { subset: 2 / 3, overlap: 1 / 3 };

function overlap<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): { common: number; union: number } {
  let common = 0;
  for (const v of a) if (b.has(v)) common++;
  return { common, union: a.size + b.size - common };
}

export function jaccardDistance<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  const { common, union } = overlap(a, b);
  return union === 0 ? 0 : 1 - common / union;
}

export function masiDistance<T>(a: ReadonlySet<T>, b: ReadonlySet<T>, weights: MasiWeights = MASI_WEIGHTS): number {
  const { common, union } = overlap(a, b);
  if (union === 0 || (common === a.size && common === b.size)) return 0;
  if (common === 0) return 1;
  const m = common === a.size || common === b.size ? weights.subset : weights.overlap;
  return 1 - (common / union) * m;
}

/**
 * The spread of a system's ratings: how many times each point of the scale was given, and the
 * median and quartiles.
 *
 * Formula: counts[k] = #{x_i = lo + k} for k = 0..hi − lo; quantile q of the sorted scores
 * x_(0) ≤ … ≤ x_(n−1) by linear interpolation between order statistics: h = (n − 1)·q,
 * Q(q) = x_(⌊h⌋) + (h − ⌊h⌋)·(x_(⌊h⌋+1) − x_(⌊h⌋)) (R type 7, numpy's default — the quantile
 * rule of analysis-spec §5); median = Q(½), iqr = [Q(¼), Q(¾)].
 * Source: Hyndman & Fan (1996), "Sample quantiles in statistical packages", The American
 * Statistician 50:361–365, definition 7. The quantiles come from the counts (a counting sort of
 * integer scores), so the cost does not grow with sorting.
 * Complexity: O(n + scale points).
 * Edge cases: n = 0 → median and iqr null, counts all 0; scores must be integers on [lo, hi]
 * (others throw RangeError: the bundle reader has checked them against the scale).
 */
export interface ScoreDistribution {
  n: number;
  /** counts[k] = ratings with score lo + k */
  counts: number[];
  median: number | null;
  iqr: [number, number] | null;
}

export function scoreDistribution(scores: ArrayLike<number>, [lo, hi]: readonly [number, number]): ScoreDistribution {
  const counts = Array<number>(hi - lo + 1).fill(0);
  for (let i = 0; i < scores.length; i++) {
    const k = scores[i] - lo;
    if (!Number.isInteger(k) || k < 0 || k >= counts.length) throw new RangeError(`score ${scores[i]} is not an integer on the scale ${lo}–${hi}`);
    counts[k]++;
  }
  const n = scores.length;
  if (n === 0) return { n, counts, median: null, iqr: null };
  // The j-th order statistic (0-based) read off the cumulative counts.
  const order = (j: number) => {
    let seen = 0;
    for (let k = 0; k < counts.length; k++) {
      seen += counts[k];
      if (j < seen) return lo + k;
    }
    return hi;
  };
  const quantile = (q: number) => {
    const h = (n - 1) * q;
    const below = Math.floor(h);
    const x0 = order(below);
    return below + 1 < n ? x0 + (h - below) * (order(below + 1) - x0) : x0;
  };
  return { n, counts, median: quantile(0.5), iqr: [quantile(0.25), quantile(0.75)] };
}

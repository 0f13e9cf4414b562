/**
 * Fleiss' κ for many raters, nominal labels, every subject rated the same number of times.
 *
 * Input: `counts[i][j]` = number of ratings putting subject i in category j; every row must
 * sum to the same m ≥ 2.
 * Formula: p_j = Σ_i n_ij / (N·m);  P_i = (Σ_j n_ij² − m) / (m(m − 1));
 *   P̄ = mean_i P_i;  P̄_e = Σ_j p_j²;  κ = (P̄ − P̄_e) / (1 − P̄_e).
 * Source: J. L. Fleiss (1971), "Measuring nominal scale agreement among many raters",
 * Psychological Bulletin 76(5):378–382 (worked example: 30 patients, 6 psychiatrists,
 * κ = 0.430).
 * Complexity: O(N·C). Written by hand (not in simple-statistics).
 * Edge cases: no subjects, unequal row sums or m < 2 → null (κ is not defined); all ratings in
 * one category (P̄_e = 1) → null. κ ≤ 1.
 */
export function fleissKappa(counts: ReadonlyArray<ArrayLike<number>>): number | null {
  const N = counts.length;
  if (N === 0) return null;
  let m = -1;
  let categories = 0;
  for (const row of counts) {
    let s = 0;
    for (let j = 0; j < row.length; j++) s += row[j];
    if (m === -1) m = s;
    else if (s !== m) return null;
    categories = Math.max(categories, row.length);
  }
  if (m < 2) return null;
  const totals = new Float64Array(categories);
  let sumP = 0;
  for (const row of counts) {
    let sq = 0;
    for (let j = 0; j < row.length; j++) {
      sq += row[j] * row[j];
      totals[j] += row[j];
    }
    sumP += (sq - m) / (m * (m - 1));
  }
  const pBar = sumP / N;
  let pe = 0;
  for (let j = 0; j < categories; j++) {
    const p = totals[j] / (N * m);
    pe += p * p;
  }
  if (Math.abs(1 - pe) < 1e-15) return null;
  return (pBar - pe) / (1 - pe);
}

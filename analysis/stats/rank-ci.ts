/**
 * Ranks from point estimates and a rank that respects their confidence intervals.
 *
 * rank: position by estimate, 1 = largest (ties broken by input order).
 * rank_ci_i = 1 + #{j : lower_j > upper_i}, the number of systems whose whole interval lies
 * above this system's interval, plus one — systems whose intervals overlap share a rank.
 * Source: spec §3 (`rank_ci`); the idea of interval-respecting ranks follows e.g. Goldstein &
 * Spiegelhalter (1996), JRSS A 159:385–443, on league tables with uncertainty.
 * Complexity: O(K²) for rank_ci, O(K log K) for rank.
 * Edge cases: a system without an interval (null) gets rank_ci = null and is never counted as
 * being above another.
 */
export function ranksByEstimate(estimates: readonly number[]): number[] {
  const order = estimates.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  const rank = new Array<number>(estimates.length);
  order.forEach(([, i], pos) => (rank[i] = pos + 1));
  return rank;
}

export function ranksFromIntervals(intervals: ReadonlyArray<readonly [number, number] | null>): Array<number | null> {
  return intervals.map((own) => {
    if (!own) return null;
    let above = 0;
    for (const other of intervals) if (other && other[0] > own[1]) above++;
    return 1 + above;
  });
}

/**
 * Kendall's τ-b (tie-adjusted rank correlation).
 *
 * Formula: over all pairs i < j, C = concordant pairs, D = discordant pairs, n1 = pairs tied
 * in x, n2 = pairs tied in y, n0 = n(n−1)/2;
 *   τ_b = (C − D) / √((n0 − n1)(n0 − n2)).
 * Source: M. G. Kendall (1945), "The treatment of ties in ranking problems", Biometrika
 * 33:239–251; scipy.stats.kendalltau (example: [12,2,1,12,2] vs [1,4,7,1,0] → −0.4714045).
 * Complexity: O(n²) — the series are system means (n ≈ 14–100), so the simple pair loop is
 * exact and fast. Written by hand: simple-statistics has no Kendall τ.
 * Edge cases: n < 2, unequal lengths, or either series constant (denominator 0) → null.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new RangeError('kendallTauB: series must have the same length');
  const n = x.length;
  if (n < 2) return null;
  let s = 0;
  let tiesX = 0;
  let tiesY = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(x[j] - x[i]);
      const dy = Math.sign(y[j] - y[i]);
      if (dx === 0) tiesX++;
      if (dy === 0) tiesY++;
      s += dx * dy;
    }
  }
  const n0 = (n * (n - 1)) / 2;
  const denom = Math.sqrt((n0 - tiesX) * (n0 - tiesY));
  return denom === 0 ? null : s / denom;
}

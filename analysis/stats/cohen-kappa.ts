/**
 * Cohen's κ for two raters on the same items, nominal labels.
 *
 * Formula: κ = (p_o − p_e) / (1 − p_e), where p_o is the share of items on which the two
 * raters give the same label and p_e = Σ_c p1(c)·p2(c) is the agreement expected if each rater
 * labelled independently with their own marginal shares.
 * Source: J. Cohen (1960), "A coefficient of agreement for nominal scales", Educational and
 * Psychological Measurement 20:37–46.
 * Complexity: O(n + C²) for n items and C labels. Written by hand (not in simple-statistics).
 * Edge cases: no items → null; p_e = 1 (both raters used one and the same label throughout)
 * → null, since κ is 0/0 there. κ ≤ 1 always; it can be negative.
 */
export function cohenKappa<T>(rater1: readonly T[], rater2: readonly T[]): number | null {
  if (rater1.length !== rater2.length) throw new RangeError('cohenKappa: raters must label the same items');
  const n = rater1.length;
  if (n === 0) return null;
  const m1 = new Map<T, number>();
  const m2 = new Map<T, number>();
  let same = 0;
  for (let i = 0; i < n; i++) {
    const a = rater1[i];
    const b = rater2[i];
    if (a === b) same++;
    m1.set(a, (m1.get(a) ?? 0) + 1);
    m2.set(b, (m2.get(b) ?? 0) + 1);
  }
  let pe = 0;
  for (const [label, c1] of m1) pe += (c1 / n) * ((m2.get(label) ?? 0) / n);
  const po = same / n;
  if (Math.abs(1 - pe) < 1e-15) return null;
  return (po - pe) / (1 - pe);
}

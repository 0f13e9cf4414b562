/**
 * Brennan–Prediger κ (free-marginal multirater κ) for many raters, nominal labels.
 *
 * Input: `counts[i][c]` = number of ratings putting subject i in category c; `categories` = q,
 * the number of categories raters could choose from (default: the rows' length; 2 for a/b).
 * Formula: P_i = Σ_c n_ic(n_ic − 1) / (n_i(n_i − 1)) over subjects with n_i ≥ 2;
 *   P̄ = mean_i P_i (Fleiss' observed agreement);  κ_BP = (P̄ − 1/q) / (1 − 1/q).
 * Chance agreement is fixed at 1/q instead of being estimated from the category totals, so κ_BP
 * does not change when the labels of any one subject are swapped (e.g. which caption of an
 * item is called `a`), unlike Fleiss' κ and Krippendorff's α.
 * Source: R. L. Brennan & D. J. Prediger (1981), "Coefficient kappa: some uses, misuses, and
 * alternatives", Educational and Psychological Measurement 41:687–699; the multirater form as
 * in J. J. Randolph (2005), "Free-marginal multirater kappa", and K. L. Gwet (2014), Handbook of
 * Inter-Rater Reliability, 4th ed., ch. 4 (subjects with fewer than two ratings left out of P̄).
 * Worked example (the test): Gwet's irrCAC `cont3x3abstractors`, 100 subjects × 2 raters,
 * 3 categories, agreement 0.89 → κ_BP = 0.835.
 * Complexity: O(N·q). Written by hand (not in simple-statistics).
 * Edge cases: no subject with ≥ 2 ratings, or q < 2 → null. −1/(q − 1) ≤ κ_BP ≤ 1.
 */
export function brennanPredigerKappa(counts: ReadonlyArray<ArrayLike<number>>, categories?: number): number | null {
  let q = categories ?? 0;
  if (categories === undefined) for (const row of counts) q = Math.max(q, row.length);
  if (q < 2) return null;
  let sumP = 0;
  let subjects = 0;
  for (const row of counts) {
    let n = 0;
    let pairs = 0;
    for (let c = 0; c < row.length; c++) {
      n += row[c];
      pairs += row[c] * (row[c] - 1);
    }
    if (n < 2) continue;
    sumP += pairs / (n * (n - 1));
    subjects++;
  }
  if (subjects === 0) return null;
  const chance = 1 / q;
  return (sumP / subjects - chance) / (1 - chance);
}

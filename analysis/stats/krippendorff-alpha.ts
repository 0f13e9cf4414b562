/**
 * Krippendorff's α, nominal metric, for data with missing values (coincidence-matrix form).
 *
 * Input: for each unit (item) the number of values it received in each category,
 * `unitCounts[u][c] = n_uc`; a unit's m_u = Σ_c n_uc. Units with m_u < 2 are not pairable and
 * drop out.
 * Formula: coincidences o_ck = Σ_u (n_uc·n_uk − [c = k]·n_uc) / (m_u − 1);
 *   n_c = Σ_k o_ck, n = Σ_c n_c (number of pairable values);
 *   α = 1 − (n − 1)·Σ_{c≠k} o_ck / Σ_{c≠k} n_c·n_k.
 * For the nominal metric only the off-diagonal total matters, so it is accumulated directly:
 *   Σ_{c≠k} o_ck = Σ_u (m_u² − Σ_c n_uc²) / (m_u − 1).
 * Source: K. Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg
 * School for Communication, §C (nominal data, missing values); worked example α = 0.743.
 * Complexity: O(U·C). Written by hand: no maintained npm package implements it with counts.
 * Edge cases: fewer than 2 pairable values, or only one category used (expected disagreement 0)
 * → null. α ≤ 1; it is negative when disagreement exceeds chance.
 */
export function krippendorffAlphaNominal(unitCounts: ReadonlyArray<ArrayLike<number>>): number | null {
  let categories = 0;
  for (const u of unitCounts) categories = Math.max(categories, u.length);
  const nc = new Float64Array(categories);
  let observedOff = 0;
  for (const counts of unitCounts) {
    let m = 0;
    let sumSq = 0;
    for (let c = 0; c < counts.length; c++) {
      m += counts[c];
      sumSq += counts[c] * counts[c];
    }
    if (m < 2) continue;
    observedOff += (m * m - sumSq) / (m - 1);
    // Each pairable value contributes exactly once to its own category's margin n_c.
    for (let c = 0; c < counts.length; c++) nc[c] += counts[c];
  }
  let n = 0;
  let sumSqMargins = 0;
  for (let c = 0; c < categories; c++) {
    n += nc[c];
    sumSqMargins += nc[c] * nc[c];
  }
  const expectedOff = n * n - sumSqMargins;
  if (n < 2 || expectedOff <= 0) return null;
  return 1 - ((n - 1) * observedOff) / expectedOff;
}

/**
 * Builds the unit-by-category counts from a reliability data matrix (rows = coders, columns =
 * units, `null` = missing), the layout Krippendorff's paper uses.
 */
export function unitCountsFromMatrix<T>(matrix: ReadonlyArray<ReadonlyArray<T | null>>): number[][] {
  const labels = new Map<T, number>();
  for (const row of matrix) for (const v of row) if (v !== null && !labels.has(v)) labels.set(v, labels.size);
  const units = Math.max(0, ...matrix.map((r) => r.length));
  const out = Array.from({ length: units }, () => new Array<number>(labels.size).fill(0));
  for (const row of matrix) row.forEach((v, u) => {
    if (v !== null) out[u][labels.get(v)!] += 1;
  });
  return out;
}

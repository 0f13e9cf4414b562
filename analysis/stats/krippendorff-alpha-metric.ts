/**
 * Krippendorff's α for numeric values with a choice of difference metric (nominal, ordinal,
 * interval, ratio), coincidence-matrix form, missing values allowed. The pair-vote report keeps
 * its count-based nominal α (krippendorff-alpha.ts); this one serves ratings, whose values are
 * scores.
 *
 * Input: one array of values per unit (item); a unit's m_u values are those it received, so
 * missing values are simply absent. Units with m_u < 2 are not pairable and drop out.
 * Formula (with n_uc = how often value c occurs in unit u):
 *   coincidences o_ck = Σ_u n_uc·(n_uk − [c = k]) / (m_u − 1);
 *   n_c = Σ_k o_ck, n = Σ_c n_c;
 *   α = 1 − (n − 1) · Σ_c Σ_k o_ck·δ²_ck / Σ_c Σ_k n_c·n_k·δ²_ck, with
 *   nominal  δ²_ck = [c ≠ k]
 *   ordinal  δ²_ck = (Σ_{g = c..k} n_g − (n_c + n_k)/2)²   (g over the values between c and k)
 *   interval δ²_ck = (c − k)²
 *   ratio    δ²_ck = ((c − k)/(c + k))²
 * Source: K. Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg
 * School for Communication, University of Pennsylvania, §C–§E; its worked example (4 observers,
 * 12 units, missing values) gives nominal .743, ordinal .815, interval .849, ratio .797.
 * Complexity: O(Σ_u V_u² + V²) for V distinct values (V_u of them in unit u); fine for rating
 * scales, quadratic in V for continuous data.
 * Edge cases: fewer than two pairable values, or no expected disagreement (a single value
 * used, or for ratio only zeros) → null. α ≤ 1; negative when disagreement exceeds chance. The
 * ratio metric needs non-negative values (0 with 0 counts as no difference).
 */
export type AlphaMetric = 'nominal' | 'ordinal' | 'interval' | 'ratio';

export function krippendorffAlpha(units: ReadonlyArray<ArrayLike<number>>, metric: AlphaMetric): number | null {
  const distinct = new Set<number>();
  for (const unit of units) if (unit.length >= 2) for (let i = 0; i < unit.length; i++) distinct.add(unit[i]);
  const values = [...distinct].sort((a, b) => a - b);
  const V = values.length;
  const index = new Map(values.map((v, i) => [v, i]));
  const o = new Float64Array(V * V);
  const unitCount = new Float64Array(V);
  for (const unit of units) {
    const m = unit.length;
    if (m < 2) continue;
    const present: number[] = [];
    for (let i = 0; i < m; i++) {
      const c = index.get(unit[i])!;
      if (unitCount[c] === 0) present.push(c);
      unitCount[c]++;
    }
    for (const c of present) for (const k of present) o[c * V + k] += (unitCount[c] * (unitCount[k] - (c === k ? 1 : 0))) / (m - 1);
    for (const c of present) unitCount[c] = 0;
  }
  const nc = new Float64Array(V);
  let n = 0;
  for (let c = 0; c < V; c++) {
    for (let k = 0; k < V; k++) nc[c] += o[c * V + k];
    n += nc[c];
  }
  // cumulative[c] = Σ_{g < c} n_g, for the ordinal metric's sums over the values between c and k.
  const cumulative = new Float64Array(V + 1);
  for (let c = 0; c < V; c++) cumulative[c + 1] = cumulative[c] + nc[c];
  const delta2 = (c: number, k: number): number => {
    if (c === k) return 0;
    switch (metric) {
      case 'nominal':
        return 1;
      case 'ordinal': {
        const [lo, hi] = c < k ? [c, k] : [k, c];
        return (cumulative[hi + 1] - cumulative[lo] - (nc[c] + nc[k]) / 2) ** 2;
      }
      case 'interval':
        return (values[c] - values[k]) ** 2;
      case 'ratio': {
        const sum = values[c] + values[k];
        return sum === 0 ? 0 : ((values[c] - values[k]) / sum) ** 2;
      }
    }
  };
  let observed = 0;
  let expected = 0;
  for (let c = 0; c < V; c++) {
    for (let k = 0; k < V; k++) {
      if (c === k) continue;
      const d = delta2(c, k);
      observed += o[c * V + k] * d;
      expected += nc[c] * nc[k] * d;
    }
  }
  if (n < 2 || expected <= 0) return null;
  return 1 - ((n - 1) * observed) / expected;
}

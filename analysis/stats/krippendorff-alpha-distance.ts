/**
 * Krippendorff's α with any distance between values (sets of labels with MASI or Jaccard,
 * analysis-spec §5.5), coincidence form with missing values.
 *
 * Input: one array of values per unit (item); values missing for a coder are simply absent.
 * Units with m_u < 2 values are not pairable and drop out; n = Σ m_u over pairable units.
 * Formula: α = 1 − D_o / D_e with
 *   D_o = (1/n) · Σ_u 1/(m_u − 1) · Σ_{i≠j in u} d(v_ui, v_uj)   (ordered pairs within units)
 *   D_e = 1/(n(n − 1)) · Σ_{i≠j over all n pairable values} d(v_i, v_j),
 * i.e. α = 1 − (n − 1)·Σ_c Σ_k o_ck·d(c,k) / Σ_c Σ_k n_c·n_k·d(c,k) of the coincidence matrix
 * (krippendorff-alpha-metric.ts) with δ² replaced by d. With d = [c ≠ k] it is the nominal α.
 * Source: K. Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", §B (general form,
 * any difference function); R. Passonneau (2006) for its use with MASI.
 * Values are compared through `key` (equal keys = the same value; for a set, its sorted members);
 * the distance is evaluated once per pair of distinct values: O(Σ_u m_u² + V²) for V distinct values.
 * Edge cases: fewer than two pairable values, or D_e = 0 (every value the same) → null.
 */
export function krippendorffAlphaDistance<T>(
  units: ReadonlyArray<ReadonlyArray<T>>,
  distance: (a: T, b: T) => number,
  key: (value: T) => string,
): number | null {
  const index = new Map<string, number>();
  const values: T[] = [];
  const pairable = units.filter((u) => u.length >= 2).map((unit) =>
    unit.map((v) => {
      const k = key(v);
      let i = index.get(k);
      if (i === undefined) {
        i = values.length;
        index.set(k, i);
        values.push(v);
      }
      return i;
    }),
  );
  const V = values.length;
  const d = new Float64Array(V * V);
  for (let a = 0; a < V; a++) for (let b = a + 1; b < V; b++) d[a * V + b] = d[b * V + a] = distance(values[a], values[b]);
  const margins = new Float64Array(V);
  let n = 0;
  let observed = 0;
  for (const unit of pairable) {
    let within = 0;
    for (let i = 0; i < unit.length; i++) for (let j = 0; j < unit.length; j++) if (i !== j) within += d[unit[i] * V + unit[j]];
    observed += within / (unit.length - 1);
    for (const v of unit) margins[v]++;
    n += unit.length;
  }
  let expected = 0;
  for (let a = 0; a < V; a++) for (let b = 0; b < V; b++) if (a !== b) expected += margins[a] * margins[b] * d[a * V + b];
  if (n < 2 || expected <= 0) return null;
  return 1 - ((n - 1) * observed) / expected;
}

/** The key of a set of labels for krippendorffAlphaDistance: its members sorted (ordinal order). */
export const setKey = (s: ReadonlySet<string>): string => JSON.stringify([...s].sort());

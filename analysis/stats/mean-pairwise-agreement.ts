/**
 * Mean pairwise agreement between listeners.
 *
 * For every pair of listeners (r, s) with at least one common item, the share of their common
 * items on which they gave the same label: A_rs = agree_rs / common_rs. The result is the plain
 * mean of A_rs over those pairs (each pair weighs the same, however many items it shares).
 * Source: the study protocol (spec §2, "Mean pairwise agreement"); the per-pair share is the
 * "percent agreement" of e.g. Gwet (2014), Handbook of Inter-Rater Reliability, ch. 2.
 * Input: votes grouped by item (CSR layout): the votes of item u are positions
 * itemStart[u] ≤ v < itemStart[u+1], with listener[v] ∈ [0, listeners) and label[v].
 * Complexity: O(Σ_u m_u² + L²) time, O(L²) memory (two L×L count tables), where m_u is the
 * number of votes on item u — it never materialises per-pair item lists.
 * Edge cases: no pair of listeners shares an item → null. A listener voting twice on one item
 * is a caller error (the bundle reader refuses duplicates).
 */
export function meanPairwiseAgreement(
  itemStart: ArrayLike<number>,
  listener: ArrayLike<number>,
  label: ArrayLike<number>,
  listeners: number,
): number | null {
  const common = new Int32Array(listeners * listeners);
  const agree = new Int32Array(listeners * listeners);
  const items = itemStart.length - 1;
  for (let u = 0; u < items; u++) {
    const lo = itemStart[u];
    const hi = itemStart[u + 1];
    for (let x = lo; x < hi; x++) {
      const r = listener[x];
      const lr = label[x];
      for (let y = x + 1; y < hi; y++) {
        const s = listener[y];
        // Store each unordered pair once, in the upper triangle.
        const idx = r < s ? r * listeners + s : s * listeners + r;
        common[idx]++;
        if (label[y] === lr) agree[idx]++;
      }
    }
  }
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < common.length; i++) {
    if (common[i] > 0) {
      sum += agree[i] / common[i];
      pairs++;
    }
  }
  return pairs === 0 ? null : sum / pairs;
}

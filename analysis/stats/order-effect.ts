/**
 * The order effect of a paired comparison (CCR, analysis-spec §5.4): how much the sign-corrected
 * score moves with the order the two versions were played in.
 *
 * Formula: order_effect = mean(score | first = reference) − mean(score | first = processed), where
 * score is "processed relative to reference". An unbiased panel gives 0; a panel that favours
 * whichever version came second (a recency preference) gives a positive value, one that favours
 * the first a negative one. With the order balanced per item, the CMOS itself is free of it.
 * Source: ITU-T P.800 Annex E (the CCR procedure plays both orders, so the order effect can be
 * estimated and removed) and P.808 §CCR; analysis-spec §5.4.
 * Edge cases: either group empty → null.
 * Complexity: O(n).
 */
export interface OrderEffect {
  order_effect: number | null;
  reference_first: { n: number; mean: number | null };
  processed_first: { n: number; mean: number | null };
}

export function orderEffect(scores: readonly { first: 'reference' | 'processed'; score: number }[]): OrderEffect {
  const sum = { reference: 0, processed: 0 };
  const n = { reference: 0, processed: 0 };
  for (const s of scores) {
    sum[s.first] += s.score;
    n[s.first]++;
  }
  const mean = (k: 'reference' | 'processed') => (n[k] === 0 ? null : sum[k] / n[k]);
  const r = mean('reference');
  const p = mean('processed');
  return { order_effect: r === null || p === null ? null : r - p, reference_first: { n: n.reference, mean: r }, processed_first: { n: n.processed, mean: p } };
}

import { sampleCorrelation } from 'simple-statistics';

/**
 * Per-listener correlation with the panel: Pearson r between a listener's scores and the mean
 * score the other listeners gave the same items (ITU-T P.808's per-listener check on
 * crowdsourced ACR ratings: a listener who rates at random, or inverts the scale, has r near 0
 * or below).
 *
 * Input: the ratings as parallel arrays (item index, listener index, score). For a rating x_li
 * of listener l on item i, the panel's value is y_li = (S_i − x_li)/(N_i − 1), with S_i and N_i
 * the sum and count of all ratings of item i; items no one else rated are left out.
 * Formula: r_l = Σ(x − x̄)(y − ȳ) / √(Σ(x − x̄)²·Σ(y − ȳ)²) over the listener's n_l pairs
 * (simple-statistics sampleCorrelation, two-pass).
 * Source: ITU-T Rec. P.808 (2021), screening of crowdsourcing workers by the agreement of
 * their ratings with the other workers'; analysis-spec §4 (`listener_correlation`).
 * The reference is every other listener's rating, not only the retained listeners', so the
 * statistic does not depend on the order in which exclusion rules run.
 * Complexity: O(R) for R ratings.
 * Edge cases: n_l < 3 pairs (two points always correlate perfectly) or no variance in either
 * the listener's scores or the panel's means → pearson_r null.
 */
export interface ListenerCorrelation {
  pearson_r: number | null;
  n: number;
}

export function listenerCorrelations(
  item: ArrayLike<number>,
  listener: ArrayLike<number>,
  score: ArrayLike<number>,
  listeners: number,
): ListenerCorrelation[] {
  const sum = new Map<number, number>();
  const count = new Map<number, number>();
  for (let r = 0; r < item.length; r++) {
    sum.set(item[r], (sum.get(item[r]) ?? 0) + score[r]);
    count.set(item[r], (count.get(item[r]) ?? 0) + 1);
  }
  const own: number[][] = Array.from({ length: listeners }, () => []);
  const panel: number[][] = Array.from({ length: listeners }, () => []);
  for (let r = 0; r < item.length; r++) {
    const others = count.get(item[r])! - 1;
    if (others === 0) continue;
    own[listener[r]].push(score[r]);
    panel[listener[r]].push((sum.get(item[r])! - score[r]) / others);
  }
  return own.map((x, l) => {
    const r = x.length >= 3 ? sampleCorrelation(x, panel[l]) : Number.NaN;
    return { pearson_r: Number.isFinite(r) ? r : null, n: x.length };
  });
}

import { sampleCorrelation } from 'simple-statistics';

/**
 * Per-listener correlation with the panel, by iterative leave-out: Pearson r between a listener's
 * scores and the mean score the other listeners *in the panel* gave the same items (ITU-T P.808's
 * per-listener check on crowdsourced ACR ratings: a listener who rates at random, or inverts the
 * scale, has r near 0 or below).
 *
 * Why iterative: compared with everyone else's mean in one pass, one scale-reverser in a
 * three-listener panel turns each careful listener's reference into a flat line (a careful and
 * a reversed score average to the scale's middle), so every r falls and careful listeners fail
 * with the reverser. So, with a threshold `min`: the panel starts as every listener; each round
 * computes every listener's r against the mean of the other panel members, and the panel member
 * with the lowest r below `min` leaves the panel; rounds repeat until no member is below `min`.
 * Each listener's reported r is the last round's (a listener who left is still measured, against
 * the final panel). Without a threshold (`min` null) there is one round: everyone against
 * everyone else. Including the listener's own score in the reference (P.808's "against the
 * MOS") would instead inflate a random rater's r by their own share of the MOS.
 *
 * Input: the ratings as parallel arrays (item index, listener index, score). For a rating x_li
 * the reference is y_li = (S_i − x_li·[l in panel])/(N_i − [l in panel]), with S_i and N_i the
 * sum and count of the panel's ratings of item i; items no other panel member rated are left out.
 * Formula: r_l = Σ(x − x̄)(y − ȳ) / √(Σ(x − x̄)²·Σ(y − ȳ)²) over the listener's n_l pairs
 * (simple-statistics sampleCorrelation, two-pass).
 * Source: ITU-T Rec. P.808 (2021), screening of crowdsourcing workers by the agreement of their
 * ratings with the other workers'; docs/analysis-spec.md (`listener_correlation`).
 * The panel starts from every listener who rated, not only those other rules retain, so the
 * statistic does not depend on the order in which exclusion rules run.
 * Complexity: O(R) per round, at most one round per listener who leaves.
 * Edge cases: n_l < 3 pairs (two points always correlate perfectly) or no variance in either
 * the listener's scores or the reference → pearson_r null (such a listener never leaves the
 * panel for it). Ties for the lowest r: the listener with the lower index leaves first.
 */
export interface ListenerCorrelation {
  pearson_r: number | null;
  n: number;
}

function round(item: ArrayLike<number>, listener: ArrayLike<number>, score: ArrayLike<number>, listeners: number, inPanel: Uint8Array): ListenerCorrelation[] {
  const sum = new Map<number, number>();
  const count = new Map<number, number>();
  for (let r = 0; r < item.length; r++) {
    if (!inPanel[listener[r]]) continue;
    sum.set(item[r], (sum.get(item[r]) ?? 0) + score[r]);
    count.set(item[r], (count.get(item[r]) ?? 0) + 1);
  }
  const own: number[][] = Array.from({ length: listeners }, () => []);
  const panel: number[][] = Array.from({ length: listeners }, () => []);
  for (let r = 0; r < item.length; r++) {
    const self = inPanel[listener[r]];
    const others = (count.get(item[r]) ?? 0) - self;
    if (others === 0) continue;
    own[listener[r]].push(score[r]);
    panel[listener[r]].push((sum.get(item[r])! - self * score[r]) / others);
  }
  return own.map((x, l) => {
    const r = x.length >= 3 ? sampleCorrelation(x, panel[l]) : Number.NaN;
    return { pearson_r: Number.isFinite(r) ? r : null, n: x.length };
  });
}

export function listenerCorrelations(
  item: ArrayLike<number>,
  listener: ArrayLike<number>,
  score: ArrayLike<number>,
  listeners: number,
  min: number | null = null,
): ListenerCorrelation[] {
  const inPanel = new Uint8Array(listeners).fill(1);
  for (;;) {
    const out = round(item, listener, score, listeners, inPanel);
    if (min === null) return out;
    let worst = -1;
    for (let l = 0; l < listeners; l++) {
      const r = out[l].pearson_r;
      if (inPanel[l] && r !== null && r < min && (worst < 0 || r < out[worst].pearson_r!)) worst = l;
    }
    if (worst < 0) return out;
    inPanel[worst] = 0;
  }
}

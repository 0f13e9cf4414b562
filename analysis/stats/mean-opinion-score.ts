import { studentTQuantile } from './student-t-quantile';

/**
 * Mean opinion score of one condition (system) with ITU-T P.808's per-condition 95% interval.
 *
 * Formula: over the condition's n scores x_i,
 *   mos = Σ x_i / n,  sd = √(Σ (x_i − mos)² / (n − 1))  (sample SD),
 *   ci95 = mos ± t(0.975, n − 1) · sd / √n.
 * Source: ITU-T Rec. P.808 (2021), statistical analysis of ACR results (MOS per condition with
 * a 95% confidence interval from Student's t with n − 1 degrees of freedom), as reported per
 * ITU-T Rec. P.800.2 (MOS interpretation and reporting); analysis-spec §4.
 * Complexity: O(n), two passes (the second for the centred sum of squares, which stays exact
 * for integer scores where the one-pass Σx² − n·mos² would cancel).
 * Edge cases: n = 0 → null; n = 1 → sd and ci95 null (no spread can be estimated); all scores
 * equal → sd 0 and a zero-width interval. The interval treats every score as independent,
 * which ratings by the same listener are not: see the listener bootstrap beside it.
 */
export interface MeanOpinionScore {
  n: number;
  mos: number;
  sd: number | null;
  ci95: [number, number] | null;
}

export function meanOpinionScore(scores: ArrayLike<number>): MeanOpinionScore | null {
  const n = scores.length;
  if (n === 0) return null;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += scores[i];
  const mos = sum / n;
  if (n === 1) return { n, mos, sd: null, ci95: null };
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (scores[i] - mos) ** 2;
  const sd = Math.sqrt(squares / (n - 1));
  const half = (studentTQuantile(0.975, n - 1) * sd) / Math.sqrt(n);
  return { n, mos, sd, ci95: [mos - half, mos + half] };
}

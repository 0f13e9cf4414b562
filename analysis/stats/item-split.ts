/**
 * Item split classes from the majority share.
 *
 * Per item, m = (votes for the more chosen caption) / (votes). The item is
 *   unanimous  if m = 1,
 *   lopsided   if threshold ≤ m < 1,
 *   split      if m < threshold            (threshold defaults to 0.75).
 * Source: spec §2 ("item split classes"); mirrors the paper's Table 10 split / lopsided /
 * unanimous counts (45 / 44 / 11 at threshold 0.75 with 13 listeners).
 * Complexity: O(items). Edge cases: items with no votes are not classified (not counted).
 */
export type SplitClass = 'unanimous' | 'lopsided' | 'split';

export function splitClass(votesA: number, votesB: number, threshold = 0.75): SplitClass | null {
  const total = votesA + votesB;
  if (total === 0) return null;
  const m = Math.max(votesA, votesB) / total;
  if (m === 1) return 'unanimous';
  return m >= threshold ? 'lopsided' : 'split';
}

export function countSplitClasses(
  votesA: ArrayLike<number>,
  votesB: ArrayLike<number>,
  threshold = 0.75,
): Record<SplitClass, number> {
  const out = { unanimous: 0, lopsided: 0, split: 0 };
  for (let i = 0; i < votesA.length; i++) {
    const c = splitClass(votesA[i], votesB[i], threshold);
    if (c) out[c]++;
  }
  return out;
}

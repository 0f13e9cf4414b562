/**
 * The adaptive design's rule for ratings (one rendition scored per trial): spend the next vote on
 * the system whose mean opinion score is least settled.
 *
 * For system s with n_s scores so far of mean x̄_s and sample variance v_s, the normal 95% CI
 * half-width of its MOS is
 *   h_s = 1.96 · sqrt(v_s / n_s).
 * The system with the largest h_s gets the next vote; a system with fewer than two scores has no
 * variance yet and counts as infinitely wide (so every system is rated before any is refined,
 * fewest scores first). n_s also counts the system's live unanswered assignments (`pending`):
 * votes on their way make the CI narrower before they arrive, so parallel listeners spread out
 * instead of all choosing the same system. Among the chosen system's items the listener has not
 * met, the least-loaded is taken (votes spread over utterances); ties go to the caller's draw.
 * Edge cases: no candidate → null. O(systems + candidates).
 */

/** What the rule knows of one system's scores so far. */
export interface ScoreTally {
  n: number;
  sum: number;
  sumSquares: number;
}

export interface RatingCandidate {
  itemId: string;
  system: string;
  /** votes plus live unanswered assignments of the item */
  load: number;
}

export interface RatingChoiceInput {
  /** Per system: its scores so far. */
  scores: ReadonlyMap<string, ScoreTally>;
  /** Per system: its live unanswered assignments. */
  pending: ReadonlyMap<string, number>;
  candidates: readonly RatingCandidate[];
  /** Uniform in [0, 1): breaks ties. */
  random: () => number;
}

/** The 95% CI half-width of a system's MOS from its tally, Infinity below two scores (see above). */
export function mosHalfWidth(tally: ScoreTally | undefined, pending = 0): number {
  if (tally === undefined || tally.n < 2) return Infinity;
  const mean = tally.sum / tally.n;
  const variance = Math.max(0, (tally.sumSquares - tally.n * mean * mean) / (tally.n - 1));
  return 1.96 * Math.sqrt(variance / (tally.n + pending));
}

/** The item the listener's next rating trial should show, or null when no candidate is left. */
export function chooseRatingItem(input: RatingChoiceInput): string | null {
  let best: RatingCandidate | null = null;
  let bestWidth = -Infinity;
  let bestCount = Infinity;
  let bestLoad = Infinity;
  let bestDraw = -Infinity;
  for (const c of input.candidates) {
    const tally = input.scores.get(c.system);
    const pending = input.pending.get(c.system) ?? 0;
    const width = mosHalfWidth(tally, pending);
    const count = (tally?.n ?? 0) + pending;
    const draw = input.random();
    // Widest first; among infinitely wide, fewest scores; then the least-loaded item; then the draw.
    const better = width > bestWidth || (width === bestWidth && (count < bestCount || (count === bestCount && (c.load < bestLoad || (c.load === bestLoad && draw > bestDraw)))));
    if (better) {
      best = c;
      bestWidth = width;
      bestCount = count;
      bestLoad = c.load;
      bestDraw = draw;
    }
  }
  return best?.itemId ?? null;
}

/** Krippendorff's α in words, by his rule of thumb (α ≥ 0.667 tentative, ≥ 0.8 reliable). */
export function alphaReading(alpha: number | null): string {
  if (alpha === null) return 'Krippendorff’s α could not be computed (fewer than two votes per item, or only one caption ever chosen).';
  const level = alpha >= 0.8 ? 'high: listeners largely agree' : alpha >= 0.667 ? 'moderate: enough for tentative conclusions by Krippendorff’s rule of thumb (α ≥ 0.667)' :
    alpha > 0 ? 'above chance but low: listeners often disagree, so single items are noisy and conclusions should rest on majorities and aggregates' : 'at or below chance: listeners do not agree';
  return `α = ${alpha.toFixed(3)} is ${level}.`;
}

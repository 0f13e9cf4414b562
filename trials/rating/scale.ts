import type { RatingScale } from './contract';

/** One point of a rating scale as the listener sees it. */
export interface ScalePoint {
  /** The score a vote carries, 1 = lowest. */
  value: number;
  /** The point's words: the study's label, else ACR's on a 5-point scale, else none (the number alone). */
  label: string | null;
  /** The study's anchor on the lowest and highest point, else null. */
  anchor: string | null;
}

/**
 * The points of the study's scale, lowest first. The study's own labels win; a 5-point scale
 * without them shows ACR's (ITU-T P.800 Annex B: Bad, Poor, Fair, Good, Excellent) in the study's
 * language; a 7-point scale without them shows numbers, with the anchors (when given) at the ends.
 */
export function scalePoints(scale: RatingScale, acrLabels: readonly string[]): ScalePoint[] {
  const labels = scale.labels ?? (scale.points === acrLabels.length ? acrLabels : null);
  return Array.from({ length: scale.points }, (_, i) => ({
    value: i + 1,
    label: labels?.[i] ?? null,
    anchor: i === 0 ? (scale.anchors?.low ?? null) : i === scale.points - 1 ? (scale.anchors?.high ?? null) : null,
  }));
}

/** A point in words for feedback: "4 (Good)", or "4" when the point has no words. */
export function pointText(point: ScalePoint): string {
  const words = point.label ?? point.anchor;
  return words ? `${point.value} (${words})` : String(point.value);
}

/**
 * The rating trial (absolute category rating, MOS; ITU-T P.800/P.808): one clip, optionally one
 * caption to rate ("how well does this describe how it is spoken?"), and a score on the study's
 * scale. Attention checks are served as ordinary ratings; practice trials carry `practice: true`
 * and are answered with feedback.
 */
import { z } from 'zod';
import { TrialClip } from '../../contract/trials/clip';

/** ACR's five points (P.800 Annex B); other scales are 5 or 7 points with optional end anchors. */
export const RATING_POINTS = [5, 7] as const;

/** The scale, as the study sets it and as the listener page receives it. */
export const RatingScale = z
  .object({
    /** The scale runs 1..points. */
    points: z.union([z.literal(RATING_POINTS[0]), z.literal(RATING_POINTS[1])], { error: `a scale has ${RATING_POINTS.join(' or ')} points` }).default(5),
    /**
     * One label per point, lowest first. Absent: a 5-point scale shows ACR's labels (Bad, Poor, Fair,
     * Good, Excellent) in the study's language; a 7-point scale shows numbers and the anchors.
     */
    labels: z.array(z.string().min(1)).optional(),
    /** Words at the two ends of the scale, e.g. { low: 'very unnatural', high: 'completely natural' }. */
    anchors: z.object({ low: z.string().min(1), high: z.string().min(1) }).strict().optional(),
  })
  .strict()
  .refine((s) => s.labels === undefined || s.labels.length === s.points, {
    message: 'give one label per point of the scale (lowest first)',
    path: ['labels'],
  });
export type RatingScale = z.infer<typeof RatingScale>;

/** study.yaml `trial:` for a rating study. */
export const RatingSettings = z
  .object({
    kind: z.literal('rating'),
    scale: RatingScale.default({ points: 5 }),
    /** Show the rated system's caption with the clip (caption-rating studies); false: rate the audio alone. */
    caption: z.boolean().default(false),
  })
  .strict();
export type RatingSettings = z.infer<typeof RatingSettings>;

export const RatingTrial = z.object({
  /** 0-based position in this listener's sequence; the only handle a vote needs. */
  position: z.number().int().nonnegative(),
  kind: z.literal('rating'),
  /** A practice trial, answered with feedback; ordinary trials and attention checks both say false. */
  practice: z.boolean(),
  clip: TrialClip,
  /** The caption to rate, or null when the study rates the audio alone. */
  caption: z.string().nullable(),
});
export type RatingTrial = z.infer<typeof RatingTrial>;

/** The answer a rating vote carries: a point of the scale, 1 = lowest. */
export const RatingAnswer = z.object({ score: z.number().int().min(1).max(RATING_POINTS[1]) });
export type RatingAnswer = z.infer<typeof RatingAnswer>;

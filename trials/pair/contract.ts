/**
 * The caption pair (forced choice), the study protocol's trial: one clip, two captions from
 * different systems in this listener's order; the listener picks the one that better describes
 * how the speech is delivered. Attention checks are served as `pair` (a listener must not be able
 * to tell them apart); practice trials as `practice`, answered with feedback.
 */
import { z } from 'zod';
import { TrialClip } from '../../contract/trials/clip';

/** study.yaml `trial:` for a caption pair study (also the default when `trial:` is absent). */
export const PairSettings = z.object({ kind: z.literal('pair') }).strict();

/** One trial as a listener sees it: opaque clip, two caption texts in this listener's order. */
export const PairTrial = z.object({
  /** 0-based position in this listener's sequence; the only handle a vote needs. */
  position: z.number().int().nonnegative(),
  kind: z.enum(['pair', 'practice']),
  clip: TrialClip,
  captions: z.tuple([z.string(), z.string()]),
});
export type PairTrial = z.infer<typeof PairTrial>;

/** The answer a pair vote carries. */
export const PairAnswer = z.object({
  /** Which caption on screen was chosen: 1 = first shown (left/top), 2 = second. */
  choice: z.union([z.literal(1), z.literal(2)]),
});
export type PairAnswer = z.infer<typeof PairAnswer>;

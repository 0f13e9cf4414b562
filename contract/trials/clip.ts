import { z } from 'zod';

/** The clip of a trial as a listener receives it: an opaque id and where to fetch it (docs/blinding.md). */
export const TrialClip = z.object({
  id: z.string(),
  audioUrl: z.string(),
  peaksUrl: z.string(),
  duration: z.number().nonnegative(),
});
export type TrialClip = z.infer<typeof TrialClip>;

/**
 * The ABX kind's shapes (analysis-spec §5.2): what study.yaml says of it, what a listener receives,
 * what a vote carries and what is stored. Its items are A/B items (two systems' renditions of one
 * utterance, trials/ab), so it takes the A/B item config; X is one of the two, drawn per trial.
 */
import { z } from 'zod';
import { TrialClip } from '../../contract/trials/clip';

/** study.yaml `trial:` for an ABX study. */
export const AbxSettings = z.object({ kind: z.literal('abx') }).strict();
export type AbxSettings = z.infer<typeof AbxSettings>;

/**
 * One ABX trial as a listener sees it: stimuli[0] is "A", stimuli[1] "B", stimuli[2] "X" — the
 * clip of A or of B again, played from that clip's replay (audio-manifest/served.ts): a copy of its
 * own, byte-different (a keyed ±1 LSB TPDF dither), with its own id and ETag, so neither the network
 * nor the cache tells which one X is. Its duration is still the repeated clip's (docs/blinding.md).
 */
export const AbxTrial = z.object({
  position: z.number().int().nonnegative(),
  kind: z.literal('abx'),
  practice: z.boolean(),
  stimuli: z.tuple([TrialClip, TrialClip, TrialClip]),
});
export type AbxTrial = z.infer<typeof AbxTrial>;

/** The answer an ABX vote carries, in screen terms: X is A, or X is B. */
export const AbxAnswer = z.object({ xIs: z.enum(['A', 'B']) });
export type AbxAnswer = z.infer<typeof AbxAnswer>;

/** The stored answer document, in the item's own terms: the slot offered as "A", the slot X was, the slot the listener named. */
export const AbxStored = z.object({ first: z.enum(['a', 'b']), x: z.enum(['a', 'b']), chosen: z.enum(['a', 'b']) }).strict();
export type AbxStored = z.infer<typeof AbxStored>;

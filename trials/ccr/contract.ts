/**
 * The CCR/CMOS kind's shapes (analysis-spec §5.4, ITU-T P.800 Annex E, P.808 CCR): what study.yaml
 * says of it, what a listener receives, what a vote carries and what is stored. An item is one
 * utterance heard as the reference system's rendition and a processed system's, one after the
 * other in an order balanced per item across listeners; the second is rated against the first.
 */
import { z } from 'zod';
import { TrialClip } from '../../contract/trials/clip';
import { RatingItemsConfig, UtteranceId } from '../../contract/study-items';

/** study.yaml `trial:` for a CCR study: `reference` is the system every other is compared with. */
export const CcrSettings = z
  .object({
    kind: z.literal('ccr'),
    // Missing is read as empty, so a study that leaves it out hears what is accepted, not just "required".
    reference: z.preprocess(
      (v) => v ?? '',
      z.string().min(1, 'a CCR study rates each system against a reference: name its system here (trial: { kind: ccr, reference: <a system with renditions> })'),
    ),
  })
  .strict();
export type CcrSettings = z.infer<typeof CcrSettings>;

/** One CCR trial as a listener sees it: stimuli[0] is played (and offered) first, stimuli[1] second. */
export const CcrTrial = z.object({
  position: z.number().int().nonnegative(),
  kind: z.literal('ccr'),
  practice: z.boolean(),
  stimuli: z.tuple([TrialClip, TrialClip]),
});
export type CcrTrial = z.infer<typeof CcrTrial>;

/** The answer a CCR vote carries: the second version against the first, −3 (much worse) … +3 (much better). */
export const CcrAnswer = z.object({ comparison: z.number().int().min(-3).max(3) });
export type CcrAnswer = z.infer<typeof CcrAnswer>;

/** The stored answer document: which one came first, the answer as given, and the score "processed relative to reference". */
export const CcrStored = z
  .object({ first: z.enum(['reference', 'processed']), raw: z.number().int().min(-3).max(3), score: z.number().int().min(-3).max(3) })
  .strict();
export type CcrStored = z.infer<typeof CcrStored>;

/** An utterance whose reference rendition is set against its own clearly degraded copy (a check or a practice trial). */
export const KnownReference = z.object({ utterance: UtteranceId }).strict();

/**
 * A CCR study's item config: the processed renditions, listed ({utterance, system}) or sampled as a
 * rating study samples its clips (every system in ≥ k items); each is compared with the reference
 * system's rendition of the same utterance. Checks and practice trials compare the reference
 * rendition with its degraded copy (the processed side must be rated worse).
 */
export const CCR_ITEM_CONFIG = {
  items: RatingItemsConfig,
  attentionChecks: z
    .discriminatedUnion('mode', [
      z.object({ mode: z.literal('explicit'), list: z.array(KnownReference).min(1) }).strict(),
      z.object({ mode: z.literal('degraded'), count: z.number().int().positive() }).strict(),
    ])
    .optional(),
  practice: z.array(KnownReference).default([]),
};

/**
 * The A/B preference kind's shapes (docs: ab-contract.md, analysis-spec §5.1): what study.yaml
 * says of it, what a listener receives, what a vote carries and what is stored. The lead registers
 * these in contract/trials (the Trial union, the vote body); they are defined here so the kind's
 * folder holds them.
 */
import { z } from 'zod';
import { TrialClip } from '../../contract/trials/clip';
import { ItemsConfig, SystemName, UtteranceId } from '../../contract/study-items';

/** study.yaml `trial:` for an A/B study. */
export const AbSettings = z
  .object({
    kind: z.literal('ab'),
    /** Offer "no preference" beside "A is better" and "B is better". */
    tie: z.boolean().default(false),
  })
  .strict();
export type AbSettings = z.infer<typeof AbSettings>;

/** One A/B trial as a listener sees it: two opaque renditions, stimuli[0] offered as "A", stimuli[1] as "B". */
export const AbTrial = z.object({
  /** 0-based position in this listener's sequence; the only handle a vote needs. */
  position: z.number().int().nonnegative(),
  kind: z.literal('ab'),
  /** A practice trial, answered with feedback; ordinary trials and attention checks both say false. */
  practice: z.boolean(),
  tie: z.boolean(),
  stimuli: z.tuple([TrialClip, TrialClip]),
});
export type AbTrial = z.infer<typeof AbTrial>;

/** The answer an A/B vote carries, in screen terms; 'tie' is refused (400) unless the study's tie is true. */
export const AbAnswer = z.object({ preference: z.enum(['A', 'B', 'tie']) });
export type AbAnswer = z.infer<typeof AbAnswer>;

/**
 * How one stimulus was listened to; the vote's optional core `listening` field is one per stimulus
 * in screen order (trial.stimuli), its totals equal to the vote's playCount / secondsListened /
 * heardToEnd. (A core field: the lead moves it to contract/ with the vote body.)
 */
export const StimulusListening = z.object({
  plays: z.number().int().nonnegative(),
  secondsHeard: z.number().nonnegative(),
  heardToEnd: z.boolean(),
});
export type StimulusListening = z.infer<typeof StimulusListening>;

/** The stored answer document: which system's rendition was "A", and the choice in the item's own terms. */
export const AbStored = z.object({ first: z.enum(['a', 'b']), chosen: z.enum(['a', 'b', 'tie']) }).strict();
export type AbStored = z.infer<typeof AbStored>;

/** A system's rendition of an utterance, to be set against its degraded copy (an attention check or practice trial). */
export const KnownRendition = z.object({ utterance: UtteranceId, system: SystemName }).strict();
export type KnownRendition = z.infer<typeof KnownRendition>;

/**
 * An A/B study's item config (trial: { kind: ab }): items as the caption pair's (listed pairs of
 * systems, or sampled over system pairs), but of the systems' renditions; attention checks and
 * practice trials set a rendition against its clearly degraded copy, listed or drawn (`degraded`:
 * `count` renditions among the items').
 */
export const AB_ITEM_CONFIG = {
  items: ItemsConfig,
  attentionChecks: z
    .discriminatedUnion('mode', [
      z.object({ mode: z.literal('explicit'), list: z.array(KnownRendition).min(1) }).strict(),
      z.object({ mode: z.literal('degraded'), count: z.number().int().positive() }).strict(),
    ])
    .optional(),
  practice: z.array(KnownRendition).default([]),
};

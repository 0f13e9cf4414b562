/**
 * The pieces of a study definition that trial kinds' item configs share (trials/<kind>/contract.ts
 * builds on them; contract/study-definition.ts re-exports them): names of the manifest's
 * utterances and systems, which utterances to draw from, and the caption pair's item config, which
 * A/B reuses over systems' renditions.
 */
import { z } from 'zod';

export const Text = z.string().min(1, 'must not be empty');
export const SystemName = Text.describe('a captioning system name as imported into the manifest');
export const UtteranceId = Text.describe('an utterance id from the manifest, e.g. metaset:ears/p026/emo_relief_freeform.wav');

/** Which utterances a sampler or generator may draw from; all conditions must hold. */
export const UtteranceFilter = z
  .object({
    corpus: Text.optional(),
    ids: z.array(UtteranceId).min(1).optional(),
    /** Matches on the utterance's labels JSON (text ignoring case), e.g. { source: VCTK }. */
    labels: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  })
  .strict();
export type UtteranceFilter = z.infer<typeof UtteranceFilter>;

export const ExplicitItem = z.object({ utterance: UtteranceId, systemA: SystemName, systemB: SystemName }).strict();

export const SampleConfig = z
  .object({
    mode: z.literal('sample'),
    count: z.number().int().positive(),
    /** Systems whose captions are paired; an entry ending in * matches every system with that prefix. */
    systems: z.array(SystemName).min(1),
    utterances: UtteranceFilter.optional(),
    /** Only pairs that include this system (e.g. a gold plan against each counterfactual). */
    anchorSystem: SystemName.optional(),
    /** Every system appears in at least this many items (k). */
    minPerSystem: z.number().int().nonnegative().default(1),
    /** Judge whose |Δ| the items are stratified over: a judge name, `ensemble` (mean of all judge×run rows) or `none`. */
    judge: Text.default('ensemble'),
    /** Equal-width |Δ| buckets over the observed range. */
    buckets: z.number().int().min(1).max(20).default(5),
    /** Weight of the smallest-|Δ| bucket (near-ties) relative to each other bucket; 1 = no over-sampling. */
    nearTieWeight: z.number().min(1).max(20).default(2),
    /** How many items may share one utterance. */
    maxPerUtterance: z.number().int().positive().default(1),
  })
  .strict();
export type SampleConfig = z.infer<typeof SampleConfig>;

export const ItemsConfig = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('explicit'), list: z.array(ExplicitItem).min(1) }).strict(),
  SampleConfig,
]);
export type ItemsConfig = z.infer<typeof ItemsConfig>;


/** A rating's (and a CCR's) items: listed clips of systems, or sampled (every system in ≥ k items). */
export const RatingItemsConfig = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('explicit'), list: z.array(z.object({ utterance: UtteranceId, system: SystemName }).strict()).min(1) }).strict(),
  // The pair sampler's settings that mean something for single captions: no judge strata, no anchor.
  SampleConfig.pick({ mode: true, count: true, systems: true, utterances: true, minPerSystem: true, maxPerUtterance: true }),
]);
export type RatingItemsConfig = z.infer<typeof RatingItemsConfig>;

/**
 * The describe kind's shapes (analysis-spec §5.6): what study.yaml says of it (the instruction a
 * listener writes to, the shortest and longest text taken, the caption-source system name the texts
 * become), what a listener receives, what a vote carries and what is stored. An item is one clip;
 * the answer is the listener's own text on how the speech is delivered.
 */
import { z } from 'zod';
import { TrialClip } from '../../contract/trials/clip';
import { SystemName, Text, UtteranceFilter, UtteranceId } from '../../contract/study-items';

/** The longest text a vote may carry, whatever the study says (a description, not an essay). */
export const DESCRIBE_MAX_CHARS = 5000;

const NO_INSTRUCTION = 'a describe study needs an instruction, the text the listener writes to, e.g. instruction: "Describe how the speaker says this: tone, pace, emotion."';

/** study.yaml `trial:` for a describe study. */
export const DescribeSettings = z
  .object({
    kind: z.literal('describe'),
    // Optional to zod only so that a missing one is refused below with what would be accepted (parse.ts says just "required").
    instruction: z.string().trim().optional(),
    /** The shortest text taken, in characters (trimmed). */
    minLength: z.number().int().min(1).max(DESCRIBE_MAX_CHARS).default(20),
    maxLength: z.number().int().min(1).max(DESCRIBE_MAX_CHARS).optional(),
    /** The caption-source system the texts become (`describe-captions`), e.g. `human`. */
    system: SystemName,
  })
  .strict()
  .superRefine((s, ctx) => {
    if (!s.instruction) ctx.addIssue({ code: 'custom', path: ['instruction'], message: NO_INSTRUCTION });
    if (s.maxLength !== undefined && s.maxLength < s.minLength) ctx.addIssue({ code: 'custom', path: ['maxLength'], message: `must be at least minLength (${s.minLength})` });
  });
export type DescribeSettings = z.infer<typeof DescribeSettings>;

/** One describe trial as a listener sees it: the clip, the instruction and the length bounds. */
export const DescribeTrial = z.object({
  position: z.number().int().nonnegative(),
  kind: z.literal('describe'),
  practice: z.boolean(),
  clip: TrialClip,
  instruction: z.string(),
  minLength: z.number().int(),
  maxLength: z.number().int(),
});
export type DescribeTrial = z.infer<typeof DescribeTrial>;

/** The answer a describe vote carries: the listener's text. */
export const DescribeAnswer = z.object({ description: z.string().max(DESCRIBE_MAX_CHARS) });
export type DescribeAnswer = z.infer<typeof DescribeAnswer>;

/** The stored answer document. */
export const DescribeStored = z.object({ text: z.string() }).strict();
export type DescribeStored = z.infer<typeof DescribeStored>;

/**
 * A describe study's item config: the clips, listed or sampled from the manifest (one item per
 * clip). A description has no right answer, so there are no attention checks; practice clips let a
 * listener try the box first.
 */
export const DESCRIBE_ITEM_CONFIG = {
  items: z.discriminatedUnion('mode', [
    z.object({ mode: z.literal('explicit'), list: z.array(z.object({ utterance: UtteranceId }).strict()).min(1) }).strict(),
    z.object({ mode: z.literal('sample'), count: z.number().int().positive(), utterances: UtteranceFilter.optional() }).strict(),
  ]),
  attentionChecks: z.never({ error: 'a describe study has no attention checks: a description has no right answer (leave attentionChecks out)' }).optional(),
  practice: z.array(z.object({ utterance: UtteranceId }).strict()).default([]),
};

/**
 * Every trial kind, declared once (as jsPsych declares a plugin's parameters and data): what
 * study.yaml says of it (`trial:`), what a listener receives (the trial) and what a vote carries
 * (the answer). A new kind is one file here plus one entry in each list below.
 */
import { z } from 'zod';
import { PairAnswer, PairSettings, PairTrial } from '../../trials/pair/contract';
import { RatingAnswer, RatingSettings, RatingTrial } from '../../trials/rating/contract';
import { AbAnswer, AbSettings, AbTrial } from '../../trials/ab/contract';
import { AbxAnswer, AbxSettings, AbxTrial } from '../../trials/abx/contract';
import { CcrAnswer, CcrSettings, CcrTrial } from '../../trials/ccr/contract';
import { TagsAnswer, TagsSettings, TagsTrial } from '../../trials/tags/contract';
import { MUSHRA_REFERENCE_POSITIONS, MushraAnswer, MushraSettings, MushraTrial } from '../../trials/mushra/contract';
import { DescribeAnswer, DescribeSettings, DescribeTrial } from '../../trials/describe/contract';

/** study.yaml `trial:`; absent means a caption pair study. */
export const TrialSettings = z.discriminatedUnion('kind', [PairSettings, RatingSettings, AbSettings, AbxSettings, CcrSettings, TagsSettings, MushraSettings, DescribeSettings]);
export type TrialSettings = z.infer<typeof TrialSettings>;
export type TrialKind = TrialSettings['kind'];

/**
 * The study's `trial:` as a listener receives it (the session's intro): the same settings without
 * a system's name (a CCR study's reference), which would tell the listener what they hear
 * (docs/blinding.md).
 */
export const ListenerTrialSettings = z.discriminatedUnion('kind', [PairSettings, RatingSettings, AbSettings, AbxSettings, CcrSettings.omit({ reference: true }), z.object({ kind: z.literal('tags') }).strict(), z.object({ kind: z.literal('mushra'), referencePosition: z.enum(MUSHRA_REFERENCE_POSITIONS) }).strict(), z.object({ kind: z.literal('describe') }).strict()]);
export type ListenerTrialSettings = z.infer<typeof ListenerTrialSettings>;
// A CCR study's reference system, a tags study's manifest label keys and a MUSHRA study's systems stay on the server (a MUSHRA page's layout goes): the trials carry what the listener needs.
export const listenerTrialSettings = (settings: TrialSettings): ListenerTrialSettings =>
  settings.kind === 'mushra' ? { kind: 'mushra', referencePosition: settings.referencePosition }
    : settings.kind === 'ccr' || settings.kind === 'tags' || settings.kind === 'describe' ? { kind: settings.kind } : settings;

/** One trial as a listener sees it. */
export const Trial = z.union([PairTrial, RatingTrial, AbTrial, AbxTrial, CcrTrial, TagsTrial, MushraTrial, DescribeTrial]);
export type Trial = z.infer<typeof Trial>;

/** The answer fields of every kind; a vote carries exactly one kind's (VoteBody checks which). */
export const answerFields = { ...PairAnswer.shape, ...RatingAnswer.shape, ...AbAnswer.shape, ...AbxAnswer.shape, ...CcrAnswer.shape, ...TagsAnswer.shape, ...MushraAnswer.shape, ...DescribeAnswer.shape };
export type Answer = z.infer<typeof PairAnswer> | z.infer<typeof RatingAnswer> | z.infer<typeof AbAnswer> | z.infer<typeof AbxAnswer> | z.infer<typeof CcrAnswer> | z.infer<typeof TagsAnswer> | z.infer<typeof MushraAnswer> | z.infer<typeof DescribeAnswer>;
/** Each answer field and the trial it answers, as a refused vote's message names them. */
export const answerOf: Record<keyof typeof answerFields, string> = { choice: 'a caption pair', score: 'a rating', preference: 'an A/B', xIs: 'an ABX', comparison: 'a CCR', tags: 'a tags', scores: 'a MUSHRA', description: 'a describe' };

export { AbAnswer, AbSettings, AbTrial, AbxAnswer, AbxSettings, AbxTrial, CcrAnswer, CcrSettings, CcrTrial, TagsAnswer, TagsSettings, TagsTrial, MushraAnswer, MushraSettings, MushraTrial, DescribeAnswer, DescribeSettings, DescribeTrial, PairAnswer, PairSettings, PairTrial, RatingAnswer, RatingSettings, RatingTrial };

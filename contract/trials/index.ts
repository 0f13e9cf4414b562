/**
 * Every trial kind, declared once (as jsPsych declares a plugin's parameters and data): what
 * study.yaml says of it (`trial:`), what a listener receives (the trial) and what a vote carries
 * (the answer). A new kind is one file here plus one entry in each list below.
 */
import { z } from 'zod';
import { PairAnswer, PairSettings, PairTrial } from '../../trials/pair/contract';
import { RatingAnswer, RatingSettings, RatingTrial } from '../../trials/rating/contract';

/** study.yaml `trial:`; absent means a caption pair study. */
export const TrialSettings = z.discriminatedUnion('kind', [PairSettings, RatingSettings]);
export type TrialSettings = z.infer<typeof TrialSettings>;
export type TrialKind = TrialSettings['kind'];

/** One trial as a listener sees it. */
export const Trial = z.union([PairTrial, RatingTrial]);
export type Trial = z.infer<typeof Trial>;

/** The answer fields of every kind; a vote carries exactly one kind's (VoteBody checks which). */
export const answerFields = { ...PairAnswer.shape, ...RatingAnswer.shape };
export type Answer = z.infer<typeof PairAnswer> | z.infer<typeof RatingAnswer>;

export { PairAnswer, PairSettings, PairTrial, RatingAnswer, RatingSettings, RatingTrial };

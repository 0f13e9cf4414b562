import type { Trial } from '../../../contract/listener';
import type { Answer } from '../../../contract/trials';
import type { ListeningRecord } from '../../lib/listening';
import { PairTrial, type PairResponse } from '../../../trials/pair/PairTrial';
import { RatingTrial, type RatingResponse } from '../../../trials/rating/RatingTrial';
import { ScreeningTrial } from './ScreeningTrial';
import type { TrialComponent, TrialFeedback } from './types';

/** What any trial kind answers with: its answer fields, how the clip was listened to, and the listener's comment if any. */
export type TrialResponse = ListeningRecord & Answer & { comment?: string };

type KindOf<K extends Trial['kind']> = Extract<Trial, { kind: K }>;

interface TrialKind<T extends Trial, R extends TrialResponse> {
  component: TrialComponent<T, R>;
  /** A practice trial: answered with feedback. */
  practice(trial: T): boolean;
  /** The feedback the studio's preview shows for a practice answer, from the item's expected answer. */
  check(response: R, expected: string): TrialFeedback;
}

/**
 * Trial kinds the server can send, each with its component. Attention checks arrive as an
 * ordinary trial of their kind (the listener must not be able to tell them apart); a pair's
 * practice comes as kind 'practice', a rating's as a rating with practice: true.
 */
const kinds: { [K in Trial['kind']]: TrialKind<KindOf<K>, K extends 'rating' ? RatingResponse : PairResponse> } = {
  pair: { component: PairTrial, practice: () => false, check: pairCheck },
  practice: { component: PairTrial, practice: () => true, check: pairCheck },
  rating: {
    component: RatingTrial,
    practice: (trial) => trial.practice,
    check: (response, expected) => ({ correct: String(response.score) === expected, score: Number(expected) }),
  },
};

function pairCheck(response: PairResponse, expected: string): TrialFeedback {
  return { correct: (response.choice === 1 ? 'a' : 'b') === expected };
}

/** The kind of `trial` (TypeScript cannot tie a union's index to its value, hence the one cast). */
export function trialKind(trial: Trial): TrialKind<Trial, TrialResponse> {
  return kinds[trial.kind] as unknown as TrialKind<Trial, TrialResponse>;
}

export { ScreeningTrial };
export type { PairResponse, RatingResponse };

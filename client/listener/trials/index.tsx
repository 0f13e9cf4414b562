import type { Trial } from '../../../contract/listener';
import type { Answer } from '../../../contract/trials';
import type { TrialClip } from '../../../contract/trials/clip';
import type { ListeningRecord } from '../../lib/listening';
import { PairTrial, type PairResponse } from '../../../trials/pair/PairTrial';
import { RatingTrial, type RatingResponse } from '../../../trials/rating/RatingTrial';
import { AbTrial, type AbResponse } from '../../../trials/ab/AbTrial';
import { AbxHints, AbxTrial, type AbxResponse } from '../../../trials/abx/AbxTrial';
import { CcrHints, CcrTrial, type CcrResponse } from '../../../trials/ccr/CcrTrial';
import { TagsHints, TagsTrial, type TagsResponse } from '../../../trials/tags/TagsTrial';
import { givesKnownTag } from '../../../trials/tags/contract';
import { MushraHints, MushraTrial, type MushraResponse } from '../../../trials/mushra/MushraTrial';
import { DescribeHints, DescribeTrial, type DescribeResponse } from '../../../trials/describe/DescribeTrial';
import { ScreeningTrial } from './ScreeningTrial';
import type { ClipCache } from '../../lib/media';
import type { ComponentType } from 'react';
import type { ListenerTrialSettings as TrialSettings } from '../../../contract/trials';
import { useMessages } from '../messages';
import { AbHints } from '../../../trials/ab/AbHints';
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
  /** Starts fetching what the trial plays, ahead of it (a listener can answer the next trials offline). */
  prefetch(trial: T, clips: ClipCache, audio: BaseAudioContext): void;
  /** What the studio's preview says of the item and the listener must not learn: its systems and right answer. */
  reveal(item: { kind: string; systems: string[]; expected: string | null }): string;
}

const pairReveal = (item: { kind: string; systems: string[]; expected: string | null }) =>
  item.kind === 'pair' ? `${item.systems[0]} (first) vs ${item.systems[1]}` : `right answer: ${item.expected === 'a' ? 'first' : 'second'} caption`;

type ResponseOf<K extends Trial['kind']> = K extends 'rating' ? RatingResponse : K extends 'ab' ? AbResponse : K extends 'abx' ? AbxResponse : K extends 'ccr' ? CcrResponse : K extends 'tags' ? TagsResponse : K extends 'mushra' ? MushraResponse : K extends 'describe' ? DescribeResponse : PairResponse;
const oneClip = (trial: { clip: TrialClip }, clips: ClipCache) => void clips.prepare(trial);

/**
 * Trial kinds the server can send, each with its component. Attention checks arrive as an
 * ordinary trial of their kind (the listener must not be able to tell them apart); a pair's
 * practice comes as kind 'practice', a rating's as a rating with practice: true.
 */
const kinds: { [K in Trial['kind']]: TrialKind<KindOf<K>, ResponseOf<K>> } = {
  pair: { component: PairTrial, practice: () => false, check: pairCheck, prefetch: oneClip, reveal: pairReveal },
  practice: { component: PairTrial, practice: () => true, check: pairCheck, prefetch: oneClip, reveal: pairReveal },
  rating: {
    component: RatingTrial,
    practice: (trial) => trial.practice,
    check: (response, expected) => ({ correct: String(response.score) === expected, score: Number(expected) }),
    prefetch: oneClip,
    reveal: (item) => `${item.systems[0]}${item.expected === null ? '' : ` · required score ${item.expected}`}`,
  },
  ab: {
    component: AbTrial,
    practice: (trial) => trial.practice,
    // The preview offers the item's own order: A is slot a.
    check: (response, expected) => ({ correct: response.preference.toLowerCase() === expected }),
    prefetch: (trial, clips, audio) => trial.stimuli.forEach((clip) => void clips.stimulus(clip, audio)),
    reveal: (item) => `${item.systems[0]} (A) vs ${item.systems[1]} (B)${item.expected === null ? '' : ` · right answer: ${item.expected.toUpperCase()}`}`,
  },
  abx: {
    component: AbxTrial,
    practice: (trial) => trial.practice,
    // The preview offers the item's own order (A is slot a) and X as drawn for the previewer.
    check: (response, expected) => ({ correct: response.xIs.toLowerCase() === expected }),
    prefetch: (trial, clips, audio) => trial.stimuli.forEach((clip) => void clips.stimulus(clip, audio)),
    reveal: (item) => `${item.systems[0]} (A) vs ${item.systems[1]} (B)${item.expected === null ? '' : ` · X is the degraded copy: ${item.expected.toUpperCase()}`}`,
  },
  ccr: {
    component: CcrTrial,
    practice: (trial) => trial.practice,
    // The preview plays the item's own order: the reference first, so the answer is the score.
    check: (response, expected) => ({ correct: Math.sign(response.comparison) === Math.sign(Number(expected)) }),
    prefetch: (trial, clips, audio) => trial.stimuli.forEach((clip) => void clips.stimulus(clip, audio)),
    reveal: (item) => `${item.systems[0]} (reference, 1) vs ${item.systems[1]} (2)${item.expected === null ? '' : ' · right answer: 2 is worse'}`,
  },
  tags: {
    component: TagsTrial,
    practice: (trial) => trial.practice,
    check: (response, expected) => ({ correct: givesKnownTag(Object.fromEntries(Object.entries(response.tags).map(([k, v]) => [k, typeof v === 'string' ? [v] : v])), expected) }),
    prefetch: oneClip,
    reveal: (item) => (item.expected === null ? 'one clip to label' : `certain label: ${item.expected}`),
  },
  mushra: {
    component: MushraTrial,
    practice: (trial) => trial.practice,
    // A MUSHRA page has no right answer (the post-screening judges listeners afterwards).
    check: () => ({ correct: true }),
    prefetch: (trial, clips, audio) => [trial.reference, ...trial.stimuli].forEach((clip) => void clips.stimulus(clip, audio)),
    reveal: (item) => `reference ${item.systems[0]} · ${item.systems.slice(1).join(', ')}`,
  },
  describe: {
    component: DescribeTrial,
    practice: (trial) => trial.practice,
    // A description has no right answer.
    check: () => ({ correct: true }),
    prefetch: oneClip,
    reveal: () => 'one clip to describe',
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
export type { AbResponse, AbxResponse, CcrResponse, PairResponse, RatingResponse, TagsResponse, MushraResponse, DescribeResponse };

/** The caption pair's and the rating's word on their controls (touch, or their keys). */
function ClipHints({ settings, touch }: { settings: TrialSettings; touch: boolean }) {
  const m = useMessages();
  const rating = settings.kind === 'rating' ? settings : null;
  if (touch) return <p className="muted">{rating ? m.touchHintsLongRating : m.touchHintsLong}</p>;
  return (
    <p className="muted">
      {m.keysIntro} <kbd>Space</kbd> {m.keysPlayPause},{' '}
      {rating ? (
        <>
          <kbd>1</kbd>–<kbd>{rating.scale.points}</kbd> {m.keysOr} <kbd>←</kbd>/<kbd>→</kbd> {m.keysRate}
        </>
      ) : (
        <>
          <kbd>1</kbd>/<kbd>2</kbd> {m.keysOr} <kbd>←</kbd>/<kbd>→</kbd> {m.keysChoose}
        </>
      )}
      , <kbd>Enter</kbd> {m.keysConfirm} {m.keysCanBeOff}
    </p>
  );
}

/** Each study kind's word on its controls, on the instructions screen before the first trial. */
const hints: { [K in TrialSettings['kind']]: ComponentType<{ settings: Extract<TrialSettings, { kind: K }>; touch: boolean }> } = {
  pair: ClipHints,
  rating: ClipHints,
  ab: AbHints,
  abx: AbxHints,
  ccr: CcrHints,
  tags: TagsHints,
  mushra: MushraHints,
  describe: DescribeHints,
};

export function IntroHints({ settings, touch }: { settings: TrialSettings; touch: boolean }) {
  const Hints = hints[settings.kind] as ComponentType<{ settings: TrialSettings; touch: boolean }>;
  return <Hints settings={settings} touch={touch} />;
}

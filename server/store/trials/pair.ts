/**
 * The caption pair on the server: the two captions in the listener's order (the assignment's
 * `first`), the screen choice (1 = shown first) stored as the caption chosen (a|b), and its
 * answers in votes.csv. Attention checks are served as plain pairs.
 */
import { invalidRequest } from '../../errors';
import { trialClip } from './clip';
import type { ServerTrialKind } from '.';

/** The screen choice (1 = caption shown first) in the item's own terms. */
export const chosenCaption = (first: 'a' | 'b', choice: 1 | 2): 'a' | 'b' =>
  choice === 1 ? first : first === 'a' ? 'b' : 'a';

export const pair: ServerTrialKind = {
  trial(item, position, first) {
    const [a, b] = [item.caption_a!, item.caption_b!];
    return {
      position,
      kind: item.kind === 'practice' ? 'practice' : 'pair',
      clip: trialClip(item),
      captions: first === 'a' ? [a, b] : [b, a],
    };
  },
  systems: (item) => [item.system_a, item.system_b!],
  answer(vote, first) {
    if (vote.choice === undefined) throw invalidRequest('choice', 'this trial is a caption pair: send choice (1 or 2), not score');
    return { first, chosen: chosenCaption(first!, vote.choice), score: null };
  },
  sameAnswer: (stored, vote) => vote.choice !== undefined && stored.chosen === chosenCaption(stored.first!, vote.choice),
  correct: (stored, expected) => stored.chosen === expected,
  feedback: (stored, expected) => ({ correct: stored.chosen === expected }),
  bundleItem: ({ item_id, utterance_id, system_a, system_b, attention, expected }) => ({
    item_id, utterance_id, system_a, system_b: system_b!, attention: attention === 1, expected: expected as 'a' | 'b' | null,
  }),
  answers: {
    file: 'votes.csv',
    row: ({ item_id, listener_id, first, chosen }, extra) => ({ item_id, listener_id, first: first!, chosen: chosen!, extra }),
  },
};

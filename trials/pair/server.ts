/**
 * The caption pair on the server: one clip (both stimuli play it) and the two captions in the
 * listener's order (the assignment's slot order), the screen choice (1 = shown first) stored as
 * {first, chosen} in the item's own terms (a|b), and its answers in votes.csv. Attention checks
 * are served as plain pairs.
 */
import { invalidRequest } from '../../server/errors';
import { trialClip } from '../../server/store/trials/clip';
import { checkListening } from '../../server/store/trials/listening';
import type { ServerTrialKind } from '../../server/store/trials';

/** The screen choice (1 = caption shown first) in the item's own terms. */
export const chosenCaption = (first: 'a' | 'b', choice: 1 | 2): 'a' | 'b' =>
  choice === 1 ? first : first === 'a' ? 'b' : 'a';

/** A pair's answer as stored: the caption shown first and the caption chosen, both in the item's own terms. */
type PairAnswerDocument = {
  first: 'a' | 'b';
  chosen: 'a' | 'b';
};

export const pair: ServerTrialKind = {
  trial(item, position, order) {
    const [a, b] = item.stimuli;
    const [first, second] = order![0] === a.slot ? [a, b] : [b, a];
    return {
      position,
      kind: item.kind === 'practice' ? 'practice' : 'pair',
      clip: trialClip(a),
      captions: [first.text!, second.text!],
    };
  },
  answer(vote, order): PairAnswerDocument {
    if (vote.choice === undefined) throw invalidRequest('choice', 'this trial is a caption pair: send choice (1 or 2), not score');
    checkListening(vote, 1);
    const first = order![0] as 'a' | 'b';
    return { first, chosen: chosenCaption(first, vote.choice) };
  },
  sameAnswer: (stored, vote) => vote.choice !== undefined && stored.chosen === chosenCaption((stored as PairAnswerDocument).first, vote.choice),
  correct: (stored, expected) => stored.chosen === expected,
  feedback: (stored, expected) => ({ correct: stored.chosen === expected }),
  bundleItem: ({ item_id, utterance_id, stimuli: [a, b], attention, expected }) => ({
    kind: 'pair', item_id, utterance_id, system_a: a.system!, system_b: b.system!, attention: attention === 1, expected: expected as 'a' | 'b' | null,
  }),
  answers: {
    file: 'votes.csv',
    row: ({ item_id, listener_id, answer }, _item, extra) => {
      const { first, chosen } = answer as PairAnswerDocument;
      return { item_id, listener_id, first, chosen, extra };
    },
  },
};

/**
 * The rating (MOS / ACR) on the server: one clip and, in a caption-rating study, the rated
 * system's caption (caption_a); the score stored as it is; the answers in ratings.csv
 * (analysis-spec §4), stored as {score}. An attention or practice item's expected answer is the required score
 * as text ('1'..'7'). Attention checks are served as ordinary ratings.
 */
import { RATING_POINTS } from './contract';
import { invalidRequest } from '../../server/errors';
import { trialClip } from '../../server/store/trials/clip';
import { checkListening } from '../../server/store/trials/listening';
import type { ServerTrialKind } from '../../server/store/trials';

export const rating: ServerTrialKind = {
  trial: (item, position) => ({
    position,
    kind: 'rating',
    practice: item.kind === 'practice',
    clip: trialClip(item.stimuli[0]),
    caption: item.stimuli[0].text,
  }),
  answer(vote, _order, settings) {
    const points = settings.kind === 'rating' ? settings.scale.points : RATING_POINTS[0];
    const offered = `a whole number from 1 to ${points}`;
    if (vote.score === undefined) throw invalidRequest('score', `this trial is a rating: send score (${offered}), not choice`);
    if (vote.score > points) throw invalidRequest('score', `${vote.score} is not on this study's scale: send ${offered}`);
    checkListening(vote, 1);
    return { score: vote.score };
  },
  sameAnswer: (stored, vote) => stored.score === vote.score,
  correct: (stored, expected) => stored.score === Number(expected),
  feedback: (stored, expected) => ({ correct: stored.score === Number(expected), score: Number(expected) }),
  // items.csv: the rated system in system_a, system_b empty, an attention item's required score in expected.
  bundleItem: ({ item_id, utterance_id, stimuli: [rated], attention, expected }) => ({
    kind: 'rating', item_id, utterance_id, system_a: rated.system!, system_b: '', attention: attention === 1, expected: expected === null ? null : Number(expected),
  }),
  answers: {
    file: 'ratings.csv',
    row: ({ item_id, listener_id, answer }, { stimuli: [rated], utterance_id }, extra) => ({ item_id, listener_id, system: rated.system!, utterance_id, score: answer.score as number, extra }),
  },
};

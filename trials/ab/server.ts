/**
 * The A/B preference on the server: the two renditions in the listener's order (the assignment's
 * slot order: its first slot is offered as "A"), the screen preference (A, B or tie) stored as
 * {first, chosen} in the item's own terms (a|b|tie), and its answers in votes.csv with the pair's
 * columns (analysis-spec §5.1). Attention checks (a rendition against its degraded copy) are
 * served as plain A/B trials.
 */
import type { TrialSettings } from '../../contract/trials';
import { invalidRequest } from '../../server/errors';
import { trialClip } from '../../server/store/trials/clip';
import { checkListening } from '../../server/store/trials/listening';
import type { ServerTrialKind } from '../../server/store/trials';
import type { AbAnswer, AbStored } from './contract';

const other = (slot: 'a' | 'b'): 'a' | 'b' => (slot === 'a' ? 'b' : 'a');

/** The screen preference in the item's own terms, given the slot offered as "A". */
const chosenRendition = (first: 'a' | 'b', preference: AbAnswer['preference']): AbStored['chosen'] =>
  preference === 'tie' ? 'tie' : preference === 'A' ? first : other(first);

const offersTie = (settings: TrialSettings) => settings.kind === 'ab' && settings.tie;

export const ab: ServerTrialKind = {
  trial(item, position, order, settings) {
    const [a, b] = item.stimuli;
    const [first, second] = order![0] === a.slot ? [a, b] : [b, a];
    return { position, kind: 'ab', practice: item.kind === 'practice', tie: offersTie(settings), stimuli: [trialClip(first), trialClip(second)] };
  },
  answer(vote, order, settings): AbStored {
    if (vote.preference === undefined) throw invalidRequest('preference', 'this trial is an A/B: send preference (A or B), not choice or score');
    if (vote.preference === 'tie' && !offersTie(settings)) throw invalidRequest('preference', 'this study offers no "no preference": send A or B');
    checkListening(vote, 2);
    const first = order![0] as 'a' | 'b';
    return { first, chosen: chosenRendition(first, vote.preference) };
  },
  sameAnswer: (stored, vote) => vote.preference !== undefined && stored.chosen === chosenRendition((stored as AbStored).first, vote.preference),
  correct: (stored, expected) => stored.chosen === expected,
  feedback: (stored, expected) => ({ correct: stored.chosen === expected }),
  bundleItem: ({ item_id, utterance_id, stimuli: [a, b], attention, expected }) => ({
    kind: 'ab', item_id, utterance_id, system_a: a.system!, system_b: b.system!, attention: attention === 1, expected: expected as 'a' | 'b' | null,
  }),
  answers: {
    file: 'votes.csv',
    row: ({ item_id, listener_id, answer }, _item, extra) => {
      const { first, chosen } = answer as AbStored;
      return { item_id, listener_id, first, chosen, extra };
    },
  },
};

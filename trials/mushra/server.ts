/**
 * MUSHRA on the server (ITU-R BS.1534-3, analysis-spec §5.3): a page is the open reference (the
 * hidden reference's clip, labelled; the hidden one plays from its replay) and the rated stimuli in the listener's slot order (a random
 * permutation drawn per assignment, studies/trials); the vote must carry one score 0–100 for each
 * rated stimulus and a listening record for each that shows it was played (BS.1534-3: every
 * stimulus heard and rated before the next page). The answer is stored with the screen order and
 * each slot's score, and exported as mushra.csv, one row per stimulus, with stimuli.csv.
 */
import { invalidRequest } from '../../server/errors';
import { trialClip } from '../../server/store/trials/clip';
import { checkListening } from '../../server/store/trials/listening';
import type { ServerTrialKind } from '../../server/store/trials';
import type { MushraStored } from './contract';
import { MUSHRA_COLUMNS } from './report';

export const mushra: ServerTrialKind = {
  trial(item, position, order) {
    const bySlot = (slot: string, replay = false) => trialClip(item.stimuli.find((s) => s.slot === slot)!, replay);
    // The hidden reference plays from its clip's replay, so its id and bytes are not the open reference's (docs/blinding.md).
    return { position, kind: 'mushra', practice: item.kind === 'practice', reference: bySlot('reference'), stimuli: order!.map((slot) => bySlot(slot, slot === 'reference')) };
  },
  answer(vote, order): MushraStored {
    const slots = order!;
    if (vote.scores === undefined) throw invalidRequest('scores', `this trial is a MUSHRA page: send scores (one integer 0–100 for each of its ${slots.length} stimuli, in screen order), not choice, score, preference, xIs or comparison`);
    if (vote.scores.length !== slots.length) throw invalidRequest('scores', `this page has ${slots.length} stimuli: send one score for each (${vote.scores.length} sent)`);
    checkListening(vote, slots.length);
    const unplayed = vote.listening!.flatMap((e, i) => (e.plays > 0 && e.secondsHeard > 0 ? [] : [i + 1]));
    if (unplayed.length > 0) throw invalidRequest('listening', `every stimulus is played before it is rated (BS.1534-3); not played: ${unplayed.join(', ')} (screen order)`);
    return { order: slots, scores: Object.fromEntries(slots.map((slot, i) => [slot, vote.scores![i]])) };
  },
  sameAnswer: (stored, vote) => {
    const { order, scores } = stored as MushraStored;
    return vote.scores !== undefined && vote.scores.length === order.length && order.every((slot, i) => scores[slot] === vote.scores![i]);
  },
  // No MUSHRA page has a right answer: BS.1534-3 screens listeners afterwards (rule `mushra`).
  correct: () => false,
  feedback: () => ({ correct: true }),
  bundleItem: ({ item_id, utterance_id, stimuli, attention }) => ({
    kind: 'mushra',
    item_id,
    utterance_id,
    system_a: stimuli.find((s) => s.slot === 'reference')!.system!,
    system_b: '',
    attention: attention === 1,
    expected: null,
  }),
  answers: {
    file: 'mushra.csv',
    columns: MUSHRA_COLUMNS,
    stimuli: true,
    rows: ({ item_id, listener_id, answer }, { stimuli }) => {
      const { scores } = answer as MushraStored;
      return stimuli.map((s) => ({ item_id, listener_id, system: s.system!, role: s.role, score: scores[s.slot] }));
    },
  },
};

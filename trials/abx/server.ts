/**
 * ABX on the server: the listener's slot order is [slot offered as A, slot offered as B, slot X
 * is] (drawn balanced per listener, trials/abx/plan.ts), so the trial is A's, B's and X's clips;
 * the answer "X is A" / "X is B" is stored as {first, x, chosen} in the item's own terms, and
 * exported as abx.csv (analysis-spec §5.2). A check's X is its degraded copy; its right answer is
 * that copy's side.
 */
import { invalidRequest } from '../../server/errors';
import { trialClip } from '../../server/store/trials/clip';
import { checkListening } from '../../server/store/trials/listening';
import type { ServerTrialKind } from '../../server/store/trials';
import type { AbxAnswer, AbxStored } from './contract';
import { ABX_COLUMNS } from './report';

type Slot = 'a' | 'b';
const other = (slot: Slot): Slot => (slot === 'a' ? 'b' : 'a');
const chosenSlot = (first: Slot, xIs: AbxAnswer['xIs']): Slot => (xIs === 'A' ? first : other(first));

export const abx: ServerTrialKind = {
  trial(item, position, order) {
    const bySlot = (slot: string, replay = false) => trialClip(item.stimuli.find((s) => s.slot === slot)!, replay);
    const [first, second, x] = order!;
    // X plays from its clip's replay: its own bytes, id and validators (docs/blinding.md).
    return { position, kind: 'abx', practice: item.kind === 'practice', stimuli: [bySlot(first), bySlot(second), bySlot(x, true)] };
  },
  // A check's or practice trial's X is its expected side, as listeners get it; a scored item's is its A.
  previewOrder: (slots, expected) => [...slots, expected ?? slots[0]],
  answer(vote, order): AbxStored {
    if (vote.xIs === undefined) throw invalidRequest('xIs', 'this trial is an ABX: send xIs (A or B), not choice, score or preference');
    checkListening(vote, 3);
    const first = order![0] as Slot;
    return { first, x: order![2] as Slot, chosen: chosenSlot(first, vote.xIs) };
  },
  sameAnswer: (stored, vote) => vote.xIs !== undefined && stored.chosen === chosenSlot((stored as AbxStored).first, vote.xIs),
  correct: (stored, expected) => stored.chosen === expected,
  feedback: (stored, expected) => ({ correct: stored.chosen === expected }),
  bundleItem: ({ item_id, utterance_id, stimuli: [a, b], attention, expected }) => ({
    kind: 'abx', item_id, utterance_id, system_a: a.system!, system_b: b.system!, attention: attention === 1, expected: expected as Slot | null,
  }),
  answers: {
    file: 'abx.csv',
    columns: ABX_COLUMNS,
    rows: ({ item_id, listener_id, answer }, { stimuli: [a, b] }) => {
      const { x, chosen } = answer as AbxStored;
      return [{ item_id, listener_id, system_a: a.system!, system_b: b.system!, x, chosen }];
    },
  },
};

/**
 * CCR on the server: the listener's slot order (balanced per item across listeners,
 * trials/ccr/plan.ts) is the order the two renditions are played in; the answer (the second
 * against the first, −3..+3) is stored with the order and the score "processed relative to
 * reference" (the sign correction: score = raw with the reference first, −raw otherwise), and
 * exported as ccr.csv (analysis-spec §5.4). A check's processed side is the reference's degraded
 * copy: any score below 0 is right.
 */
import { invalidRequest } from '../../server/errors';
import { trialClip } from '../../server/store/trials/clip';
import { checkListening } from '../../server/store/trials/listening';
import type { ServerTrialKind } from '../../server/store/trials';
import type { CcrStored } from './contract';
import { CCR_COLUMNS, signCorrected } from './report';

const isRight = (stored: CcrStored, expected: string) => Math.sign(stored.score) === Math.sign(Number(expected));

export const ccr: ServerTrialKind = {
  trial(item, position, order) {
    const bySlot = (slot: string) => trialClip(item.stimuli.find((s) => s.slot === slot)!);
    return { position, kind: 'ccr', practice: item.kind === 'practice', stimuli: [bySlot(order![0]), bySlot(order![1])] };
  },
  answer(vote, order): CcrStored {
    if (vote.comparison === undefined) throw invalidRequest('comparison', 'this trial is a CCR: send comparison (−3 … 3, the second against the first), not choice, score, preference or xIs');
    checkListening(vote, 2);
    const first = order![0] === 'reference' ? 'reference' : 'processed';
    return { first, raw: vote.comparison, score: signCorrected(first, vote.comparison) };
  },
  sameAnswer: (stored, vote) => vote.comparison !== undefined && stored.raw === vote.comparison,
  correct: (stored, expected) => isRight(stored as CcrStored, expected),
  feedback: (stored, expected) => ({ correct: isRight(stored as CcrStored, expected) }),
  bundleItem: ({ item_id, utterance_id, stimuli, attention, expected }) => ({
    kind: 'ccr',
    item_id,
    utterance_id,
    system_a: stimuli.find((s) => s.slot === 'processed')!.system!,
    system_b: stimuli.find((s) => s.slot === 'reference')!.system!,
    attention: attention === 1,
    expected: expected === null ? null : Number(expected),
  }),
  answers: {
    file: 'ccr.csv',
    columns: CCR_COLUMNS,
    rows: ({ item_id, listener_id, answer }, { stimuli }) => {
      const { first, raw, score } = answer as CcrStored;
      const system = (slot: string) => stimuli.find((s) => s.slot === slot)!.system!;
      return [{ item_id, listener_id, system: system('processed'), reference_system: system('reference'), first, raw, score }];
    },
  },
};

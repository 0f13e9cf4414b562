/**
 * Describe on the server (analysis-spec §5.6): the trial is the item's clip with the study's
 * instruction and length bounds; the answer is the listener's text, trimmed, refused below
 * minLength (or above maxLength) with a message saying how long it must be; stored as {text} and
 * exported as texts.csv, one row per answer.
 */
import { invalidRequest } from '../../server/errors';
import { trialClip } from '../../server/store/trials/clip';
import { checkListening } from '../../server/store/trials/listening';
import type { ServerTrialKind } from '../../server/store/trials';
import { DESCRIBE_MAX_CHARS, type DescribeStored } from './contract';
import { CLIP_SLOT } from './plan';
import { TEXT_COLUMNS } from './report';

const bounds = (settings: { kind: string; minLength?: number; maxLength?: number }) =>
  settings.kind === 'describe' ? { min: settings.minLength ?? 1, max: settings.maxLength ?? DESCRIBE_MAX_CHARS } : { min: 1, max: DESCRIBE_MAX_CHARS };

export const describe: ServerTrialKind = {
  trial(item, position, _order, settings) {
    const { min, max } = bounds(settings);
    return {
      position,
      kind: 'describe',
      practice: item.kind === 'practice',
      clip: trialClip(item.stimuli.find((s) => s.slot === CLIP_SLOT)!),
      instruction: settings.kind === 'describe' ? (settings.instruction ?? '') : '',
      minLength: min,
      maxLength: max,
    };
  },
  answer(vote, _order, settings): DescribeStored {
    if (vote.description === undefined) throw invalidRequest('description', 'this trial is a describe trial: send description (your text on how the speech is delivered), not choice, score or tags');
    checkListening(vote, 1);
    const text = vote.description.trim();
    const { min, max } = bounds(settings);
    if (text.length < min) throw invalidRequest('description', `write at least ${min} characters (${text.length} sent, spaces at either end not counted)`);
    if (text.length > max) throw invalidRequest('description', `write at most ${max} characters (${text.length} sent)`);
    return { text };
  },
  sameAnswer: (stored, vote) => vote.description !== undefined && vote.description.trim() === (stored as DescribeStored).text,
  // A description has no right answer: a practice trial takes any text of the study's length.
  correct: () => false,
  feedback: () => ({ correct: true }),
  bundleItem: ({ item_id, utterance_id, attention }) => ({
    kind: 'describe', item_id, utterance_id, system_a: '', system_b: '', attention: attention === 1, expected: null,
  }),
  answers: {
    file: 'texts.csv',
    columns: TEXT_COLUMNS,
    rows: ({ item_id, listener_id, answer }) => [{ item_id, listener_id, text: (answer as DescribeStored).text }],
  },
};

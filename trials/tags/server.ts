/**
 * Tags on the server (analysis-spec §5.5): the trial is the item's clip and the study's attributes
 * (their manifest label keys left out); the answer gives every attribute a value of its own (single:
 * one, multi: a set, [] = none of these); stored as {tags: {attribute: values}} and exported as
 * annotations.csv, one row per chosen value (an empty multi answer one row with value empty). The
 * item's kept metadata becomes metadata.csv. A check's or practice trial's answer is right when it
 * gives the certain value (`attribute=value`).
 */
import { invalidRequest } from '../../server/errors';
import { trialClip } from '../../server/store/trials/clip';
import { checkListening } from '../../server/store/trials/listening';
import type { ServerTrialKind } from '../../server/store/trials';
import { givesKnownTag, type TagsStored } from './contract';
import { tagsAttributes } from './presets';
import { CLIP_SLOT, itemMetadata } from './plan';
import { ANNOTATION_COLUMNS, METADATA_COLUMNS } from './report';

const isRight = (stored: TagsStored, expected: string) => givesKnownTag(stored.tags, expected);

export const tags: ServerTrialKind = {
  trial(item, position, _order, settings) {
    const attributes = settings.kind === 'tags' ? tagsAttributes(settings) : [];
    return {
      position,
      kind: 'tags',
      practice: item.kind === 'practice',
      clip: trialClip(item.stimuli.find((s) => s.slot === CLIP_SLOT)!),
      attributes: attributes.map((a) => ({ name: a.name, mode: a.mode, values: a.values, hints: a.hints ?? {} })),
    };
  },
  answer(vote, _order, settings): TagsStored {
    if (vote.tags === undefined) throw invalidRequest('tags', 'this trial is a tags trial: send tags ({attribute: value} for single attributes, {attribute: [values]} for multi), not choice, score or preference');
    checkListening(vote, 1);
    const attributes = settings.kind === 'tags' ? tagsAttributes(settings) : [];
    const unknown = Object.keys(vote.tags).filter((name) => !attributes.some((a) => a.name === name));
    if (unknown.length > 0) throw invalidRequest('tags', `${unknown.join(', ')}: not an attribute of this study (attributes: ${attributes.map((a) => a.name).join(', ')})`);
    const out: Record<string, string[]> = {};
    for (const a of attributes) {
      const given = vote.tags[a.name];
      if (given === undefined) throw invalidRequest('tags', `answer every attribute: ${a.name} is missing`);
      if (a.mode === 'single' && typeof given !== 'string') throw invalidRequest('tags', `${a.name} takes one value: send it as a string`);
      if (a.mode === 'multi' && !Array.isArray(given)) throw invalidRequest('tags', `${a.name} takes a set of values: send a list ([] for none of these)`);
      const values = typeof given === 'string' ? [given] : given;
      const wrong = values.filter((v) => !a.values.includes(v));
      if (wrong.length > 0) throw invalidRequest('tags', `${wrong.join(', ')}: not a value of ${a.name} (values: ${a.values.join(', ')})`);
      if (new Set(values).size !== values.length) throw invalidRequest('tags', `${a.name}: each value once`);
      // Stored in the study's order of values, whatever order the listener clicked them in.
      out[a.name] = a.values.filter((v) => values.includes(v));
    }
    return { tags: out };
  },
  sameAnswer: (stored, vote) => {
    if (vote.tags === undefined) return false;
    const s = (stored as TagsStored).tags;
    const given = vote.tags;
    return Object.keys(s).length === Object.keys(given).length &&
      Object.entries(s).every(([name, values]) => {
        const g = given[name];
        const list = typeof g === 'string' ? [g] : g ?? [];
        return list.length === values.length && list.every((v) => values.includes(v));
      });
  },
  correct: (stored, expected) => isRight(stored as TagsStored, expected),
  feedback: (stored, expected) => ({ correct: isRight(stored as TagsStored, expected) }),
  bundleItem: ({ item_id, utterance_id, attention, expected }) => ({
    kind: 'tags', item_id, utterance_id, system_a: '', system_b: '', attention: attention === 1, expected,
  }),
  answers: {
    file: 'annotations.csv',
    columns: ANNOTATION_COLUMNS,
    rows: ({ item_id, listener_id, answer }) =>
      Object.entries((answer as TagsStored).tags).flatMap(([attribute, values]) =>
        values.length === 0 ? [{ item_id, listener_id, attribute, value: '' }] : values.map((value) => ({ item_id, listener_id, attribute, value })),
      ),
    facts: {
      file: 'metadata.csv',
      columns: METADATA_COLUMNS,
      rows: ({ item_id, stimuli }) => Object.entries(itemMetadata(stimuli)).flatMap(([attribute, values]) => values.map((value) => ({ item_id, attribute, value }))),
    },
  },
};

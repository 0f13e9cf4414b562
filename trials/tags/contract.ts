/**
 * The tags kind's shapes (analysis-spec §5.5): what study.yaml says of it (the attributes a
 * listener labels each clip with, declared or named by preset), what a listener receives, what a
 * vote carries and what is stored. An item is one clip; the answer gives every attribute a value
 * (`single`) or a set of values (`multi`, possibly empty: "none of these").
 */
import { z } from 'zod';
import { TrialClip } from '../../contract/trials/clip';
import { Text, UtteranceFilter, UtteranceId } from '../../contract/study-items';
import { TAG_PRESET_ATTRIBUTES, TAG_PRESET_NAMES, type TagPreset } from './attributes';

export { givesKnownTag, knownTagText, parseKnownTag } from './attributes';

const Name = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'an attribute name is a letter, then letters, digits, _ or - (it is a column value in annotations.csv)');
// "=" separates attribute and value in an attention check's expected answer (items.csv), so no value holds one.
const Value = Text.refine((v) => !v.includes('=') && v.trim() === v, 'a value has no "=" and no leading or trailing spaces');

/** One attribute as declared: its values, listed once each, with optional hints shown beside them. */
export const TagsAttribute = z
  .object({
    name: Name,
    mode: z.enum(['single', 'multi']),
    values: z.array(Value).min(1, 'an attribute needs at least one value to choose from (values: [a, b, …])'),
    /** A short explanation shown with a value (value → text). */
    hints: z.record(z.string(), Text).optional(),
    /** The manifest label this attribute is checked against (metadata.csv), e.g. `emotion` for RAVDESS. */
    metadata: Text.optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    const seen = new Map<string, number>();
    a.values.forEach((v, i) => {
      if (seen.has(v)) ctx.addIssue({ code: 'custom', path: ['values', i], message: `"${v}" is listed twice (also value ${seen.get(v)! + 1}): list each value once` });
      seen.set(v, i);
    });
    for (const key of Object.keys(a.hints ?? {})) {
      if (!seen.has(key)) ctx.addIssue({ code: 'custom', path: ['hints', key], message: `is not a value of ${a.name} (values: ${a.values.join(', ')})` });
    }
  });
export type TagsAttribute = z.infer<typeof TagsAttribute>;

// A string checked by refine (not an enum): the union then reports this message, not "Invalid input".
const Preset = z
  .string()
  .refine((s) => (TAG_PRESET_NAMES as readonly string[]).includes(s), { message: `a preset is one of ${TAG_PRESET_NAMES.join(', ')}; or declare the attribute: { name, mode: single|multi, values: [...] }` })
  .describe(`an attribute preset: ${TAG_PRESET_NAMES.join(', ')}`);


/** study.yaml `trial:` for a tags study: attributes declared or by preset, each name once. */
export const TagsSettings = z
  .object({
    kind: z.literal('tags'),
    attributes: z
      .array(z.union([Preset, TagsAttribute]))
      .min(1, 'a tags study labels clips with at least one attribute: attributes: [ravdess-emotion] or [{ name, mode: single|multi, values: [...] }]'),
  })
  .strict()
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    s.attributes.forEach((a, i) => {
      for (const name of typeof a === 'string' ? (TAG_PRESET_ATTRIBUTES[a as TagPreset] ?? []) : [a.name]) {
        if (seen.has(name)) ctx.addIssue({ code: 'custom', path: ['attributes', i], message: `attribute "${name}" is declared twice: name each attribute once` });
        seen.add(name);
      }
    });
  });
export type TagsSettings = z.infer<typeof TagsSettings>;

/** An attribute as the listener sees it (no manifest label key). */
export const TrialAttribute = z.object({ name: z.string(), mode: z.enum(['single', 'multi']), values: z.array(z.string()), hints: z.record(z.string(), z.string()) });
export type TrialAttribute = z.infer<typeof TrialAttribute>;

/** One tags trial as a listener sees it: the clip and the attributes to label it with. */
export const TagsTrial = z.object({
  position: z.number().int().nonnegative(),
  kind: z.literal('tags'),
  practice: z.boolean(),
  clip: TrialClip,
  attributes: z.array(TrialAttribute),
});
export type TagsTrial = z.infer<typeof TagsTrial>;

/** The answer a tags vote carries: per attribute the value (single) or the values (multi, [] = none of these). */
export const TagsAnswer = z.object({ tags: z.record(z.string(), z.union([z.string(), z.array(z.string())])) });
export type TagsAnswer = z.infer<typeof TagsAnswer>;

/** The stored answer document: every attribute's chosen values (one for single, any number for multi). */
export const TagsStored = z.object({ tags: z.record(z.string(), z.array(z.string())) }).strict();
export type TagsStored = z.infer<typeof TagsStored>;

/** A clip whose value of one attribute is certain (an attention check or a practice trial): the answer must give it. */
export const KnownTag = z.object({ utterance: UtteranceId, attribute: Text, value: Text }).strict();
export type KnownTag = z.infer<typeof KnownTag>;

/**
 * A tags study's item config: the clips, listed or sampled from the manifest (one item per clip);
 * checks and practice trials are clips whose value of an attribute is certain (a clip the corpus
 * labels angry with strong intensity, say).
 */
export const TAGS_ITEM_CONFIG = {
  items: z.discriminatedUnion('mode', [
    z.object({ mode: z.literal('explicit'), list: z.array(z.object({ utterance: UtteranceId }).strict()).min(1) }).strict(),
    z.object({ mode: z.literal('sample'), count: z.number().int().positive(), utterances: UtteranceFilter.optional() }).strict(),
  ]),
  attentionChecks: z.object({ mode: z.literal('explicit'), list: z.array(KnownTag).min(1) }).strict().optional(),
  practice: z.array(KnownTag).default([]),
};


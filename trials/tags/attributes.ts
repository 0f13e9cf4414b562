/**
 * What every layer of the tags kind shares about attributes, without zod (the analysis reads it
 * too: trials/tags/report.ts): the presets' names and attribute names, and the `attribute=value`
 * form of a certain label (an attention check's expected answer).
 *
 * The attribute presets (their values in presets.ts) a tags study may name instead of declaring an attribute (analysis-spec
 * §5.5), each with the manifest label it is checked against (`metadata`: the utterance's label key
 * as the importers write it). Copied into the project so that nothing reads ../shared at run time:
 * - ravdess-emotion, ravdess-intensity: RAVDESS's file-name code tables (audio-manifest/ravdess.ts,
 *   Livingstone & Russo 2018), labels `emotion` and `intensity`;
 * - vctk-gender, vctk-accent: VCTK's speaker-info.txt (audio-manifest/vctk.ts writes the accent as
 *   the corpus spells it, two-word accents joined: "Australian English", "NewZealand English");
 * - paraspeechcaps-intrinsic: the ParaSpeechCaps-Base intrinsic tags that at least 50 annotations use
 *   in pscbase_name_to_intrinsictags.json (707 speakers), lower-cased with case variants merged
 *   ("Accented"/"accented"); the MetaSet label `intrinsic_tags`;
 * - styleinstructcaps-basic: StyleInstructCaps' basic tags as three single attributes (MetaSet labels
 *   `gender`, `pitch`, `speaking_rate`, ParaSpeechCaps' bins). Its fourth basic tag, `noise`, is
 *   left out: its bins are not all known from the material the project has.
 */
/** An attribute as study.yaml declares it (contract.ts TagsAttribute checks it), with the manifest label it is checked against. */
export interface DeclaredAttribute {
  name: string;
  mode: 'single' | 'multi';
  values: string[];
  hints?: Record<string, string>;
  metadata?: string;
}

/**
 * Each preset's attributes by name only: what study.yaml's check needs (contract.ts). Their values
 * are in presets.ts, which the listener's page never loads — corpus label words in its script would
 * tell a careful listener what the labels could be (docs/blinding.md; e2e/support/blinding.ts).
 */
export const TAG_PRESET_ATTRIBUTES = {
  'ravdess-emotion': ['emotion'],
  'ravdess-intensity': ['intensity'],
  'vctk-gender': ['gender'],
  'vctk-accent': ['accent'],
  'paraspeechcaps-intrinsic': ['intrinsic'],
  'styleinstructcaps-basic': ['gender', 'pitch', 'speaking_rate'],
} as const satisfies Record<string, readonly string[]>;

export type TagPreset = keyof typeof TAG_PRESET_ATTRIBUTES;
export const TAG_PRESET_NAMES = Object.keys(TAG_PRESET_ATTRIBUTES) as [TagPreset, ...TagPreset[]];

/** An attention item's expected answer as items.csv writes it: `attribute=value`. */
export const knownTagText = (attribute: string, value: string): string => `${attribute}=${value}`;

export function parseKnownTag(expected: string): { attribute: string; value: string } | null {
  const at = expected.indexOf('=');
  return at <= 0 ? null : { attribute: expected.slice(0, at), value: expected.slice(at + 1) };
}

/** Whether an answer gives the known value (single: is it; multi: contains it). */
export const givesKnownTag = (tags: Readonly<Record<string, readonly string[]>>, expected: string): boolean => {
  const known = parseKnownTag(expected);
  return known !== null && (tags[known.attribute] ?? []).includes(known.value);
};

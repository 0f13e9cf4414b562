/**
 * What every layer of the tags kind shares about attributes, without zod (the analysis reads it
 * too: trials/tags/report.ts): the presets, their expansion, and the `attribute=value` form of a
 * certain label (an attention check's expected answer).
 *
 * The attribute presets a tags study may name instead of declaring an attribute (analysis-spec
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

interface PresetAttribute extends Omit<DeclaredAttribute, 'values'> {
  values: readonly string[];
}

export const TAG_PRESETS = {
  'ravdess-emotion': [
    { name: 'emotion', mode: 'single', values: ['neutral', 'calm', 'happy', 'sad', 'angry', 'fearful', 'disgust', 'surprised'], metadata: 'emotion' },
  ],
  'ravdess-intensity': [{ name: 'intensity', mode: 'single', values: ['normal', 'strong'], metadata: 'intensity' }],
  'vctk-gender': [{ name: 'gender', mode: 'single', values: ['female', 'male'], metadata: 'gender' }],
  'vctk-accent': [
    {
      name: 'accent',
      mode: 'single',
      values: ['American', 'Australian English', 'Canadian', 'English', 'Indian', 'Irish', 'NewZealand English', 'NorthernIrish', 'Scottish', 'SouthAfrican', 'Welsh'],
      metadata: 'accent',
    },
  ],
  'paraspeechcaps-intrinsic': [
    {
      name: 'intrinsic',
      mode: 'multi',
      values: [
        'flowing', 'measured', 'deep', 'crisp', 'fast', 'loud', 'nasal', 'booming', 'authoritative', 'silky', 'enunciated',
        'husky', 'hesitant', 'raspy', 'soft', 'singsong', 'shrill', 'slurred', 'accented', 'stammering', 'slow', 'monotonous',
        'punctuated', 'vocal-fry', 'pitchy', 'guttural', 'staccato', 'mellow', 'hushed', 'smooth', 'lisp', 'casual',
      ],
      metadata: 'intrinsic_tags',
    },
  ],
  'styleinstructcaps-basic': [
    { name: 'gender', mode: 'single', values: ['female', 'male'], metadata: 'gender' },
    { name: 'pitch', mode: 'single', values: ['low-pitched', 'medium-pitched', 'high-pitched'], metadata: 'pitch' },
    { name: 'speaking_rate', mode: 'single', values: ['slow speed', 'measured speed', 'fast speed'], metadata: 'speaking_rate' },
  ],
} as const satisfies Record<string, readonly PresetAttribute[]>;

export type TagPreset = keyof typeof TAG_PRESETS;
export const TAG_PRESET_NAMES = Object.keys(TAG_PRESETS) as [TagPreset, ...TagPreset[]];

/** The study's attributes with every preset expanded, in the order declared. */
export function expandAttributes(attributes: readonly (TagPreset | DeclaredAttribute)[]): DeclaredAttribute[] {
  return attributes.flatMap((a) => (typeof a === 'string' ? TAG_PRESETS[a].map((p) => ({ ...p, values: [...p.values] })) : [a]));
}

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

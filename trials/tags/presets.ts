/**
 * The tags presets' attributes with their values (their sources: attributes.ts), and a study's
 * attributes with its presets expanded. Read by the build, the server and the analysis; never by
 * the listener's page (its trials carry the study's attributes as they are asked).
 */
import type { DeclaredAttribute, TagPreset } from './attributes';

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
} as const satisfies Record<TagPreset, readonly PresetAttribute[]>;

/** The study's attributes with every preset expanded, in the order declared. */
export function expandAttributes(attributes: readonly (TagPreset | DeclaredAttribute)[]): DeclaredAttribute[] {
  return attributes.flatMap((a) => (typeof a === 'string' ? TAG_PRESETS[a].map((p) => ({ ...p, values: [...p.values] })) : [a]));
}


/** A tags study's attributes with every preset expanded, in the order declared. */
export const tagsAttributes = (settings: { attributes: readonly (string | DeclaredAttribute)[] }): DeclaredAttribute[] =>
  expandAttributes(settings.attributes as (TagPreset | DeclaredAttribute)[]);

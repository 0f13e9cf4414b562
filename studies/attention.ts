/**
 * Attention checks: a clip paired with its true description and a copy in which one salient
 * attribute (gender, emotion, accent, speaking rate) is inverted, so the right answer is
 * known without asking anyone. And the order a listener meets trials in: practice first, then
 * the study's items shuffled, with attention checks spread out — never first, never last,
 * never two in a row.
 */
import type { AttentionAttribute } from '../contract/study-definition';
import type { StudyRandom } from '../analysis/random';

export type Labels = Record<string, unknown>;

export interface SalientAttributes {
  gender?: 'female' | 'male';
  emotion?: string;
  accent?: string;
  rate?: 'slow' | 'fast' | 'measured';
}

/** Emotion words and the clearly different emotion an attentive listener would reject. */
const EMOTION_OPPOSITE: Record<string, string> = {
  neutral: 'angry',
  calm: 'angry',
  happy: 'sad',
  sad: 'happy',
  angry: 'calm',
  fearful: 'calm',
  disgust: 'cheerful',
  surprised: 'bored',
  cheerful: 'sad',
  enthusiastic: 'bored',
  bored: 'enthusiastic',
  anxious: 'relaxed',
  relaxed: 'anxious',
};

function field(labels: Labels, names: string[]): unknown {
  for (const [key, value] of Object.entries(labels)) {
    if (names.includes(key.toLowerCase())) return value;
  }
  return undefined;
}

function tags(labels: Labels): string[] {
  const out: string[] = [];
  for (const key of ['situational_tags', 'basic_tags', 'intrinsic_tags', 'tags']) {
    const v = labels[key];
    if (Array.isArray(v)) out.push(...v.filter((t): t is string => typeof t === 'string').map((t) => t.toLowerCase()));
  }
  return out;
}

/**
 * Reads the attributes an attention check can invert from an utterance's or clip's labels JSON,
 * whatever importer wrote it (RAVDESS emotion/sex, VCTK gender/accent, MetaSet gender/accent/
 * speaking_rate/tags).
 */
export function salientAttributes(labels: Labels): SalientAttributes {
  const out: SalientAttributes = {};
  const gender = String(field(labels, ['gender', 'sex', 'actor_sex', 'actorsex', 'speaker_gender']) ?? '').toLowerCase();
  if (/^(f|female|woman)$/.test(gender)) out.gender = 'female';
  else if (/^(m|male|man)$/.test(gender)) out.gender = 'male';

  const emotion = String(field(labels, ['emotion']) ?? '').toLowerCase();
  if (emotion in EMOTION_OPPOSITE) out.emotion = emotion;
  else {
    const tagged = tags(labels).find((t) => t in EMOTION_OPPOSITE);
    if (tagged) out.emotion = tagged;
  }

  const accent = field(labels, ['accent', 'accents']);
  if (typeof accent === 'string' && /^[a-z][a-z -]{1,30}$/i.test(accent.trim()) && !/^(unknown|none|n\/a)$/i.test(accent.trim())) {
    out.accent = accent.trim().toLowerCase();
  }

  const rate = String(field(labels, ['speaking_rate', 'speakingrate', 'rate']) ?? '').toLowerCase();
  if (/slow/.test(rate)) out.rate = 'slow';
  else if (/fast|quick|rapid/.test(rate)) out.rate = 'fast';
  else if (/measured|moderate|normal|medium/.test(rate)) out.rate = 'measured';
  return out;
}

function oppositeValue(attribute: AttentionAttribute, value: string): string {
  switch (attribute) {
    case 'gender':
      return value === 'female' ? 'male' : 'female';
    case 'emotion':
      return EMOTION_OPPOSITE[value];
    case 'accent':
      return value.includes('american') ? 'scottish' : 'american';
    case 'rate':
      return value === 'fast' ? 'slow' : 'fast';
  }
}

/** Word substitutions that invert an attribute inside free text (both directions listed). */
function substitutions(attribute: AttentionAttribute, value: string, opposite: string): [string, string][] {
  switch (attribute) {
    case 'gender':
      return value === 'female'
        ? [['female', 'male'], ['woman', 'man'], ['women', 'men'], ['girl', 'boy'], ['she', 'he'], ['herself', 'himself'], ['her', 'his']]
        : [['male', 'female'], ['man', 'woman'], ['men', 'women'], ['boy', 'girl'], ['he', 'she'], ['himself', 'herself'], ['his', 'her'], ['him', 'her']];
    case 'rate':
      return value === 'slow'
        ? [['slow', 'fast'], ['slowly', 'quickly'], ['leisurely', 'hurried'], ['unhurried', 'hurried']]
        : value === 'fast'
          ? [['fast', 'slow'], ['quickly', 'slowly'], ['rapid', 'slow'], ['rapidly', 'slowly'], ['hurried', 'unhurried']]
          : [['measured', 'hurried'], ['moderate', 'very fast'], ['steady', 'hurried']];
    case 'emotion':
    case 'accent':
      return [[value, opposite]];
  }
}

function matchCase(template: string, word: string): string {
  if (template === template.toUpperCase() && template.length > 1) return word.toUpperCase();
  if (template[0] === template[0].toUpperCase()) return word[0].toUpperCase() + word.slice(1);
  return word;
}

/** The text with the attribute inverted, or null when the text never mentions it. */
export function invertInText(text: string, attribute: AttentionAttribute, value: string): string | null {
  const opposite = oppositeValue(attribute, value);
  const table = new Map(substitutions(attribute, value, opposite).map(([from, to]) => [from.toLowerCase(), to]));
  const pattern = new RegExp(`\\b(${[...table.keys()].map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`, 'gi');
  let changed = false;
  const out = text.replace(pattern, (found) => {
    changed = true;
    return matchCase(found, table.get(found.toLowerCase())!);
  });
  return changed ? out : null;
}

/** A plain description rendered from labels, e.g. "A female speaker with a scottish accent talks in a calm tone at a slow pace." */
export function describe(attributes: SalientAttributes): string {
  const parts = [`A ${attributes.gender ?? ''} speaker`.replace(/\s+/g, ' ')];
  if (attributes.accent) parts.push(`with ${/^[aeiou]/.test(attributes.accent) ? 'an' : 'a'} ${attributes.accent} accent`);
  parts.push('talks');
  if (attributes.emotion) parts.push(`in ${/^[aeiou]/.test(attributes.emotion) ? 'an' : 'a'} ${attributes.emotion} tone`);
  if (attributes.rate) parts.push(`at a ${attributes.rate === 'measured' ? 'measured' : attributes.rate} pace`);
  return `${parts.join(' ')}.`;
}

export interface AttentionCandidate {
  utteranceId: string;
  labels: Labels;
  /** The clip's true description (e.g. the oracle caption), if there is one. */
  description: string | null;
}

export interface GeneratedCheck {
  utteranceId: string;
  attribute: AttentionAttribute;
  correct: string;
  wrong: string;
}

/**
 * `count` checks over distinct utterances, attributes taken in turn so no single attribute
 * dominates. The caller passes only the utterances a check may use (never a scored item's or a
 * practice trial's: studies/build.ts).
 * No check shows a text in `captions` (the study's pair captions): a description the listener
 * also meets in a pair trial would mark that trial's caption as the right one, and the check as
 * a check. Such a description is replaced by one rendered from the clip's labels.
 */
export function generateAttentionChecks(
  candidates: readonly AttentionCandidate[],
  options: { count: number; attributes: readonly AttentionAttribute[]; captions?: ReadonlySet<string> },
  random: StudyRandom,
): GeneratedCheck[] {
  const fresh = (check: GeneratedCheck) => !options.captions?.has(check.correct) && !options.captions?.has(check.wrong);
  const ordered = random.shuffle(candidates);
  const attributes = random.shuffle(options.attributes);
  const used = new Set<string>();
  const checks: GeneratedCheck[] = [];
  for (let i = 0; checks.length < options.count; i++) {
    let made: GeneratedCheck | undefined;
    for (let t = 0; t < attributes.length && !made; t++) {
      const attribute = attributes[(i + t) % attributes.length];
      for (const c of ordered) {
        if (used.has(c.utteranceId)) continue;
        const attrs = salientAttributes(c.labels);
        const value = attrs[attribute];
        if (value === undefined) continue;
        const fromText = c.description ? invertInText(c.description, attribute, value) : null;
        const rendered = { utteranceId: c.utteranceId, attribute, correct: describe(attrs), wrong: describe({ ...attrs, [attribute]: oppositeValue(attribute, value) }) };
        made = [fromText ? { utteranceId: c.utteranceId, attribute, correct: c.description!, wrong: fromText } : null, rendered].find(
          (check): check is GeneratedCheck => check !== null && fresh(check),
        );
        if (made) break;
      }
    }
    if (!made) {
      throw new Error(
        `only ${checks.length} of ${options.count} attention checks could be generated: no further utterance has a ${options.attributes.join('/')} label`,
      );
    }
    used.add(made.utteranceId);
    checks.push(made);
  }
  return checks;
}

/**
 * One listener's trial order: practice trials first (in their given order), then the main
 * trials shuffled, with the attention checks dropped one each into distinct gaps between main
 * trials — one gap drawn from each of equal stretches of the session so they are spread out,
 * and never before the first or after the last main trial.
 */
export function orderTrials<T>(parts: { practice: readonly T[]; main: readonly T[]; attention: readonly T[] }, random: StudyRandom): T[] {
  const main = random.shuffle(parts.main);
  const checks = random.shuffle(parts.attention);
  const gaps = main.length - 1;
  if (checks.length > 0 && checks.length > gaps) {
    throw new Error(
      `${checks.length} attention checks need at least ${checks.length + 1} other trials to sit between (not first, not last, never two in a row); there are ${main.length}`,
    );
  }
  const chosenGaps = new Map<number, T>();
  checks.forEach((check, j) => {
    const from = Math.floor((j * gaps) / checks.length) + 1;
    const to = Math.floor(((j + 1) * gaps) / checks.length);
    chosenGaps.set(from + random.int(to - from + 1), check);
  });
  const out: T[] = [...parts.practice];
  main.forEach((trial, i) => {
    const check = chosenGaps.get(i);
    if (check !== undefined) out.push(check);
    out.push(trial);
  });
  return out;
}

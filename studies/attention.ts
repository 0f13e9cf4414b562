/**
 * Attention checks: a clip paired with its own caption that states one salient attribute
 * (gender, emotion, accent, speaking rate) as labelled and another clip's caption that states a
 * clearly different value, so the right answer is known without asking anyone and the text does
 * not give it away. And the order a listener meets trials in: practice first, then
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
 * Reads the attributes an attention check can be about from an utterance's or clip's labels JSON,
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

/** Words that state each attribute's values in free text (a caption, a plan description). */
const VALUE_WORDS: Partial<Record<AttentionAttribute, Record<string, string[]>>> = {
  gender: {
    female: ['female', 'woman', 'women', 'girl', 'she', 'herself', 'her', 'feminine', 'lady'],
    male: ['male', 'man', 'men', 'boy', 'he', 'himself', 'his', 'him', 'masculine', 'gentleman'],
  },
  rate: {
    slow: ['slow', 'slowly', 'leisurely', 'unhurried'],
    fast: ['fast', 'quick', 'quickly', 'rapid', 'rapidly', 'hurried', 'rushed'],
    measured: ['measured', 'moderate', 'steady'],
  },
  emotion: Object.fromEntries(
    Object.keys(EMOTION_OPPOSITE).map((e) => [e, [e, `${e}ly`, `${e.replace(/y$/, 'i')}ly`, ...(e === 'disgust' ? ['disgusted'] : [])]]),
  ),
};

/**
 * The values of `attribute` a text states, by whole words ("a woman", "she" → female; "quickly" →
 * fast). Accents have no fixed list: `accents` are the accent labels of the clips in play.
 */
export function statedValues(text: string, attribute: AttentionAttribute, accents: ReadonlySet<string> = new Set()): Set<string> {
  const words = new Set(text.toLowerCase().match(/[a-z]+/g) ?? []);
  const table = VALUE_WORDS[attribute] ?? Object.fromEntries([...accents].map((a) => [a, [a]]));
  return new Set(Object.entries(table).flatMap(([value, list]) => (list.some((w) => words.has(w)) ? [value] : [])));
}

/** Whether an attentive listener tells `a` from `b` at once: the other gender, slow against fast, an unrelated emotion, another accent. */
function clearlyDiffers(attribute: AttentionAttribute, a: string, b: string): boolean {
  if (a === b) return false;
  if (attribute === 'rate') return a !== 'measured' && b !== 'measured';
  if (attribute === 'emotion') return !(['neutral', 'calm', 'relaxed'].includes(a) && ['neutral', 'calm', 'relaxed'].includes(b));
  return true;
}

export interface AttentionCandidate {
  utteranceId: string;
  labels: Labels;
  /** The clip's captions of the study's task by the systems its items show. */
  captions: readonly { system: string; text: string }[];
}

export interface GeneratedCheck {
  utteranceId: string;
  attribute: AttentionAttribute;
  /** A caption of this clip that states its labelled value (null when the trial shows one side only). */
  correct: string | null;
  /** A caption that states a clearly different value, and not this clip's: this clip's own by a system that got it wrong, or the donor clip's. */
  wrong: string;
  /** The clip the wrong caption is of (this clip when a system got it wrong): kept out of the scored sample like the check's own clip. */
  donorUtteranceId: string;
}

/**
 * `count` checks that read like the study's items: both sides are real captions, by the systems
 * the items show — the check clip's own caption that states its labelled value (gender, emotion,
 * accent, rate) against a caption that states a clearly different one: preferably the clip's own
 * caption by a system that got it wrong (the form of an item exactly), else another clip's
 * caption that states that clip's labelled value. So nothing in the text tells a check from an item, or the right side
 * from the wrong one; only listening does. Attributes are taken in turn so none dominates.
 *
 * Every text shown is used once, and belongs only to the checks' own and donor clips, which the
 * caller keeps out of the sample (studies/build.ts): a text met again in a scored trial would mark
 * the check. Donors are taken from the clips already in use where possible (a check's clip
 * donates to another check through a second caption), so checks cost few clips. `sides: 1`
 * (a rating shows only the wrong caption) needs no correct caption. `elsewhere`: texts of captions
 * outside the candidates, which may be shown anywhere.
 */
export function generateAttentionChecks(
  candidates: readonly AttentionCandidate[],
  options: { count: number; attributes: readonly AttentionAttribute[]; sides?: 1 | 2; elsewhere?: ReadonlySet<string> },
  random: StudyRandom,
): GeneratedCheck[] {
  const sides = options.sides ?? 2;
  const accents = new Set(candidates.flatMap((c) => salientAttributes(c.labels).accent ?? []));
  const owners = new Map<string, Set<string>>();
  for (const c of candidates) for (const { text } of c.captions) owners.set(text, (owners.get(text) ?? new Set()).add(c.utteranceId));
  // In id order first: the draw depends on the seed only, not on the order clips were imported in.
  const ordered = random.shuffle([...candidates].sort((a, b) => (a.utteranceId < b.utteranceId ? -1 : a.utteranceId > b.utteranceId ? 1 : 0)));
  const attributes = random.shuffle(options.attributes);
  const reserved = new Set<string>();
  const checked = new Set<string>();
  const usedTexts = new Set<string>();
  const free = (text: string, ...also: string[]) =>
    !usedTexts.has(text) && !options.elsewhere?.has(text) && [...owners.get(text)!].every((u) => reserved.has(u) || also.includes(u));
  /** The candidate's captions that state exactly `value` of the attribute. */
  const stating = (c: AttentionCandidate, attribute: AttentionAttribute, value: string) =>
    c.captions.filter(({ text }) => {
      const said = statedValues(text, attribute, accents);
      return said.size === 1 && said.has(value);
    });
  // Clips already in use first: a donor that becomes a check (or a check that donates) costs no clip.
  const byUse = () => [...ordered.filter((c) => reserved.has(c.utteranceId)), ...ordered.filter((c) => !reserved.has(c.utteranceId))];
  // Each system's captions serve as check sides about equally often, so no system's style marks a check.
  const systemUses = new Map<string, number>();
  const leastUsed = <T extends { system: string }>(options: readonly T[]): T => {
    const fewest = Math.min(...options.map((o) => systemUses.get(o.system) ?? 0));
    const least = options.filter((o) => (systemUses.get(o.system) ?? 0) === fewest);
    return least[random.int(least.length)];
  };
  const rightOf = (rights: readonly ({ system: string; text: string } | null)[]) => (rights[0] === null ? null : leastUsed(rights as { system: string; text: string }[]));
  const checks: GeneratedCheck[] = [];
  for (let i = 0; checks.length < options.count; i++) {
    let made: GeneratedCheck | undefined;
    for (let t = 0; t < attributes.length && !made; t++) {
      const attribute = attributes[(i + t) % attributes.length];
      for (const c of byUse()) {
        if (checked.has(c.utteranceId)) continue;
        const value = salientAttributes(c.labels)[attribute];
        if (value === undefined) continue;
        const rights = sides === 2 ? stating(c, attribute, value).filter((r) => free(r.text, c.utteranceId)) : [null];
        if (rights.length === 0) continue;
        // The clip's own caption by a system that got the attribute wrong first: that reads exactly like an item.
        for (const d of [c, ...byUse().filter((x) => x !== c)]) {
          const other = salientAttributes(d.labels)[attribute];
          const wrongs = (
            d === c
              ? c.captions.filter(({ text }) => {
                  const said = [...statedValues(text, attribute, accents)];
                  return said.length === 1 && clearlyDiffers(attribute, value, said[0]);
                })
              : other === undefined || !clearlyDiffers(attribute, value, other)
                ? []
                : stating(d, attribute, other)
          ).filter((w) => free(w.text, c.utteranceId, d.utteranceId));
          if (wrongs.length === 0) continue;
          const right = rightOf(rights);
          // Like an item, the two sides are by different systems where the clips allow.
          const apart = wrongs.filter((w) => right === null || (w.system !== right.system && w.text !== right.text));
          if (apart.length === 0 && wrongs.every((w) => w.text === right?.text)) continue;
          const wrong = leastUsed(apart.length > 0 ? apart : wrongs.filter((w) => w.text !== right?.text));
          made = { utteranceId: c.utteranceId, attribute, correct: right?.text ?? null, wrong: wrong.text, donorUtteranceId: d.utteranceId };
          for (const side of [right, wrong]) if (side !== null) systemUses.set(side.system, (systemUses.get(side.system) ?? 0) + 1);
          break;
        }
        if (made) break;
      }
    }
    if (!made) {
      throw new Error(
        `only ${checks.length} of ${options.count} attention checks could be generated: no further clip has a ${options.attributes.join('/')} label that ${sides === 2 ? 'one of its captions states, against' : 'differs from'} another clip's caption stating a clearly different value`,
      );
    }
    checked.add(made.utteranceId);
    reserved.add(made.utteranceId).add(made.donorUtteranceId);
    for (const text of [made.correct, made.wrong]) if (text !== null) usedTexts.add(text);
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

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

/**
 * How a check's texts were found: `item` — both sides are one clip's captions by two systems that
 * disagree on the attribute (the shown clip's own, or another clip's pair shown with a clip whose
 * label one side states), so the check's text is an item's text; `cross` — the clip's own caption
 * against another clip's, the fallback when the corpus has no such disagreements to draw on.
 * A one-sided (rating) check is `item` when the wrong caption is the clip's own.
 */
export type CheckForm = 'item' | 'cross';

export interface GeneratedCheck {
  utteranceId: string;
  attribute: AttentionAttribute;
  /** A caption that states this clip's labelled value and contradicts none of its labels (null when the trial shows one side only). */
  correct: string | null;
  /** A caption that states a clearly different value. */
  wrong: string;
  /** The clip whose captions the sides are (this clip when they are its own): kept out of the scored sample like the check's own clip. */
  donorUtteranceId: string;
  form: CheckForm;
}

interface Caption {
  clip: AttentionCandidate;
  system: string;
  text: string;
  words: Set<string>;
  length: number;
  /** The one value it states of each attribute that it states exactly one of. */
  states: Partial<Record<AttentionAttribute, string>>;
  /** Attributes it states two or more values of (unusable either way). */
  mixed: Set<AttentionAttribute>;
}

interface Option {
  clip: AttentionCandidate;
  donor: AttentionCandidate;
  attribute: AttentionAttribute;
  right: Caption | null;
  wrong: Caption;
  form: CheckForm;
  /** 0–1: how much the wrong side reads like what its system says of the shown clip (cross form). */
  likeness: number;
}

const ATTRIBUTES: readonly AttentionAttribute[] = ['gender', 'emotion', 'accent', 'rate'];
/** Clips a check's texts are looked for among (a corpus may have thousands; the draw is seeded, so any window is fair). */
const WINDOW = 240;
/** The cross-form wrong sides kept per right side: the likest ones. */
const CROSS_KEEP = 6;

const jaccard = (a: ReadonlySet<string>, b: ReadonlySet<string>) => {
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / Math.max(a.size + b.size - shared, 1);
};

/**
 * `count` checks that read like the study's items, so that neither a check nor its right side can
 * be told from the text alone (issue 20 item 8; measured in studies/templates.test.ts with
 * studies/text-classifier.ts). Every side is a real caption, by the systems the items show:
 *
 * 1. best, an item's text: one clip's captions by two systems that disagree clearly on an
 *    attribute (the other gender, slow against fast, an unrelated emotion, another accent) — shown
 *    with that clip, the side its label agrees with is right; shown with another clip whose label
 *    one side states (and which that side contradicts in nothing), that side is right. Using both
 *    ways keeps the side a system got right, or the longer one, right in about half the checks;
 * 2. else the clip's own caption that states its labelled value against another clip's caption by
 *    another system that states a clearly different one, the donor picked so its caption reads like
 *    what that system says of the shown clip (all but the attribute alike).
 *
 * Across checks the choice balances which system is right, whether the right side is the longer,
 * which value the right side states, and the attributes, and it prefers clips already in use (a
 * donor that is also a check costs no clip). Every text shown is used once, and belongs only to
 * the checks' own and donor clips, which the caller keeps out of the sample (studies/build.ts): a
 * text met again in a scored trial would mark the check. `sides: 1` (a rating shows only the wrong
 * caption) needs no right side. `elsewhere`: texts of captions outside the candidates, which may be
 * shown anywhere.
 */
export function generateAttentionChecks(
  candidates: readonly AttentionCandidate[],
  options: {
    count: number;
    attributes: readonly AttentionAttribute[];
    sides?: 1 | 2;
    elsewhere?: ReadonlySet<string>;
    /** At most `clips` of the clips in `within` (the sample's pool) may be kept out of the sample for checks. */
    budget?: { within: ReadonlySet<string>; clips: number };
  },
  random: StudyRandom,
): GeneratedCheck[] {
  const sides = options.sides ?? 2;
  const accents = new Set(candidates.flatMap((c) => salientAttributes(c.labels).accent ?? []));
  const owners = new Map<string, Set<string>>();
  for (const c of candidates) for (const { text } of c.captions) owners.set(text, (owners.get(text) ?? new Set()).add(c.utteranceId));
  // In id order first: the draw depends on the seed only, not on the order clips were imported in.
  const ordered = random.shuffle([...candidates].sort((a, b) => (a.utteranceId < b.utteranceId ? -1 : a.utteranceId > b.utteranceId ? 1 : 0))).slice(0, WINDOW);
  const labelsOf = new Map(ordered.map((c) => [c, salientAttributes(c.labels)]));
  const captionsOf = new Map(
    ordered.map((clip) => [
      clip,
      clip.captions.map(({ system, text }): Caption => {
        const states: Caption['states'] = {};
        const mixed = new Set<AttentionAttribute>();
        for (const attribute of ATTRIBUTES) {
          const said = [...statedValues(text, attribute, accents)];
          if (said.length === 1) states[attribute] = said[0];
          else if (said.length > 1) mixed.add(attribute);
        }
        const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
        return { clip, system, text, words: new Set(words), length: words.length, states, mixed };
      }),
    ]),
  );
  /**
   * Right against `wrong` for the clip: states its value of the attribute, and on every other
   * labelled attribute is no worse (what it states wrongly, `wrong` states the same way) — so the
   * side an attentive listener picks is never in doubt.
   */
  const rightFor = (caption: Caption, wrong: Caption | null, clip: AttentionCandidate, attribute: AttentionAttribute) => {
    const labels = labelsOf.get(clip)!;
    if (labels[attribute] === undefined || caption.states[attribute] !== labels[attribute]) return false;
    return ATTRIBUTES.every((b) => {
      if (b === attribute || labels[b] === undefined || (!caption.mixed.has(b) && (caption.states[b] ?? labels[b]) === labels[b])) return true;
      return wrong !== null && !caption.mixed.has(b) && wrong.states[b] === caption.states[b];
    });
  };
  const wrongFor = (caption: Caption, clip: AttentionCandidate, attribute: AttentionAttribute) => {
    const value = labelsOf.get(clip)![attribute];
    const said = caption.states[attribute];
    return value !== undefined && said !== undefined && clearlyDiffers(attribute, value, said);
  };

  const wanted = options.attributes.filter((a) => ATTRIBUTES.includes(a));
  const found: Option[] = [];
  for (const donor of ordered) {
    const own = captionsOf.get(donor)!;
    for (const attribute of wanted) {
      // An item's text: two of the donor's captions that disagree clearly, shown with any clip one side is right for.
      for (const p of own) {
        for (const q of own) {
          if (sides === 2 && (p.system === q.system || p.text === q.text || p.states[attribute] === undefined || q.states[attribute] === undefined)) continue;
          if (sides === 2 && !clearlyDiffers(attribute, p.states[attribute]!, q.states[attribute]!)) continue;
          if (sides === 1 && p !== q) continue;
          for (const clip of sides === 2 ? ordered : [donor]) {
            if (sides === 2 ? rightFor(p, q, clip, attribute) && wrongFor(q, clip, attribute) : wrongFor(q, clip, attribute)) {
              found.push({ clip, donor, attribute, right: sides === 2 ? p : null, wrong: q, form: 'item', likeness: 1 });
            }
          }
        }
      }
    }
  }
  // The fallback: the clip's own right caption against the likest wrong caption of another clip.
  for (const clip of ordered) {
    const own = captionsOf.get(clip)!;
    for (const attribute of wanted) {
      const rights: (Caption | null)[] = sides === 2 ? own.filter((p) => p.states[attribute] === labelsOf.get(clip)![attribute]) : [null];
      for (const right of rights) {
        const wrongs: Option[] = [];
        for (const donor of ordered) {
          if (donor === clip) continue;
          for (const q of captionsOf.get(donor)!) {
            if ((right !== null && (q.system === right.system || !rightFor(right, q, clip, attribute))) || !wrongFor(q, clip, attribute)) continue;
            const same = own.find((c) => c.system === q.system);
            wrongs.push({ clip, donor, attribute, right, wrong: q, form: 'cross', likeness: same ? jaccard(q.words, same.words) : 0 });
          }
        }
        found.push(...wrongs.sort((x, y) => y.likeness - x.likeness).slice(0, CROSS_KEEP));
      }
    }
  }

  /** What a check adds to each lean: which system is right, which value the right side states, whether it is the longer. */
  const moves = (o: Option): [string, number][] =>
    o.right === null
      ? [[`system ${o.wrong.system}`, 1]]
      : [
          [`system ${o.right.system}`, 1], [`system ${o.wrong.system}`, -1],
          [`value ${o.right.states[o.attribute]}`, 1], [`value ${o.wrong.states[o.attribute]}`, -1],
          ['longer', Math.sign(o.right.length - o.wrong.length)],
        ];
  // What does not change from check to check, once per option: its form's cost, its moves and a seeded tie-break.
  const leanIndex = new Map<string, number>();
  const fixed = found.map((o) => ({
    option: o,
    // One side shown reads like a rating item whoever's caption it is; two sides are best an item's text.
    base: (o.right === null || o.form === 'item' ? 0 : 4 + 4 * (1 - o.likeness)) + random.next() * 0.01,
    moves: moves(o).map(([key, by]): [number, number] => {
      if (!leanIndex.has(key)) leanIndex.set(key, leanIndex.size);
      return [leanIndex.get(key)!, by];
    }),
  }));
  const budget = options.budget;
  const inBudget = (u: string) => budget?.within.has(u) ?? false;
  /**
   * One greedy draw of the checks, or null when it runs out. `strict`: no check keeps more than one
   * new clip of the sample's out of it — the second try when a tight budget made the first run out.
   */
  const draw = (strict: boolean): GeneratedCheck[] | null => {
    const reserved = new Set<string>();
    const checked = new Set<string>();
    const usedTexts = new Set<string>();
    const free = (text: string, clip: string, donor: string) => {
      if (usedTexts.has(text) || options.elsewhere?.has(text)) return false;
      for (const u of owners.get(text)!) if (!reserved.has(u) && u !== clip && u !== donor) return false;
      return true;
    };
    // What the checks so far lean to (right minus wrong, per lean): a text-only guess feeds on any lean.
    const lean = new Float64Array(leanIndex.size);
    const attributeUses = new Map<AttentionAttribute, number>();
    const cost = ({ option: o, base, moves: shifts }: (typeof fixed)[number]) => {
      let c = base + 1.5 * (attributeUses.get(o.attribute) ?? 0);
      // Each clip newly kept out of the sample costs the sample a clip.
      const [u, d] = [o.clip.utteranceId, o.donor.utteranceId];
      c += 1.5 * ((reserved.has(u) ? 0 : 1) + (d !== u && !reserved.has(d) ? 1 : 0));
      // Each move costs what it adds to its lean's size.
      for (const [key, by] of shifts) c += Math.abs(lean[key] + by) - Math.abs(lean[key]);
      return c;
    };
    let costlyReserved = 0;
    let spareClips = 0; // reserved (as donors) and not yet a check's clip: a later check may take one for free
    /** Whether the sample keeps enough clips after this check, and every later check can still have a clip of its own. */
    const affordable = (o: Option) => {
      if (!budget) return true;
      const [c, d] = [o.clip.utteranceId, o.donor.utteranceId];
      const newDonor = d !== c && !reserved.has(d);
      const costly = costlyReserved + (!reserved.has(c) && inBudget(c) ? 1 : 0) + (newDonor && inBudget(d) ? 1 : 0);
      const spare = spareClips - (reserved.has(c) ? 1 : 0) + (newDonor ? 1 : 0);
      if (strict && costly > costlyReserved + 1) return false;
      return costly + Math.max(0, options.count - checks.length - 1 - spare) <= budget.clips;
    };
    const checks: GeneratedCheck[] = [];
    while (checks.length < options.count) {
      let best: (typeof fixed)[number] | undefined;
      let bestCost = Infinity;
      for (const f of fixed) {
        const o = f.option;
        if (checked.has(o.clip.utteranceId)) continue;
        if (!free(o.wrong.text, o.clip.utteranceId, o.donor.utteranceId) || (o.right !== null && !free(o.right.text, o.clip.utteranceId, o.donor.utteranceId))) continue;
        if (!affordable(o)) continue;
        const c = cost(f);
        if (c < bestCost) [best, bestCost] = [f, c];
      }
      made = Math.max(made, checks.length);
      if (!best) return null;
      const picked = best;
      const o = picked.option;
      for (const u of new Set([o.clip.utteranceId, o.donor.utteranceId])) {
        if (!reserved.has(u)) {
          if (inBudget(u)) costlyReserved++;
          if (u !== o.clip.utteranceId) spareClips++;
        } else if (u === o.clip.utteranceId) spareClips--;
      }
      checked.add(o.clip.utteranceId);
      reserved.add(o.clip.utteranceId).add(o.donor.utteranceId);
      for (const side of [o.right, o.wrong]) if (side !== null) usedTexts.add(side.text);
      attributeUses.set(o.attribute, (attributeUses.get(o.attribute) ?? 0) + 1);
      for (const [key, by] of picked.moves) lean[key] += by;
      checks.push({ utteranceId: o.clip.utteranceId, attribute: o.attribute, correct: o.right?.text ?? null, wrong: o.wrong.text, donorUtteranceId: o.donor.utteranceId, form: o.form });
    }
    return checks;
  };
  let made = 0;
  const checks = draw(false) ?? (budget ? draw(true) : null);
  if (checks === null) {
    throw new Error(
      `only ${made} of ${options.count} attention checks could be generated: no further clip has a ${options.attributes.join('/')} label that ${sides === 2 ? 'one of its captions states, against' : 'differs from'} another caption stating a clearly different value`,
    );
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

/**
 * How well a simple text classifier tells a study's attention checks from its items, and the right
 * side of a check from the wrong one, from the texts alone (issue 20 item 8): the build warns when
 * a study's checks exceed BLEND_BUDGET (studies/attention-blend.ts), and templates.test.ts holds
 * every template within it.
 *
 * The classifier is L2-regularised logistic regression fit by gradient descent on binary
 * bag-of-words features (lower-cased words of every text a trial shows) plus length features (mean
 * word count of the sides, |difference| of word counts between sides, both scaled). Checks are
 * scored by stratified k-fold cross-validation, and rated by ROC AUC (Mann–Whitney: the share of
 * (check, item) pairs in which the check scores higher; ties count one half).
 */
export interface Trial {
  /** The texts the trial shows (one or two). */
  texts: readonly string[];
}

const words = (text: string) => text.toLowerCase().match(/[a-z]+/g) ?? [];

/** A trial's features, sparse: the indices of its non-zero features and their values. */
interface Features {
  index: number[];
  value: number[];
}

interface Featurized {
  x: Features[];
  dimensions: number;
}

function featurize(trials: readonly Trial[]): Featurized {
  const vocabulary = new Map<string, number>();
  for (const t of trials) for (const text of t.texts) for (const w of words(text)) if (!vocabulary.has(w)) vocabulary.set(w, vocabulary.size);
  const x = trials.map((t) => {
    const present = new Set(t.texts.flatMap((text) => words(text).map((w) => vocabulary.get(w)!)));
    const lengths = t.texts.map((text) => words(text).length);
    const index = [...present, vocabulary.size, vocabulary.size + 1];
    const value = [...present].map(() => 1);
    value.push(lengths.reduce((a, b) => a + b, 0) / lengths.length / 20, lengths.length > 1 ? Math.abs(lengths[0] - lengths[1]) / 20 : 0);
    return { index, value };
  });
  return { x, dimensions: vocabulary.size + 2 };
}

/** Weights and bias of L2 logistic regression (λ = `lambda`), by `steps` of full-batch gradient descent. */
function fitLogistic(x: readonly Features[], y: readonly number[], dimensions: number, lambda = 0.01, steps = 400, rate = 0.5): { w: Float64Array; b: number } {
  const w = new Float64Array(dimensions);
  const gw = new Float64Array(dimensions);
  let b = 0;
  // Classes weighted equally, so a handful of checks among many items still counts.
  const positives = y.filter((v) => v === 1).length;
  const weight = y.map((v) => (v === 1 ? 0.5 / Math.max(positives, 1) : 0.5 / Math.max(y.length - positives, 1)));
  const model = { w, b };
  for (let s = 0; s < steps; s++) {
    for (let j = 0; j < dimensions; j++) gw[j] = lambda * w[j];
    let gb = 0;
    model.b = b;
    for (let i = 0; i < x.length; i++) {
      const xi = x[i];
      const err = (predict(model, xi) - y[i]) * weight[i];
      for (let k = 0; k < xi.index.length; k++) gw[xi.index[k]] += err * xi.value[k];
      gb += err;
    }
    for (let j = 0; j < dimensions; j++) w[j] -= rate * gw[j];
    b -= rate * gb;
  }
  return { w, b };
}

function predict(model: { w: Float64Array; b: number }, x: Features): number {
  let z = model.b;
  for (let k = 0; k < x.index.length; k++) z += model.w[x.index[k]] * x.value[k];
  return 1 / (1 + Math.exp(-z));
}

/** ROC AUC of scores for positives against negatives (ties count one half). */
export function auc(positive: readonly number[], negative: readonly number[]): number {
  let wins = 0;
  for (const p of positive) for (const n of negative) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (positive.length * negative.length);
}

/** Cross-validated (k folds, each class dealt round-robin) scores of `positive` vs `negative` trials; the AUC. */
export function checkVsItemAuc(checks: readonly Trial[], items: readonly Trial[], k = 4): number {
  const trials = [...checks, ...items];
  const { x, dimensions } = featurize(trials);
  const y = trials.map((_, i) => (i < checks.length ? 1 : 0));
  const fold = trials.map((_, i) => (i < checks.length ? i : i - checks.length) % k);
  const scores = new Array<number>(trials.length);
  for (let f = 0; f < k; f++) {
    const train = trials.flatMap((_, i) => (fold[i] !== f ? [i] : []));
    if (train.length === 0) continue;
    const model = fitLogistic(train.map((i) => x[i]), train.map((i) => y[i]), dimensions);
    trials.forEach((_, i) => {
      if (fold[i] === f) scores[i] = predict(model, x[i]);
    });
  }
  return auc(scores.slice(0, checks.length), scores.slice(checks.length));
}

export interface KnownCheck {
  correct: string;
  wrong: string;
}

/**
 * The best share of checks whose right side a text-only guess names: the longer side, the shorter
 * side, the side whose words are commoner in the study's item texts, the rarer one, and a
 * leave-one-out logistic regression over the checks that tells a right text from a wrong one (the
 * left-out check's texts never in its training set).
 */
export function sideGuessAccuracy(checks: readonly KnownCheck[], itemTexts: readonly string[]): Record<string, number> {
  const count = new Map<string, number>();
  for (const text of itemTexts) for (const w of words(text)) count.set(w, (count.get(w) ?? 0) + 1);
  const commonness = (text: string) => words(text).reduce((s, w) => s + Math.log(1 + (count.get(w) ?? 0)), 0) / Math.max(words(text).length, 1);
  const share = (guess: (c: KnownCheck) => boolean) => checks.filter(guess).length / checks.length;
  const texts = checks.flatMap((c) => [{ texts: [c.correct] }, { texts: [c.wrong] }]);
  const { x, dimensions } = featurize(texts);
  // Leave one check out, with every check that shares a text with it: a text seen in training would be recognised, not read.
  const shares = (i: number, j: number) => [checks[i].correct, checks[i].wrong].some((t) => t === checks[j].correct || t === checks[j].wrong);
  const looRight = checks.filter((_, i) => {
    const train = texts.flatMap((_, j) => (!shares(i, Math.floor(j / 2)) ? [j] : []));
    const model = fitLogistic(train.map((j) => x[j]), train.map((j) => (j % 2 === 0 ? 1 : 0)), dimensions);
    return predict(model, x[2 * i]) > predict(model, x[2 * i + 1]);
  }).length;
  return {
    longer: share((c) => words(c.correct).length > words(c.wrong).length),
    shorter: share((c) => words(c.correct).length < words(c.wrong).length),
    commoner: share((c) => commonness(c.correct) > commonness(c.wrong)),
    rarer: share((c) => commonness(c.correct) < commonness(c.wrong)),
    classifier: checks.length > 1 ? looRight / checks.length : 0,
  };
}

/** What a study's attention checks may give away to a text-only reader (issue 20 item 8): never loosened. */
export const BLEND_BUDGET = { auc: 0.65, side: 0.6 } as const;

/** The items a plan shows, as far as the blend is concerned. */
export interface ShownItem {
  kind: string;
  trialKind: string;
  captionA: string | null;
  captionB: string | null;
  expected: string | null;
}

export interface BlendFigures {
  /** Cross-validated AUC of telling the checks from the scored items by their text. */
  auc: number;
  /** The best text-only guess's share of pair checks whose right side it names (0 when checks show one side). */
  side: number;
  guesses: Record<string, number>;
  checks: number;
  items: number;
}

/** Scored items a measure reads at most (every n-th of a larger pool: the fit stays well under a second). */
const MAX_ITEMS = 300;

/**
 * How well a plan's attention checks blend in with its scored items, from the texts the trials
 * show; null when no check shows a text (audio-only ratings) or there are no items.
 */
export function blendFigures(plan: readonly ShownItem[]): BlendFigures | null {
  const texts = (i: ShownItem) => ({ texts: i.captionB === null ? [i.captionA ?? ''] : [i.captionA ?? '', i.captionB] });
  const checks = plan.filter((i) => i.kind === 'attention' && i.captionA !== null);
  const all = plan.filter((i) => i.kind === i.trialKind);
  const items = all.filter((_, n) => n % Math.ceil(all.length / MAX_ITEMS) === 0);
  if (checks.length === 0 || items.length === 0) return null;
  const pairChecks = checks.filter((i) => i.captionB !== null).map((i) => (i.expected === 'a' ? { correct: i.captionA!, wrong: i.captionB! } : { correct: i.captionB!, wrong: i.captionA! }));
  const guesses = pairChecks.length > 0 ? sideGuessAccuracy(pairChecks, items.flatMap((i) => texts(i).texts)) : {};
  return { auc: checkVsItemAuc(checks.map(texts), items.map(texts)), side: Math.max(0, ...Object.values(guesses)), guesses, checks: checks.length, items: items.length };
}

/** The build's warning when a study's checks exceed the budget, or null. */
export function blendWarning(f: BlendFigures | null): string | null {
  if (f === null || (f.auc <= BLEND_BUDGET.auc && f.side <= BLEND_BUDGET.side)) return null;
  const said = [
    f.auc > BLEND_BUDGET.auc ? `a text classifier tells them from the items (cross-validated AUC ${f.auc.toFixed(2)}, budget ${BLEND_BUDGET.auc})` : '',
    f.side > BLEND_BUDGET.side ? `a text-only guess names the right side of ${Math.round(100 * f.side)} % of them (budget ${100 * BLEND_BUDGET.side} %)` : '',
  ].filter(Boolean);
  return `attentionChecks: listeners may spot these attention checks without listening: ${said.join('; ')}. Generated checks blend in when the corpus has clips whose captions by two of the study's systems disagree on a checked attribute (studies/README.md, "Generated attention checks"): add captions or clips, or check other attributes`;
}

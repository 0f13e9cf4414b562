/**
 * Test support: how well a simple text classifier tells a study's attention checks from its items,
 * and the right side of a check from the wrong one, from the texts alone (issue 20 item 8).
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

function featurize(trials: readonly Trial[]): number[][] {
  const vocabulary = new Map<string, number>();
  for (const t of trials) for (const text of t.texts) for (const w of words(text)) if (!vocabulary.has(w)) vocabulary.set(w, vocabulary.size);
  return trials.map((t) => {
    const x = new Array<number>(vocabulary.size + 2).fill(0);
    for (const text of t.texts) for (const w of words(text)) x[vocabulary.get(w)!] = 1;
    const lengths = t.texts.map((text) => words(text).length);
    x[vocabulary.size] = lengths.reduce((a, b) => a + b, 0) / lengths.length / 20;
    x[vocabulary.size + 1] = lengths.length > 1 ? Math.abs(lengths[0] - lengths[1]) / 20 : 0;
    return x;
  });
}

/** Weights and bias of L2 logistic regression (λ = `lambda`), by `steps` of full-batch gradient descent. */
export function fitLogistic(x: readonly number[][], y: readonly number[], lambda = 0.01, steps = 400, rate = 0.5): { w: number[]; b: number } {
  const d = x[0]?.length ?? 0;
  const w = new Array<number>(d).fill(0);
  let b = 0;
  // Classes weighted equally, so a handful of checks among many items still counts.
  const positives = y.filter((v) => v === 1).length;
  const weight = y.map((v) => (v === 1 ? 0.5 / Math.max(positives, 1) : 0.5 / Math.max(y.length - positives, 1)));
  for (let s = 0; s < steps; s++) {
    const gw = w.map((wi) => lambda * wi);
    let gb = 0;
    x.forEach((xi, i) => {
      const err = (predict({ w, b }, xi) - y[i]) * weight[i];
      for (let j = 0; j < d; j++) gw[j] += err * xi[j];
      gb += err;
    });
    for (let j = 0; j < d; j++) w[j] -= rate * gw[j];
    b -= rate * gb;
  }
  return { w, b };
}

function predict(model: { w: number[]; b: number }, x: readonly number[]): number {
  let z = model.b;
  for (let j = 0; j < x.length; j++) z += model.w[j] * x[j];
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
  const x = featurize(trials);
  const y = trials.map((_, i) => (i < checks.length ? 1 : 0));
  const fold = trials.map((_, i) => (i < checks.length ? i : i - checks.length) % k);
  const scores = new Array<number>(trials.length);
  for (let f = 0; f < k; f++) {
    const train = trials.flatMap((_, i) => (fold[i] !== f ? [i] : []));
    if (train.length === 0) continue;
    const model = fitLogistic(train.map((i) => x[i]), train.map((i) => y[i]));
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
 * leave-one-out logistic regression over the checks that tells a right text from a wrong one.
 */
export function sideGuessAccuracy(checks: readonly KnownCheck[], itemTexts: readonly string[]): Record<string, number> {
  const count = new Map<string, number>();
  for (const text of itemTexts) for (const w of words(text)) count.set(w, (count.get(w) ?? 0) + 1);
  const commonness = (text: string) => words(text).reduce((s, w) => s + Math.log(1 + (count.get(w) ?? 0)), 0) / Math.max(words(text).length, 1);
  const share = (guess: (c: KnownCheck) => boolean) => checks.filter(guess).length / checks.length;
  const texts = checks.flatMap((c) => [{ texts: [c.correct] }, { texts: [c.wrong] }]);
  const x = featurize(texts);
  const looRight = checks.filter((_, i) => {
    const train = texts.flatMap((_, j) => (Math.floor(j / 2) !== i ? [j] : []));
    const model = fitLogistic(train.map((j) => x[j]), train.map((j) => (j % 2 === 0 ? 1 : 0)));
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

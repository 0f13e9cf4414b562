import { cholesky, choleskySolve, spdInverse } from './linear-algebra';

/**
 * Logistic regression by maximum likelihood, fitted with Newton–Raphson / IRLS, with standard
 * errors from the inverse observed information.
 *
 * Model: P(y = 1 | x) = σ(β·x), σ(t) = 1/(1 + e^(−t)); the design row x includes the intercept
 * column supplied by the caller (see `fitSimpleLogistic`).
 * Iteration: with μ = σ(Xβ) and W = diag(μ(1 − μ)), β ← β + (XᵀWX)⁻¹ Xᵀ(y − μ) (the
 * canonical link makes Newton and Fisher scoring/IRLS coincide). Step halving guards the
 * log-likelihood. Stops when max |Δβ| < 1e-10 or after 100 iterations.
 * Standard errors: SE(β_j) = √[(XᵀWX)⁻¹]_jj at the optimum.
 * Source: McCullagh & Nelder (1989), Generalized Linear Models, §4.4; Agresti (2013), §5.
 * Worked example: Wikipedia "Logistic regression" (hours studied vs passing the exam, 20
 * students): β0 = −4.0777 (SE 1.7610), β1 = 1.5046 (SE 0.6287), the values R's glm() gives.
 * Complexity: O(iterations · (n·p² + p³)).
 * Edge cases: no rows → null. Complete or quasi-complete separation (the MLE is infinite) →
 * null, detected as coefficients diverging past |β| > 30 or a singular information matrix;
 * a constant predictor column makes XᵀWX singular → null.
 * Written by hand: simple-statistics offers no logistic regression with standard errors.
 */
export interface LogisticFit {
  coefficients: number[];
  standardErrors: number[];
  iterations: number;
  logLikelihood: number;
}

export function fitLogistic(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  n: number,
  p: number,
  weights?: ArrayLike<number>,
): LogisticFit | null {
  if (n === 0) return null;
  // Rows with equal design vectors share η, so σ(η) and log σ(±η) are computed once per distinct
  // row (a judge's score differences take a few hundred values over tens of thousands of rows);
  // every sum still runs row by row in the same order, so the fit is the same to the last bit.
  const { level, firstRow, outcomes } = distinctRows(x, y, n, p);
  const levels = firstRow.length;
  const eta = (b: Float64Array, i: number) => {
    let e = 0;
    for (let j = 0; j < p; j++) e += x[i * p + j] * b[j];
    return e;
  };
  const logP1 = new Float64Array(levels);
  const logP0 = new Float64Array(levels);
  const ll = (b: Float64Array) => {
    for (let l = 0; l < levels; l++) {
      const e = eta(b, firstRow[l]);
      // log σ(η) = −log(1 + e^(−η)); written stably for both signs.
      if (outcomes[l] & 2) logP1[l] = -softplus(-e);
      if (outcomes[l] & 1) logP0[l] = -softplus(e);
    }
    let s = 0;
    for (let i = 0; i < n; i++) {
      const w = weights ? weights[i] : 1;
      s += w * (y[i] ? logP1[level[i]] : logP0[level[i]]);
    }
    return s;
  };
  const mus = new Float64Array(levels);
  const fitted = (b: Float64Array) => {
    for (let l = 0; l < levels; l++) mus[l] = 1 / (1 + Math.exp(-eta(b, firstRow[l])));
  };
  let beta = new Float64Array(p);
  let current = ll(beta);
  const info = new Float64Array(p * p);
  const grad = new Float64Array(p);
  for (let iter = 1; iter <= 100; iter++) {
    info.fill(0);
    grad.fill(0);
    fitted(beta);
    for (let i = 0; i < n; i++) {
      const mu = mus[level[i]];
      const w = (weights ? weights[i] : 1);
      const v = w * mu * (1 - mu);
      const r = w * (y[i] - mu);
      for (let j = 0; j < p; j++) {
        const xij = x[i * p + j];
        grad[j] += xij * r;
        for (let k = 0; k <= j; k++) info[j * p + k] += xij * x[i * p + k] * v;
      }
    }
    for (let j = 0; j < p; j++) for (let k = 0; k < j; k++) info[k * p + j] = info[j * p + k];
    const l = cholesky(info, p);
    if (!l) return null;
    const step = choleskySolve(l, p, grad);
    let scale = 1;
    let next = new Float64Array(p);
    let nextLl = -Infinity;
    for (let half = 0; half < 30; half++) {
      for (let j = 0; j < p; j++) next[j] = beta[j] + scale * step[j];
      nextLl = ll(next);
      if (nextLl >= current - 1e-12) break;
      scale /= 2;
    }
    let maxStep = 0;
    for (let j = 0; j < p; j++) maxStep = Math.max(maxStep, Math.abs(next[j] - beta[j]));
    beta = next;
    current = nextLl;
    if (beta.some((b) => Math.abs(b) > 30)) return null;
    if (maxStep < 1e-10) {
      fitted(beta);
      const cov = informationInverse(x, n, p, level, mus, weights);
      if (!cov) return null;
      return {
        coefficients: [...beta],
        standardErrors: Array.from({ length: p }, (_, j) => Math.sqrt(cov[j * p + j])),
        iterations: iter,
        logLikelihood: current,
      };
    }
  }
  return null;
}

/**
 * Numbers the distinct design rows (equal under SameValueZero: a −0 entry gives the same η as
 * +0, since η's sum starts at +0), with each one's first row and which outcomes occur in it
 * (bit 2: y = 1, bit 1: y = 0), so only the log-probabilities some row uses are computed.
 */
function distinctRows(x: ArrayLike<number>, y: ArrayLike<number>, n: number, p: number) {
  const level = new Int32Array(n);
  const firstRow: number[] = [];
  const outcomes: number[] = [];
  // One Map per prefix of the row; the last column's Map holds the row's number.
  const root = new Map<number, unknown>();
  for (let i = 0; i < n; i++) {
    let node = root;
    for (let j = 0; j < p - 1; j++) {
      let child = node.get(x[i * p + j]) as Map<number, unknown> | undefined;
      if (!child) node.set(x[i * p + j], (child = new Map()));
      node = child;
    }
    let l = node.get(x[i * p + p - 1]) as number | undefined;
    if (l === undefined) {
      l = firstRow.length;
      node.set(x[i * p + p - 1], l);
      firstRow.push(i);
      outcomes.push(0);
    }
    level[i] = l;
    outcomes[l] |= y[i] ? 2 : 1;
  }
  return { level, firstRow, outcomes };
}

function softplus(t: number): number {
  return t > 0 ? t + Math.log1p(Math.exp(-t)) : Math.log1p(Math.exp(t));
}

/** (XᵀWX)⁻¹ at the fitted probabilities `mus` of the distinct rows. */
function informationInverse(
  x: ArrayLike<number>,
  n: number,
  p: number,
  level: Int32Array,
  mus: Float64Array,
  weights?: ArrayLike<number>,
): Float64Array | null {
  const info = new Float64Array(p * p);
  for (let i = 0; i < n; i++) {
    const mu = mus[level[i]];
    const v = (weights ? weights[i] : 1) * mu * (1 - mu);
    for (let j = 0; j < p; j++) for (let k = 0; k < p; k++) info[j * p + k] += x[i * p + j] * x[i * p + k] * v;
  }
  return spdInverse(info, p);
}

/** Fits P(y = 1) = σ(β0 + β1·x) for one predictor; returns β0, β1 and their SEs. */
export function fitSimpleLogistic(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  weights?: ArrayLike<number>,
): { beta0: number; beta1: number; seBeta0: number; seBeta1: number } | null {
  const n = x.length;
  const design = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    design[2 * i] = 1;
    design[2 * i + 1] = x[i];
  }
  const fit = fitLogistic(design, y, n, 2, weights);
  if (!fit) return null;
  return {
    beta0: fit.coefficients[0],
    beta1: fit.coefficients[1],
    seBeta0: fit.standardErrors[0],
    seBeta1: fit.standardErrors[1],
  };
}

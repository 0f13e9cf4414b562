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
  let beta = new Float64Array(p);
  const ll = (b: Float64Array) => {
    let s = 0;
    for (let i = 0; i < n; i++) {
      let eta = 0;
      for (let j = 0; j < p; j++) eta += x[i * p + j] * b[j];
      const w = weights ? weights[i] : 1;
      // log σ(η) = −log(1 + e^(−η)); written stably for both signs.
      s += w * (y[i] ? -softplus(-eta) : -softplus(eta));
    }
    return s;
  };
  let current = ll(beta);
  const info = new Float64Array(p * p);
  const grad = new Float64Array(p);
  for (let iter = 1; iter <= 100; iter++) {
    info.fill(0);
    grad.fill(0);
    for (let i = 0; i < n; i++) {
      let eta = 0;
      for (let j = 0; j < p; j++) eta += x[i * p + j] * beta[j];
      const mu = 1 / (1 + Math.exp(-eta));
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
      const cov = informationInverse(x, n, p, beta, weights);
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

function softplus(t: number): number {
  return t > 0 ? t + Math.log1p(Math.exp(-t)) : Math.log1p(Math.exp(t));
}

function informationInverse(
  x: ArrayLike<number>,
  n: number,
  p: number,
  beta: Float64Array,
  weights?: ArrayLike<number>,
): Float64Array | null {
  const info = new Float64Array(p * p);
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < p; j++) eta += x[i * p + j] * beta[j];
    const mu = 1 / (1 + Math.exp(-eta));
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

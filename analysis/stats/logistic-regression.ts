import { cholesky, choleskySolve, spdInverse } from './linear-algebra';

/**
 * Logistic regression by maximum likelihood, fitted with Newton–Raphson / IRLS, with standard
 * errors from the inverse observed information.
 *
 * Model: P(y = 1 | x) = σ(β·x), σ(t) = 1/(1 + e^(−t)); the design row x includes the intercept
 * column supplied by the caller (see `fitSimpleLogistic`); y is 0 or 1, each row may carry a weight.
 * Rows with equal design vectors are fitted as one, with the weights of their y = 1 and y = 0
 * rows summed: the log-likelihood, its gradient and XᵀWX are sums over rows, so the MLE and its
 * standard errors are the same (up to rounding in the last digits, the sums being added in another
 * order), and a predictor with few values (a judge's score differences: a few hundred over tens
 * of thousands of rows) costs a few hundred rows per iteration.
 * Iteration: with μ = σ(Xβ) and W = diag(μ(1 − μ)), β ← β + (XᵀWX)⁻¹ Xᵀ(y − μ) (the
 * canonical link makes Newton and Fisher scoring/IRLS coincide). Step halving guards the
 * log-likelihood. Stops when max |Δβ| < 1e-10 or after 100 iterations.
 * Standard errors: SE(β_j) = √[(XᵀWX)⁻¹]_jj at the optimum.
 * Source: McCullagh & Nelder (1989), Generalized Linear Models, §4.4; Agresti (2013), §5.
 * Worked example: Wikipedia "Logistic regression" (hours studied vs passing the exam, 20
 * students): β0 = −4.0777 (SE 1.7610), β1 = 1.5046 (SE 0.6287), the values R's glm() gives.
 * Complexity: O(n·p) to merge the rows, then O(iterations · (m·p² + p³)) for m distinct rows.
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
  const { rows, ones, zeros } = mergeRows(x, y, n, p, weights);
  const m = ones.length;
  const eta = (b: Float64Array, r: number) => {
    let e = 0;
    for (let j = 0; j < p; j++) e += rows[r * p + j] * b[j];
    return e;
  };
  const ll = (b: Float64Array) => {
    let s = 0;
    for (let r = 0; r < m; r++) {
      const e = eta(b, r);
      // log σ(η) = −log(1 + e^(−η)), log(1 − σ(η)) = −log(1 + e^η); written stably for both signs.
      if (ones[r]) s -= ones[r] * softplus(-e);
      if (zeros[r]) s -= zeros[r] * softplus(e);
    }
    return s;
  };
  let beta = new Float64Array(p);
  let current = ll(beta);
  const info = new Float64Array(p * p);
  const grad = new Float64Array(p);
  for (let iter = 1; iter <= 100; iter++) {
    info.fill(0);
    grad.fill(0);
    for (let r = 0; r < m; r++) {
      const mu = 1 / (1 + Math.exp(-eta(beta, r)));
      const w = ones[r] + zeros[r];
      const v = w * mu * (1 - mu);
      // Σ w (y − μ) over the merged rows
      const residual = ones[r] - w * mu;
      for (let j = 0; j < p; j++) {
        const xrj = rows[r * p + j];
        grad[j] += xrj * residual;
        for (let k = 0; k <= j; k++) info[j * p + k] += xrj * rows[r * p + k] * v;
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
      const cov = informationInverse(rows, ones, zeros, p, beta);
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
 * The rows merged: one per distinct design vector (equal under SameValueZero), with the summed
 * weights of its y = 1 rows (`ones`) and of its y = 0 rows (`zeros`), in order of first appearance.
 */
function mergeRows(x: ArrayLike<number>, y: ArrayLike<number>, n: number, p: number, weights?: ArrayLike<number>) {
  const rows: number[] = [];
  const ones: number[] = [];
  const zeros: number[] = [];
  // One Map per prefix of the design vector; the last column's Map holds the merged row's number.
  const root = new Map<number, unknown>();
  for (let i = 0; i < n; i++) {
    let node = root;
    for (let j = 0; j < p - 1; j++) {
      let child = node.get(x[i * p + j]) as Map<number, unknown> | undefined;
      if (!child) node.set(x[i * p + j], (child = new Map()));
      node = child;
    }
    let r = node.get(x[i * p + p - 1]) as number | undefined;
    if (r === undefined) {
      r = ones.length;
      node.set(x[i * p + p - 1], r);
      for (let j = 0; j < p; j++) rows.push(x[i * p + j]);
      ones.push(0);
      zeros.push(0);
    }
    const w = weights ? weights[i] : 1;
    if (y[i]) ones[r] += w;
    else zeros[r] += w;
  }
  return { rows: Float64Array.from(rows), ones: Float64Array.from(ones), zeros: Float64Array.from(zeros) };
}

function softplus(t: number): number {
  return t > 0 ? t + Math.log1p(Math.exp(-t)) : Math.log1p(Math.exp(t));
}

/** (XᵀWX)⁻¹ at β, over the merged rows. */
function informationInverse(
  rows: Float64Array,
  ones: Float64Array,
  zeros: Float64Array,
  p: number,
  beta: Float64Array,
): Float64Array | null {
  const info = new Float64Array(p * p);
  for (let r = 0; r < ones.length; r++) {
    let eta = 0;
    for (let j = 0; j < p; j++) eta += rows[r * p + j] * beta[j];
    const mu = 1 / (1 + Math.exp(-eta));
    const v = (ones[r] + zeros[r]) * mu * (1 - mu);
    for (let j = 0; j < p; j++) for (let k = 0; k < p; k++) info[j * p + k] += rows[r * p + j] * rows[r * p + k] * v;
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

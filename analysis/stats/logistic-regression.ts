import { cholesky, choleskySolve, spdInverse } from './linear-algebra';

/**
 * Logistic regression by maximum likelihood, fitted with Newton–Raphson / IRLS, with standard
 * errors from the inverse observed information.
 *
 * Model: P(y = 1 | x) = σ(β·x), σ(t) = 1/(1 + e^(−t)); the design row x includes the intercept
 * column supplied by the caller (see `fitSimpleLogistic`). The data are grouped: one row per
 * distinct design vector (covariate pattern) with the total weight of its y = 1 and of its y = 0
 * observations. The log-likelihood, its gradient and XᵀWX are sums over observations, so grouping
 * gives the MLE and standard errors of the ungrouped fit (up to rounding in the last digits, the
 * sums being added in another order), and a predictor with few values (a judge's score
 * differences: a few hundred over tens of thousands of votes) costs a few hundred rows per iteration.
 * Iteration: with μ = σ(Xβ) and W = diag(μ(1 − μ)), β ← β + (XᵀWX)⁻¹ Xᵀ(y − μ) (the
 * canonical link makes Newton and Fisher scoring/IRLS coincide). Step halving guards the
 * log-likelihood. Stops when max |Δβ| < 1e-10 or after 100 iterations.
 * Standard errors: SE(β_j) = √[(XᵀWX)⁻¹]_jj at the optimum.
 * Source: McCullagh & Nelder (1989), Generalized Linear Models, §4.4; Agresti (2013), §5.
 * Worked example: Wikipedia "Logistic regression" (hours studied vs passing the exam, 20
 * students): β0 = −4.0777 (SE 1.7610), β1 = 1.5046 (SE 0.6287), the values R's glm() gives.
 * Complexity: O(iterations · (m·p² + p³)) for m grouped rows.
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

/**
 * `rows`: the m design vectors, row-major (m·p numbers); `ones[r]` and `zeros[r]`: the weight of
 * the y = 1 and of the y = 0 observations with design vector r.
 */
export function fitLogistic(
  rows: ArrayLike<number>,
  ones: ArrayLike<number>,
  zeros: ArrayLike<number>,
  m: number,
  p: number,
): LogisticFit | null {
  if (m === 0) return null;
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
      // Σ w·(y − μ) over the pattern's observations
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

function softplus(t: number): number {
  return t > 0 ? t + Math.log1p(Math.exp(-t)) : Math.log1p(Math.exp(t));
}

/** (XᵀWX)⁻¹ at β. */
function informationInverse(
  rows: ArrayLike<number>,
  ones: ArrayLike<number>,
  zeros: ArrayLike<number>,
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

/**
 * Fits P(y = 1) = σ(β0 + β1·x) for one predictor (y 0 or 1, each observation weighted, 1 by
 * default); returns β0, β1 and their SEs. Observations with equal x (SameValueZero: −0 and +0
 * give the same η) are grouped, in order of first appearance.
 */
export function fitSimpleLogistic(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  weights?: ArrayLike<number>,
): { beta0: number; beta1: number; seBeta0: number; seBeta1: number } | null {
  const rows: number[] = [];
  const ones: number[] = [];
  const zeros: number[] = [];
  const rowOf = new Map<number, number>();
  for (let i = 0; i < x.length; i++) {
    let r = rowOf.get(x[i]);
    if (r === undefined) {
      r = ones.length;
      rowOf.set(x[i], r);
      rows.push(1, x[i]);
      ones.push(0);
      zeros.push(0);
    }
    const w = weights ? weights[i] : 1;
    if (y[i]) ones[r] += w;
    else zeros[r] += w;
  }
  const fit = fitLogistic(rows, ones, zeros, ones.length, 2);
  if (!fit) return null;
  return {
    beta0: fit.coefficients[0],
    beta1: fit.coefficients[1],
    seBeta0: fit.standardErrors[0],
    seBeta1: fit.standardErrors[1],
  };
}

import { cholesky, choleskySolve, spdInverse } from './linear-algebra';

/**
 * Bradley–Terry paired-comparison model, fitted on aggregated win counts.
 *
 * Model: P(i beats j) = e^θi / (e^θi + e^θj) = σ(θ_i − θ_j), natural-log strengths θ with
 * Σθ = 0 (the likelihood only sees differences).
 * Input: `wins[i·K + j]` = (possibly weighted) number of times system i beat system j.
 * Log-likelihood: ℓ(θ) = Σ_{i≠j} w_ij·log σ(θ_i − θ_j) − (λ/2)·Σθ_i² (λ = 0: plain MLE;
 * λ > 0: a Gaussian ridge prior, giving the MAP estimate, which always exists).
 * With n_ij = w_ij + w_ji and p_ij = σ(θ_i − θ_j):
 *   gradient g_i = Σ_j (w_ij − n_ij·p_ij) − λθ_i,
 *   observed information I = L + λ·Id, L_ii = Σ_j n_ij p_ij p_ji, L_ij = −n_ij p_ij p_ji.
 * L is a weighted graph Laplacian (L·1 = 0), so Newton steps solve (I + J/K)·δ = g with J the
 * all-ones matrix: g ⊥ 1 keeps δ ⊥ 1 and hence Σθ = 0, and I + J/K is positive definite when
 * the comparison graph is connected. Step halving keeps ℓ increasing; stop at max|δ| < 1e-10.
 * Standard errors: covariance under Σθ = 0 is the Moore–Penrose pseudo-inverse of I (λ = 0),
 * and in general P·I⁻¹·P with P = Id − J/K; both equal (I + J/K)⁻¹ − J/(K(1 + λ)), which is
 * what is computed. ci95 = θ ± 1.959963984540054·SE.
 * Existence: the MLE exists iff the directed "beat" graph (edge i→j when w_ij > 0) is
 * strongly connected (Zermelo 1929; Ford 1957). Otherwise some group of systems never loses
 * to the rest and its strengths run to +∞; `fitBradleyTerry` throws
 * `BradleyTerryNotIdentifiedError` naming such groups, unless λ > 0.
 * Source: Bradley & Terry (1952), Biometrika 39:324–345; Agresti (2002), Categorical Data
 * Analysis, §10.6 (1987 AL East baseball example, used in the tests); Hunter (2004), Annals of
 * Statistics 32:384–406, for existence and the MM alternative.
 * Complexity: O(iterations·K³) (K×K Cholesky), independent of the number of votes — the
 * votes enter only through the K×K table. Typical fits need 4–8 Newton steps.
 * Written by hand: no maintained npm package fits BT with standard errors.
 */
export interface BradleyTerryFit {
  theta: Float64Array;
  /** null when standard errors were not requested */
  se: Float64Array | null;
  iterations: number;
  method: 'mle' | 'map';
  lambda: number;
}

export interface BradleyTerryOptions {
  lambda?: number;
  standardErrors?: boolean;
  start?: ArrayLike<number>;
}

export class BradleyTerryNotIdentifiedError extends Error {
  constructor(
    message: string,
    /** groups of system indices that never lose to the others (strength → +∞) */
    readonly neverLose: number[][],
    /** groups of system indices that never beat the others (strength → −∞) */
    readonly neverWin: number[][],
  ) {
    super(message);
    this.name = 'BradleyTerryNotIdentifiedError';
  }
}

export function fitBradleyTerry(
  wins: ArrayLike<number>,
  k: number,
  options: BradleyTerryOptions = {},
  names?: readonly string[],
): BradleyTerryFit {
  const lambda = options.lambda ?? 0;
  if (!(lambda >= 0)) throw new RangeError(`ridge prior λ must be ≥ 0, got ${lambda}`);
  if (lambda === 0) {
    const scc = beatComponents(wins, k);
    if (scc.count > 1) throw notIdentified(wins, k, scc, names);
  }
  const theta = new Float64Array(k);
  if (options.start) for (let i = 0; i < k; i++) theta[i] = options.start[i];
  center(theta);
  const info = new Float64Array(k * k);
  const grad = new Float64Array(k);
  let current = logLikelihood(wins, k, theta, lambda);
  let iterations = 0;
  for (;;) {
    iterations++;
    if (iterations > 200) throw new Error('Bradley–Terry Newton iteration did not converge');
    informationAndGradient(wins, k, theta, lambda, info, grad);
    const l = cholesky(info, k);
    if (!l) throw new Error('Bradley–Terry information matrix is singular');
    const step = choleskySolve(l, k, grad);
    const next = new Float64Array(k);
    let scale = 1;
    let nextLl = -Infinity;
    for (let half = 0; half < 40; half++) {
      for (let i = 0; i < k; i++) next[i] = theta[i] + scale * step[i];
      nextLl = logLikelihood(wins, k, next, lambda);
      if (nextLl >= current - 1e-9 * Math.max(1, Math.abs(current))) break;
      scale /= 2;
    }
    let maxStep = 0;
    for (let i = 0; i < k; i++) maxStep = Math.max(maxStep, Math.abs(next[i] - theta[i]));
    theta.set(next);
    center(theta);
    current = nextLl;
    if (maxStep < 1e-10) break;
  }
  let se: Float64Array | null = null;
  if (options.standardErrors !== false) {
    informationAndGradient(wins, k, theta, lambda, info, grad);
    const m = spdInverse(info, k);
    if (!m) throw new Error('Bradley–Terry information matrix is singular');
    se = new Float64Array(k);
    const shift = 1 / (k * (1 + lambda));
    for (let i = 0; i < k; i++) se[i] = Math.sqrt(Math.max(0, m[i * k + i] - shift));
  }
  return { theta, se, iterations, method: lambda > 0 ? 'map' : 'mle', lambda };
}

function center(theta: Float64Array): void {
  let mean = 0;
  for (const t of theta) mean += t;
  mean /= theta.length;
  for (let i = 0; i < theta.length; i++) theta[i] -= mean;
}

function logSigmoid(t: number): number {
  return t > 0 ? -Math.log1p(Math.exp(-t)) : t - Math.log1p(Math.exp(t));
}

function logLikelihood(wins: ArrayLike<number>, k: number, theta: Float64Array, lambda: number): number {
  let s = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const w = wins[i * k + j];
      if (w > 0) s += w * logSigmoid(theta[i] - theta[j]);
    }
    s -= 0.5 * lambda * theta[i] * theta[i];
  }
  return s;
}

/** Fills info with I + J/K (see the module comment) and grad with ∇ℓ. */
function informationAndGradient(
  wins: ArrayLike<number>,
  k: number,
  theta: Float64Array,
  lambda: number,
  info: Float64Array,
  grad: Float64Array,
): void {
  info.fill(1 / k);
  grad.fill(0);
  for (let i = 0; i < k; i++) {
    info[i * k + i] += lambda;
    grad[i] -= lambda * theta[i];
    for (let j = i + 1; j < k; j++) {
      const wij = wins[i * k + j];
      const wji = wins[j * k + i];
      const n = wij + wji;
      if (n === 0) continue;
      const p = 1 / (1 + Math.exp(theta[j] - theta[i]));
      const v = n * p * (1 - p);
      info[i * k + i] += v;
      info[j * k + j] += v;
      info[i * k + j] -= v;
      info[j * k + i] -= v;
      grad[i] += wij - n * p;
      grad[j] += wji - n * (1 - p);
    }
  }
}

/** Strongly connected components of the beat graph (Tarjan, iterative). component[i] ∈ [0, count). */
export function beatComponents(wins: ArrayLike<number>, k: number): { count: number; component: Int32Array } {
  const index = new Int32Array(k).fill(-1);
  const low = new Int32Array(k);
  const onStack = new Uint8Array(k);
  const component = new Int32Array(k).fill(-1);
  const stack: number[] = [];
  let next = 0;
  let count = 0;
  const callStack: Array<[number, number]> = [];
  for (let root = 0; root < k; root++) {
    if (index[root] !== -1) continue;
    callStack.push([root, 0]);
    index[root] = low[root] = next++;
    stack.push(root);
    onStack[root] = 1;
    while (callStack.length) {
      const frame = callStack[callStack.length - 1];
      const v = frame[0];
      let advanced = false;
      while (frame[1] < k) {
        const w = frame[1]++;
        if (w === v || !(wins[v * k + w] > 0)) continue;
        if (index[w] === -1) {
          index[w] = low[w] = next++;
          stack.push(w);
          onStack[w] = 1;
          callStack.push([w, 0]);
          advanced = true;
          break;
        } else if (onStack[w]) low[v] = Math.min(low[v], index[w]);
      }
      if (advanced) continue;
      callStack.pop();
      if (callStack.length) {
        const parent = callStack[callStack.length - 1][0];
        low[parent] = Math.min(low[parent], low[v]);
      }
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component[w] = count;
        } while (w !== v);
        count++;
      }
    }
  }
  return { count, component };
}

function notIdentified(
  wins: ArrayLike<number>,
  k: number,
  scc: { count: number; component: Int32Array },
  names?: readonly string[],
): BradleyTerryNotIdentifiedError {
  const lostToOutside = new Uint8Array(scc.count);
  const beatOutside = new Uint8Array(scc.count);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) {
    if (wins[i * k + j] > 0 && scc.component[i] !== scc.component[j]) {
      beatOutside[scc.component[i]] = 1;
      lostToOutside[scc.component[j]] = 1;
    }
  }
  const members = Array.from({ length: scc.count }, () => [] as number[]);
  for (let i = 0; i < k; i++) members[scc.component[i]].push(i);
  const neverLose = members.filter((_, c) => !lostToOutside[c]);
  const neverWin = members.filter((_, c) => !beatOutside[c] && lostToOutside[c]);
  const label = (g: number[]) => '{' + g.map((i) => names?.[i] ?? String(i)).join(', ') + '}';
  const parts = [
    ...neverLose.map((g) => `${label(g)} never lost to the other systems`),
    ...neverWin.map((g) => `${label(g)} never beat the other systems`),
  ];
  return new BradleyTerryNotIdentifiedError(
    `Bradley–Terry MLE does not exist: the comparison graph is not strongly connected; ${parts.join('; ')}. ` +
      'Collect more votes or fit a MAP estimate with a ridge prior (--bt-prior λ > 0).',
    neverLose,
    neverWin,
  );
}

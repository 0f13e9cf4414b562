/**
 * Dense symmetric positive-definite solves for the small systems the fits need (2×2 for the
 * logistic calibration, K×K for K systems in Bradley–Terry, K ≤ a few hundred).
 * Cholesky factorisation A = L·Lᵀ, row-major Float64Array of size k·k.
 * Source: Golub & Van Loan, Matrix Computations, §4.2. Complexity: O(k³/3) to factor,
 * O(k²) per solve. Written by hand: simple-statistics has no matrix algebra, and these few
 * lines avoid a dependency for 100×100 matrices.
 * Edge case: a non-positive pivot means A is not positive definite → returns null.
 */
export function cholesky(a: Float64Array, k: number): Float64Array | null {
  const l = new Float64Array(k * k);
  for (let j = 0; j < k; j++) {
    let d = a[j * k + j];
    for (let p = 0; p < j; p++) d -= l[j * k + p] * l[j * k + p];
    if (!(d > 0)) return null;
    const ljj = Math.sqrt(d);
    l[j * k + j] = ljj;
    for (let i = j + 1; i < k; i++) {
      let s = a[i * k + j];
      for (let p = 0; p < j; p++) s -= l[i * k + p] * l[j * k + p];
      l[i * k + j] = s / ljj;
    }
  }
  return l;
}

/** Solves L·Lᵀ·x = b given the Cholesky factor L. */
export function choleskySolve(l: Float64Array, k: number, b: ArrayLike<number>): Float64Array {
  const y = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    let s = b[i];
    for (let p = 0; p < i; p++) s -= l[i * k + p] * y[p];
    y[i] = s / l[i * k + i];
  }
  const x = new Float64Array(k);
  for (let i = k - 1; i >= 0; i--) {
    let s = y[i];
    for (let p = i + 1; p < k; p++) s -= l[p * k + i] * x[p];
    x[i] = s / l[i * k + i];
  }
  return x;
}

/** Inverse of a symmetric positive-definite matrix, or null if it is not positive definite. */
export function spdInverse(a: Float64Array, k: number): Float64Array | null {
  const l = cholesky(a, k);
  if (!l) return null;
  const inv = new Float64Array(k * k);
  const e = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    e.fill(0);
    e[j] = 1;
    const col = choleskySolve(l, k, e);
    for (let i = 0; i < k; i++) inv[i * k + j] = col[i];
  }
  return inv;
}

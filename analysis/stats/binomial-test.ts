import { gammaln } from 'simple-statistics';

/** Below this log-probability an outcome's probability is 0 in double precision. */
const ZERO_BELOW = -746;

/**
 * Two-sided exact binomial test of H0: P(success) = p.
 *
 * Formula: with d = P(X = k) under Binomial(n, p), the p-value is
 *   Σ_{i : P(X = i) ≤ d·(1 + 1e-7)} P(X = i)
 * i.e. the total probability of all outcomes no more likely than the observed one. The relative
 * tolerance 1e-7 is the one scipy.stats.binomtest uses so that outcomes tied in exact arithmetic
 * are not split by rounding. When k equals the mean n·p the p-value is 1.
 * Source: scipy.stats.binomtest (alternative='two-sided'); Agresti (2013), Categorical Data
 * Analysis, §1.4. Example: k = 11, n = 15, p = 0.5 → 0.1185.
 * The probability mass uses simple-statistics' gammaln for log n!/(i!(n−i)!); the summation
 * rule is written here because simple-statistics' binomialDistribution truncates the upper tail.
 * Only outcomes with log P(X = i) ≥ −746 are summed: e^x is 0 in double precision below
 * x ≈ −745.13, so the others add exactly nothing. log P(X = i) rises up to the mode ⌊(n+1)p⌋
 * and falls after it, so the bounds of that range are found by bisection on each side, and the
 * sum runs over them in the same order as over 0…n, to the same bits.
 * Complexity: O(log n + the width of that range), ≈ 77·√(n·p·(1−p)) outcomes at most.
 * Edge cases: n = 0 → null; p = 0 or 1 → 1 if the data are the only possible outcome, else 0;
 * result clamped to ≤ 1.
 */
export function binomialTest(k: number, n: number, p = 0.5): number | null {
  if (n <= 0) return null;
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || k > n) {
    throw new RangeError(`binomialTest needs integers 0 ≤ k ≤ n, got k=${k}, n=${n}`);
  }
  if (p < 0 || p > 1) throw new RangeError(`p must be in [0, 1], got ${p}`);
  if (p === 0) return k === 0 ? 1 : 0;
  if (p === 1) return k === n ? 1 : 0;
  if (k === n * p) return 1;
  const logNFact = gammaln(n + 1);
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  const logPmf = (i: number) => logNFact - gammaln(i + 1) - gammaln(n - i + 1) + i * logP + (n - i) * logQ;
  const threshold = logPmf(k) + Math.log1p(1e-7);
  const mode = Math.min(n, Math.floor((n + 1) * p));
  // lo: the first outcome up to the mode with log P ≥ ZERO_BELOW; hi: the last one from the mode on.
  let a = 0;
  let b = mode;
  while (a < b) {
    const mid = Math.floor((a + b) / 2);
    if (logPmf(mid) >= ZERO_BELOW) b = mid;
    else a = mid + 1;
  }
  const lo = a;
  a = mode;
  b = n;
  while (a < b) {
    const mid = Math.ceil((a + b) / 2);
    if (logPmf(mid) >= ZERO_BELOW) a = mid;
    else b = mid - 1;
  }
  const hi = a;
  let total = 0;
  for (let i = lo; i <= hi; i++) {
    const lp = logPmf(i);
    if (lp <= threshold) total += Math.exp(lp);
  }
  return Math.min(1, total);
}

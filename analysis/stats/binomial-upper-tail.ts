import { gammaln } from 'simple-statistics';

/**
 * One-sided exact binomial test: P(K ≥ k | n, p), the chance of k or more successes in n trials
 * when each succeeds with probability p (H1: the success rate is above p; ABX uses p = ½).
 *
 * Formula: Σ_{i=k}^{n} C(n, i)·p^i·(1 − p)^{n−i}, each term from log-gamma
 * (log C(n, i) = lnΓ(n+1) − lnΓ(i+1) − lnΓ(n−i+1)) so large n neither overflows nor loses the
 * tail; summed from the far end (i = n down to k) so the small terms are added first.
 * Source: scipy.stats.binomtest(k, n, p, alternative='greater'); Agresti (2013) §1.4.
 * Examples: k = 8, n = 10 → 56/1024 = 0.0546875; k = 15, n = 20 → 0.0206947…
 * Edge cases: n = 0 → null; k = 0 → 1; p = 0 → 1 if k = 0 else 0; p = 1 → 1.
 * Complexity: O(n − k).
 */
export function binomialUpperTail(k: number, n: number, p = 0.5): number | null {
  if (n <= 0) return null;
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || k > n) throw new RangeError(`binomialUpperTail needs integers 0 ≤ k ≤ n, got k=${k}, n=${n}`);
  if (p < 0 || p > 1) throw new RangeError(`p must be in [0, 1], got ${p}`);
  if (k === 0) return 1;
  if (p === 0) return 0;
  if (p === 1) return 1;
  const logNFact = gammaln(n + 1);
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  let total = 0;
  for (let i = n; i >= k; i--) total += Math.exp(logNFact - gammaln(i + 1) - gammaln(n - i + 1) + i * logP + (n - i) * logQ);
  return Math.min(1, total);
}

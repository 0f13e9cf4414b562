import { quantileSorted } from 'simple-statistics';
import { seededRandom } from '../random';

/**
 * Cluster bootstrap percentile intervals for several group means at once: listeners are the
 * clusters, systems the groups, and a system's MOS the mean of its scores.
 *
 * Ratings by one listener are correlated (each listener has a bias of their own), so resampling
 * single scores would understate the MOS's uncertainty; resampling whole listeners keeps each
 * listener's scores together. Input: per cluster c and group g the sum s_cg and count n_cg of the
 * scores. A resample draws C clusters with replacement, giving weights w_c (how often c was
 * drawn); the group mean in that resample is
 *   m*_g = Σ_c w_c·s_cg / Σ_c w_c·n_cg,
 * and the interval is the 2.5% and 97.5% quantiles of m*_g over the resamples (percentile
 * method). Resamples in which no drawn cluster scored group g are skipped for that group.
 * Source: B. Efron & R. J. Tibshirani (1993), An Introduction to the Bootstrap, §13.3
 * (percentile interval); A. C. Davison & D. V. Hinkley (1997), Bootstrap Methods and their
 * Application, §3.8 (resampling clusters in hierarchical data, strategy 1: clusters only).
 * Randomness from the project's seeded generator (random.ts), so a seed reproduces an interval.
 * Complexity: O(B·C·G) for B resamples, plus O(G·B log B) for the quantiles.
 * Only the clusters are resampled: in a rating study the items are a sample too, and their
 * spread is not in this interval (nor in the t-interval).
 * Edge cases: a group with fewer than 2 usable resamples → null; a single cluster → every
 * resample equals the estimate (zero width), which says the data cannot show listener spread.
 * Every m*_g is a weighted average of cluster means, so the interval lies within the range of
 * the clusters' own means of group g.
 */
export function clusterBootstrapMeans(
  sums: ArrayLike<number>,
  counts: ArrayLike<number>,
  clusters: number,
  groups: number,
  options: { resamples: number; seed: number },
): Array<[number, number] | null> {
  const random = seededRandom(options.seed);
  const weight = new Float64Array(clusters);
  const numerator = new Float64Array(groups);
  const denominator = new Float64Array(groups);
  const draws: number[][] = Array.from({ length: groups }, () => []);
  for (let b = 0; b < options.resamples && clusters > 0; b++) {
    weight.fill(0);
    for (let x = 0; x < clusters; x++) weight[Math.floor(random() * clusters)]++;
    numerator.fill(0);
    denominator.fill(0);
    for (let c = 0; c < clusters; c++) {
      const w = weight[c];
      if (w === 0) continue;
      for (let g = 0; g < groups; g++) {
        numerator[g] += w * sums[c * groups + g];
        denominator[g] += w * counts[c * groups + g];
      }
    }
    for (let g = 0; g < groups; g++) if (denominator[g] > 0) draws[g].push(numerator[g] / denominator[g]);
  }
  return draws.map((d) => {
    if (d.length < 2) return null;
    const sorted = d.sort((a, b) => a - b);
    return [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)];
  });
}

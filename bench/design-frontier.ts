/**
 * How far any design can beat the balanced one on the `votes` measurement's own terms, offline
 * (no server): votes until the mean Bradley–Terry ci95 half-width (MLE, Wald) is ≤ 0.3 for 14
 * systems spread over 7 probit units, Thurstonian respondents (sensitivity ×0.8–1.2, ±0.25 for
 * the side shown first), a share `flip` of the fitted votes coin flips (the careless who pass the
 * checks: 10 % careless × 5/16 passing 4 checks ≈ 3.4 % in the measurement), medians over 10 seeds.
 *   npx tsx bench/design-frontier.ts [flip share …]     (default: 0 and 0.034)
 * Designs: `balanced` (every pair in turn, in shuffled rounds, as least-rated-first gives),
 * `greedy` (studies/adaptive's comparisonGain on the ridge fit so far, one vote at a time), and
 * `optimal` (the A-optimal allocation for the true strengths of the contaminated population, by
 * the multiplicative algorithm (Silvey, Titterington & Torsney 1978), tracked vote by vote): an
 * oracle no study has, so its count is the floor for a design minimising the summed variance.
 */
import { keyedRandom } from '../analysis/random';
import { fitBradleyTerry } from '../analysis/stats/bradley-terry';
import { spdInverse } from '../analysis/stats/linear-algebra';
import { normalCdf } from '../analysis/stats/normal';
import { btPosterior, comparisonGain } from '../studies/adaptive/bt-uncertainty';

const K = 14;
const SPREAD = 7;
const TARGET = 0.3;
const Z95 = 1.959963984540054;
const SEEDS = 10;
const CHECK_EVERY = 25;
const PAIRS: [number, number][] = [];
for (let i = 0; i < K; i++) for (let j = i + 1; j < K; j++) PAIRS.push([i, j]);
const MU = Array.from({ length: K }, (_, s) => SPREAD * (s / (K - 1) - 0.5));

type Design = 'balanced' | 'greedy' | 'optimal';

/** The contaminated population's chance that i beats j, averaged over sensitivity and presentation order. */
function preference(i: number, j: number, flip: number): number {
  let careful = 0;
  for (let k = 0; k < 200; k++) {
    const d = (0.8 + (0.4 * (k + 0.5)) / 200) * (MU[i] - MU[j]);
    careful += (normalCdf(d + 0.25) + normalCdf(d - 0.25)) / 400;
  }
  return (1 - flip) * careful + flip / 2;
}

/** A-optimal pair weights for the BT strengths the contaminated population follows (multiplicative algorithm, 2,000 steps). */
function optimalWeights(flip: number): number[] {
  const expected = new Float64Array(K * K);
  for (const [i, j] of PAIRS) {
    const p = preference(i, j, flip);
    expected[i * K + j] = p;
    expected[j * K + i] = 1 - p;
  }
  const theta = fitBradleyTerry(expected, K).theta;
  const w = PAIRS.map(([i, j]) => {
    const p = 1 / (1 + Math.exp(theta[j] - theta[i]));
    return p * (1 - p);
  });
  let pi = PAIRS.map(() => 1 / PAIRS.length);
  for (let step = 0; step < 2000; step++) {
    const m = new Float64Array(K * K);
    PAIRS.forEach(([i, j], q) => {
      const v = pi[q] * w[q];
      m[i * K + i] += v;
      m[j * K + j] += v;
      m[i * K + j] -= v;
      m[j * K + i] -= v;
    });
    for (let a = 0; a < K * K; a++) m[a] += 1 / K;
    const c = spdInverse(m, K)!;
    // The A-criterion's derivative along pair q: w_q · ‖C d_q‖².
    const g = PAIRS.map(([i, j], q) => {
      let norm = 0;
      for (let s = 0; s < K; s++) norm += (c[s * K + i] - c[s * K + j]) ** 2;
      return w[q] * norm;
    });
    const total = pi.reduce((x, p, q) => x + p * g[q], 0);
    pi = pi.map((p, q) => (p * g[q]) / total);
  }
  return pi;
}

function votesNeeded(design: Design, flip: number, seed: number, weights: number[]): number {
  const draws = keyedRandom(seed, 'design-frontier', design);
  const random = draws.next;
  const wins = new Float64Array(K * K);
  const counts = new Float64Array(PAIRS.length);
  let round: number[] = [];
  for (let n = 1; ; n++) {
    let q = 0;
    if (design === 'balanced') {
      if (round.length === 0) round = draws.shuffle(PAIRS.map((_, p) => p));
      q = round.pop()!;
    } else if (design === 'greedy') {
      const { theta, cov } = btPosterior(wins, K, 0.1);
      let best = -Infinity;
      PAIRS.forEach(([i, j], p) => {
        const gain = comparisonGain(theta, cov, K, i, j) + 1e-12 * random();
        if (gain > best) [best, q] = [gain, p];
      });
    } else {
      let best = -Infinity;
      weights.forEach((pi, p) => {
        const lag = pi * n - counts[p];
        if (lag > best) [best, q] = [lag, p];
      });
    }
    counts[q]++;
    const [i, j] = PAIRS[q];
    const sensitivity = 0.8 + 0.4 * random();
    const first = random() < 0.5 ? 0.25 : -0.25;
    const iWins = random() < flip ? random() < 0.5 : random() < normalCdf(sensitivity * (MU[i] - MU[j]) + first);
    if (iWins) wins[i * K + j]++;
    else wins[j * K + i]++;
    if (n % CHECK_EVERY !== 0) continue;
    try {
      const fit = fitBradleyTerry(wins, K, { standardErrors: true });
      if ((Z95 * Array.from(fit.se!).reduce((a, b) => a + b, 0)) / K <= TARGET) return n;
    } catch {
      // not identified yet
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2;
};

const flips = process.argv.slice(2).map(Number);
for (const flip of flips.length > 0 ? flips : [0, 0.034]) {
  const weights = optimalWeights(flip);
  const medians = Object.fromEntries(
    (['balanced', 'greedy', 'optimal'] as const).map((d) => [d, median(Array.from({ length: SEEDS }, (_, s) => votesNeeded(d, flip, s + 1, weights)))]),
  );
  console.log(
    `flip ${flip}: scored votes to mean half-width ≤ ${TARGET} (median of ${SEEDS}): balanced ${medians.balanced}, greedy ${medians.greedy} (${(medians.greedy / medians.balanced).toFixed(3)}), ` +
      `A-optimal oracle ${medians.optimal} (${(medians.optimal / medians.balanced).toFixed(3)})`,
  );
}

/**
 * Dawid–Skene: each item's true class estimated from several listeners' labels, each listener
 * with a confusion matrix of their own, by expectation–maximisation (analysis-spec §5.5, the
 * aggregate shown beside the majority for `single` attributes).
 *
 * Model: item i has a class k with prior p_k; listener j who hears an item of class k answers l
 * with probability π_j[k][l], independently of the other listeners.
 * Initialisation: T_ik = the share of item i's labels that are k (the soft majority vote).
 * M-step: p_k = mean_i T_ik; π_j[k][l] = Σ_i T_ik·[j said l on i] / Σ_i T_ik·[j labelled i]
 *   (a class row a listener has no weight on is left uniform).
 * E-step: T_ik ∝ p_k · Π_{j labelled i} π_j[k][l_ij], normalised over k; the log-likelihood is
 *   L = Σ_i log Σ_k p_k Π_j π_j[k][l_ij].
 * Stopping: after an E-step, when |L − L_previous| < 1e-6, or after 100 iterations (then
 *   `converged` is false). Probabilities are floored at 1e-12 inside logarithms so that a zero
 *   cell of π cannot make every class impossible.
 * Per-listener reliability = Σ_k p_k·π_j[k][k], the estimated probability that the listener's
 *   label is the true class.
 * The label of an item is argmax_k T_ik (the lower class index on an exact tie).
 * Source: A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer
 * error-rates using the EM algorithm", Applied Statistics 28(1):20–28; the same initialisation and
 * EM as Crowd-Kit's `DawidSkene` (Ustalov et al. 2021).
 * Complexity: O(iterations · (labels·K + listeners·K²)).
 * Edge cases: no labels → every item null and no listeners' figures beyond the uniform matrix;
 * items without labels are left out of the priors (their label is null).
 */

export interface DawidSkeneLabel {
  item: number;
  listener: number;
  label: number;
}

export interface DawidSkeneResult {
  /** Per item, the estimated class (null for an item nobody labelled). */
  labels: (number | null)[];
  /** Per item, the posterior over classes (empty for an unlabelled item). */
  posteriors: number[][];
  priors: number[];
  /** Per listener, confusion[k][l] = P(answer l | true class k). */
  confusion: number[][][];
  /** Per listener, Σ_k p_k π[k][k] (null for a listener without labels). */
  reliability: (number | null)[];
  iterations: number;
  logLikelihood: number;
  converged: boolean;
}

export const DAWID_SKENE_TOLERANCE = 1e-6;
export const DAWID_SKENE_MAX_ITERATIONS = 100;
const FLOOR = 1e-12;

export function dawidSkene(labels: readonly DawidSkeneLabel[], items: number, listeners: number, classes: number): DawidSkeneResult {
  const byItem: DawidSkeneLabel[][] = Array.from({ length: items }, () => []);
  for (const l of labels) byItem[l.item].push(l);
  const labelled = byItem.map((ls) => ls.length > 0);
  let T = byItem.map((ls) => {
    const row = new Array<number>(classes).fill(0);
    for (const l of ls) row[l.label] += 1 / ls.length;
    return row;
  });
  const priors = new Array<number>(classes).fill(1 / classes);
  const uniform = (): number[][] => Array.from({ length: classes }, () => new Array<number>(classes).fill(1 / classes));
  let confusion = Array.from({ length: listeners }, uniform);
  let previous = -Infinity;
  let logLikelihood = -Infinity;
  let iterations = 0;
  let converged = false;
  const labelledCount = labelled.filter(Boolean).length;
  while (iterations < DAWID_SKENE_MAX_ITERATIONS && labelledCount > 0) {
    iterations++;
    // M-step.
    priors.fill(0);
    for (let i = 0; i < items; i++) if (labelled[i]) for (let k = 0; k < classes; k++) priors[k] += T[i][k] / labelledCount;
    const counts = Array.from({ length: listeners }, () => Array.from({ length: classes }, () => new Array<number>(classes).fill(0)));
    for (const l of labels) for (let k = 0; k < classes; k++) counts[l.listener][k][l.label] += T[l.item][k];
    confusion = counts.map((matrix) =>
      matrix.map((row) => {
        const total = row.reduce((s, x) => s + x, 0);
        return total > 0 ? row.map((x) => x / total) : new Array<number>(classes).fill(1 / classes);
      }),
    );
    // E-step.
    logLikelihood = 0;
    T = byItem.map((ls, i) => {
      if (!labelled[i]) return new Array<number>(classes).fill(0);
      const logs = priors.map((p, k) => ls.reduce((s, l) => s + Math.log(Math.max(confusion[l.listener][k][l.label], FLOOR)), Math.log(Math.max(p, FLOOR))));
      const top = Math.max(...logs);
      const weights = logs.map((x) => Math.exp(x - top));
      const sum = weights.reduce((s, x) => s + x, 0);
      logLikelihood += top + Math.log(sum);
      return weights.map((w) => w / sum);
    });
    if (Math.abs(logLikelihood - previous) < DAWID_SKENE_TOLERANCE) {
      converged = true;
      break;
    }
    previous = logLikelihood;
  }
  const answered = new Array<boolean>(listeners).fill(false);
  for (const l of labels) answered[l.listener] = true;
  return {
    labels: T.map((row, i) => (labelled[i] ? row.indexOf(Math.max(...row)) : null)),
    posteriors: T.map((row, i) => (labelled[i] ? row : [])),
    priors: [...priors],
    confusion,
    reliability: confusion.map((m, j) => (answered[j] ? m.reduce((s, row, k) => s + priors[k] * row[k], 0) : null)),
    iterations,
    logLikelihood,
    converged,
  };
}

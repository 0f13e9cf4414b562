import { errorFunction, probit, quantileSorted } from 'simple-statistics';
import type { BucketPoint } from '../figures/BucketChart';
import { isVoteItem, itemKind, type Bundle } from './bundle';
import { attentionCounts, bundleKinds, listenerFacts, minAttentionScore, type ExclusionRule, type ListenerFacts } from './exclusion';
import { seededRandom } from './random';
import { ratingListenerCorrelations, ratingsReport, type RatingsReport } from '../trials/rating/report';
import { binomialTest } from './stats/binomial-test';
import { brennanPredigerKappa } from './stats/brennan-prediger-kappa';
import { BradleyTerryNotIdentifiedError, beatComponents, fitBradleyTerry } from './stats/bradley-terry';
import { cohenKappa } from './stats/cohen-kappa';
import { fleissKappa } from './stats/fleiss-kappa';
import { correlationInterval } from './stats/correlation-interval';
import { countSplitClasses, splitClass, type SplitClass } from './stats/item-split';
import { kendallTauB } from './stats/kendall-tau';
import { krippendorffAlphaNominal } from './stats/krippendorff-alpha';
import { fitSimpleLogistic } from './stats/logistic-regression';
import { majorityAgreement } from './stats/majority-agreement';
import { meanPairwiseAgreement } from './stats/mean-pairwise-agreement';
import { ranksByEstimate, ranksFromIntervals } from './stats/rank-ci';
import { spearmanRho } from './stats/spearman';
import { tieCounts, type TieCounts } from './stats/tie-counts';
import { Z95, wilsonInterval } from './stats/wilson-interval';

/**
 * The study report of analysis-spec §2–3: who was excluded and why, listener reliability,
 * judge-vs-majority agreement per judge (overall, by |Δ| bucket, logistic calibration), and the
 * Bradley–Terry ranking of systems from the votes alone, compared with each judge's ranking;
 * then the per-item table of the pair items and the per-listener quality view (docs/reports.md).
 * An A/B study (items of kind ab, §6) gets this very analysis of its votes: its ties are kept
 * out of the vote columns by the reader, so no statistic sees them, and are counted in
 * `reliability.ties`.
 * Everything works on typed arrays and aggregated counts: votes are touched a few times in
 * linear passes; BT and the calibration see only per-pair / per-item tables.
 */

export interface AnalyzeOptions {
  /** attention score needed to be retained (default 0.75) */
  minAttention?: number;
  /** majority share below which an item is "split" (default 0.75) */
  splitThreshold?: number;
  /** equal-width |Δ| buckets (default 5) */
  buckets?: number;
  /** ridge prior λ for Bradley–Terry; > 0 gives the MAP estimate (default 0 = MLE) */
  btPrior?: number;
  /** listener bootstrap for BT strengths and agreement */
  bootstrap?: { n: number; seed: number } | null;
  /** further exclusion rules, applied after the attention rule (minAttention) in this order */
  rules?: readonly ExclusionRule[];
  /** the listeners' facts (listenerFacts) when the caller has them: the quality view's median response times */
  facts?: ReadonlyMap<string, ListenerFacts>;
}

export type Interval = [number, number];

export interface ExcludedListener {
  listener_id: string;
  reason: string;
  /** every rule the listener failed, the first being `reason` */
  reasons: string[];
  /** the figures of every failed rule (e.g. correct, answered; pearson_r, n, min_r) */
  [detail: string]: unknown;
}

/** One |Δ| bucket: what its figure draws (figures/BucketChart) and the bucket's p-value. */
export interface BucketReport extends BucketPoint {
  ci95: Interval | null;
  p_value: number | null;
}

export interface JudgeReport {
  judge: string;
  n: number;
  n_delta_zero: number;
  agreement: number | null;
  ci95: Interval | null;
  cohen_kappa: number | null;
  p_value: number | null;
  bootstrap_ci95?: Interval | null;
  buckets: BucketReport[];
  calibration: {
    votes: number;
    beta0: number | null;
    beta1: number | null;
    se_beta0: number | null;
    se_beta1: number | null;
    position_bias: number | null;
    /** equal-width bins of x = s(first) − s(second): observed share of first-shown chosen (for the plot) */
    bins: CalibrationBin[];
  };
  system_means: Record<string, number | null>;
  ranking: { systems: number; spearman_rho: number | null; kendall_tau: number | null };
}

export interface CalibrationBin {
  lo: number;
  hi: number;
  x_mean: number;
  votes: number;
  first_chosen: number;
}

export interface SystemStrength {
  system: string;
  log_strength: number;
  se: number;
  ci95: Interval;
  rank: number;
  rank_ci: number;
  bootstrap_ci95?: Interval | null;
}

export interface Report {
  input?: { skipped_rows: number; skipped_by_reason: Record<string, number> };
  listeners: {
    total: number;
    retained: number;
    attention_pass_rate: number | null;
    excluded: ExcludedListener[];
    excluded_by_reason: Record<string, number>;
    not_run_by_reason: Record<string, number>;
  };
  reliability: {
    items: number;
    votes: number;
    krippendorff_alpha: number | null;
    fleiss_kappa: number | null;
    /** (P̄ − ½)/(1 − ½): unchanged by which caption of an item is called a */
    brennan_prediger_kappa: number | null;
    mean_pairwise_agreement: number | null;
    unanimous: number;
    lopsided: number;
    split: number;
    /** the a/b labelling α and Fleiss' κ are computed on (they depend on it, BP κ does not) */
    coding: string;
    /** an A/B study's ties (retained listeners, non-attention items), which no statistic above counts; absent without ab items */
    ties?: TieCounts;
  };
  judges: JudgeReport[];
  bradley_terry: {
    comparisons: number;
    method: 'mle' | 'map' | null;
    prior_lambda: number;
    error?: string;
    never_lose?: string[][];
    never_win?: string[][];
    systems: SystemStrength[];
  };
  bootstrap?: {
    resamples: number;
    seed: number;
    resampled: 'listeners';
    /** resamples in which the BT MLE did not exist (comparison graph not strongly connected) */
    bt_mle_missing: number;
    note?: string;
  };
  /** analysis-spec §4, present when the bundle has ratings.csv */
  ratings?: RatingsReport;
  /** every non-attention pair item with its retained votes (docs/reports.md); absent in a rating-only report */
  items?: PairItemRow[];
  /** every listener who answered: attention, response time, agreement with the panel (docs/reports.md) */
  listener_quality: ListenerQuality[];
}

/** One non-attention pair item: its retained votes, majority and split class (analysis-spec §2). */
export interface PairItemRow {
  item_id: string;
  utterance_id: string;
  system_a: string;
  system_b: string;
  votes: number;
  votes_a: number;
  votes_b: number;
  /** the caption chosen by more than half of the votes; null on a tie or without votes */
  majority: 'a' | 'b' | null;
  /** votes for the more chosen caption / votes; null without votes */
  majority_share: number | null;
  split: SplitClass | null;
  /** an A/B item's ties (retained listeners), which `votes` leaves out; absent on other items */
  ties?: number;
}

/**
 * One listener's quality figures. The pair fields are present when the report has pair items,
 * the rating fields when the bundle has ratings. `flags` names what the figures show beyond the
 * exclusion rules: `agreement_at_chance` (the Wilson interval of the agreement with the others'
 * majority reaches 50%), `uncorrelated_with_panel` (the Fisher interval of r reaches 0).
 */
export interface ListenerQuality {
  listener_id: string;
  retained: boolean;
  /** the exclusion rules the listener failed (empty when retained) */
  reasons: string[];
  /** answers on non-attention items (votes, ties and ratings) */
  answers: number;
  attention_answered: number;
  attention_correct: number;
  attention_score: number | null;
  /** median response_ms over the listener's answers; null when the bundle has no response times */
  median_response_ms: number | null;
  majority_items?: number;
  majority_agreement?: number | null;
  majority_agreement_ci95?: Interval | null;
  panel_r?: number | null;
  panel_n?: number;
  panel_r_ci95?: Interval | null;
  flags: string[];
}

const ZERO_DELTA = 1e-9;

export function analyze(bundle: Bundle, options: AnalyzeOptions = {}): Report {
  const minAttention = options.minAttention ?? 0.75;
  const splitThreshold = options.splitThreshold ?? 0.75;
  const bucketCount = options.buckets ?? 5;
  const lambda = options.btPrior ?? 0;
  const { items, votes, listeners } = bundle;
  const nItems = items.length;
  const nListeners = listeners.length;

  // ---- items, systems, captions (non-attention only) ----
  const systems: string[] = [];
  const systemIndex = new Map<string, number>();
  // utterance → its captions by system index
  const captionsOf = new Map<string, number[]>();
  const captionSystem: number[] = [];
  const sysA = new Int32Array(nItems).fill(-1);
  const sysB = new Int32Array(nItems).fill(-1);
  const capA = new Int32Array(nItems).fill(-1);
  const capB = new Int32Array(nItems).fill(-1);
  const attention = new Uint8Array(nItems);
  const systemOf = (s: string) => {
    let i = systemIndex.get(s);
    if (i === undefined) {
      i = systems.length;
      systemIndex.set(s, i);
      systems.push(s);
    }
    return i;
  };
  const captionOf = (utterance: string, system: number) => {
    let bySystem = captionsOf.get(utterance);
    if (!bySystem) captionsOf.set(utterance, (bySystem = []));
    let c = bySystem[system];
    if (c === undefined) {
      c = captionSystem.length;
      bySystem[system] = c;
      captionSystem.push(system);
    }
    return c;
  };
  for (let i = 0; i < nItems; i++) {
    const item = items[i];
    if (!isVoteItem(item)) continue; // rated in ratings.csv, analysed in trials/rating/report.ts; a registered kind's, by its own report
    if (item.attention) {
      attention[i] = 1;
      continue;
    }
    sysA[i] = systemOf(item.system_a);
    sysB[i] = systemOf(item.system_b);
    capA[i] = captionOf(item.utterance_id, sysA[i]);
    capB[i] = captionOf(item.utterance_id, sysB[i]);
  }
  const K = systems.length;
  const nCaptions = captionSystem.length;

  // ---- exclusions: attention first, then the study's further rules ----
  const { answered, correct } = attentionCounts(bundle);
  const rules = [minAttentionScore(minAttention, bundle), ...(options.rules ?? [])];
  let allAnswered = 0;
  let allCorrect = 0;
  const retained = new Uint8Array(nListeners);
  const excluded: ExcludedListener[] = [];
  const excludedByReason: Record<string, number> = {};
  const notRunByReason: Record<string, number> = {};
  for (let l = 0; l < nListeners; l++) {
    allAnswered += answered[l];
    allCorrect += correct[l];
    const failures: Array<{ reason: string; detail: Record<string, unknown> }> = [];
    for (const rule of rules) {
      const r = rule.evaluate(listeners[l]);
      if (r.outcome === 'not_run') notRunByReason[rule.reason] = (notRunByReason[rule.reason] ?? 0) + 1;
      else if (r.outcome === 'fail') failures.push({ reason: rule.reason, detail: r.detail });
    }
    if (failures.length === 0) {
      retained[l] = 1;
      continue;
    }
    // The figures of every rule that failed (their names differ), so each reason can say what was measured against what.
    const details = Object.assign({}, ...failures.map((f) => f.detail)) as Record<string, unknown>;
    excluded.push({ listener_id: listeners[l], reason: failures[0].reason, ...details, reasons: failures.map((f) => f.reason) });
    for (const f of failures) excludedByReason[f.reason] = (excludedByReason[f.reason] ?? 0) + 1;
  }

  // ---- the votes everything below uses: retained listeners, non-attention items ----
  // Room for every vote, the used ones kept at the front: one pass over the votes, not a count first.
  const usedItem = new Int32Array(votes.length);
  const usedListener = new Int32Array(votes.length);
  const usedChosenA = new Uint8Array(votes.length);
  const nA = new Int32Array(nItems);
  const nTotal = new Int32Array(nItems);
  // first-shown × chosen-first counts per item, for the weighted calibration fit
  const calib = new Int32Array(nItems * 4);
  let nUsed = 0;
  for (let v = 0; v < votes.length; v++) {
    const i = votes.item[v];
    if (!retained[votes.listener[v]] || attention[i]) continue;
    usedItem[nUsed] = i;
    usedListener[nUsed] = votes.listener[v];
    usedChosenA[nUsed] = votes.chosenA[v];
    nA[i] += votes.chosenA[v];
    nTotal[i]++;
    calib[i * 4 + votes.firstA[v] * 2 + (votes.chosenA[v] === votes.firstA[v] ? 1 : 0)]++;
    nUsed++;
  }

  // ---- an A/B study's ties per item (retained listeners, non-attention items); null without ab items ----
  const itemTies = tiesPerItem(bundle, retained, attention);

  // ---- reliability ----
  const itemStart = new Int32Array(nItems + 1);
  for (let i = 0; i < nItems; i++) itemStart[i + 1] = itemStart[i] + nTotal[i];
  const fill = itemStart.slice(0, nItems);
  const csrListener = new Int32Array(nUsed);
  const csrLabel = new Uint8Array(nUsed);
  for (let u = 0; u < nUsed; u++) {
    const p = fill[usedItem[u]]++;
    csrListener[p] = usedListener[u];
    csrLabel[p] = usedChosenA[u];
  }
  const unitCounts: Array<[number, number]> = [];
  const votedA: number[] = [];
  const votedB: number[] = [];
  for (let i = 0; i < nItems; i++) {
    if (nTotal[i] === 0) continue;
    unitCounts.push([nA[i], nTotal[i] - nA[i]]);
    votedA.push(nA[i]);
    votedB.push(nTotal[i] - nA[i]);
  }
  const splits = countSplitClasses(votedA, votedB, splitThreshold);
  const reliability = {
    items: unitCounts.length,
    votes: nUsed,
    krippendorff_alpha: krippendorffAlphaNominal(unitCounts),
    fleiss_kappa: fleissKappa(unitCounts),
    brennan_prediger_kappa: brennanPredigerKappa(unitCounts),
    mean_pairwise_agreement: meanPairwiseAgreement(itemStart, csrListener, csrLabel, nListeners),
    ...splits,
    coding: abCoding(bundle),
    ...(itemTies && { ties: abTies(bundle, itemTies, nTotal) }),
  };

  // ---- human majority: 1 = a, 0 = b, −1 = none ----
  const majority = majorityOf(nA, nTotal);

  // ---- judge scores → caption scores per judge ----
  const { judgeNames, sums, counts } = judgeSums(bundle.judgeScores, nCaptions, systemIndex, captionsOf);
  const nJudges = judgeNames.length;
  const captionScores = sums.map((sum, j) => {
    const out = new Float64Array(nCaptions);
    for (let c = 0; c < nCaptions; c++) out[c] = counts[j][c] > 0 ? sum[c] / counts[j][c] : NaN;
    return out;
  });

  // ---- Bradley–Terry ----
  const wins = new Float64Array(K * K);
  for (let u = 0; u < nUsed; u++) {
    const i = usedItem[u];
    if (usedChosenA[u]) wins[sysA[i] * K + sysB[i]]++;
    else wins[sysB[i] * K + sysA[i]]++;
  }
  const bt: Report['bradley_terry'] = { comparisons: nUsed, method: null, prior_lambda: lambda, systems: [] };
  let theta: Float64Array | null = null;
  if (K >= 2) {
    try {
      const fit = fitBradleyTerry(wins, K, { lambda }, systems);
      theta = fit.theta;
      bt.method = fit.method;
      const se = fit.se!;
      const ci: Interval[] = systems.map((_, s) => [fit.theta[s] - Z95 * se[s], fit.theta[s] + Z95 * se[s]]);
      const rank = ranksByEstimate([...fit.theta]);
      const rankCi = ranksFromIntervals(ci);
      bt.systems = systems
        .map((system, s) => ({ system, log_strength: fit.theta[s], se: se[s], ci95: ci[s], rank: rank[s], rank_ci: rankCi[s]! }))
        .sort((a, b) => a.rank - b.rank);
    } catch (e) {
      if (!(e instanceof BradleyTerryNotIdentifiedError)) throw e;
      bt.error = e.message;
      bt.never_lose = e.neverLose.map((g) => g.map((s) => systems[s]));
      bt.never_win = e.neverWin.map((g) => g.map((s) => systems[s]));
    }
  } else {
    bt.error = `Bradley–Terry needs at least two systems with votes, found ${K}`;
  }

  // ---- judges ----
  const judgeLabels = ['ensemble', ...judgeNames];
  const prefs: Int8Array[] = [];
  const judges: JudgeReport[] = [];
  if (nJudges > 0) {
    for (let j = 0; j <= nJudges; j++) {
      const score = captionScores[j];
      const delta = new Float64Array(nItems).fill(NaN);
      const pref = new Int8Array(nItems).fill(-1);
      for (let i = 0; i < nItems; i++) {
        if (attention[i]) continue;
        const d = score[capA[i]] - score[capB[i]];
        if (Number.isNaN(d)) continue;
        delta[i] = Math.abs(d) < ZERO_DELTA ? 0 : d;
        if (delta[i] !== 0) pref[i] = delta[i] > 0 ? 1 : 0;
      }
      prefs.push(pref);
      judges.push(judgeReport(judgeLabels[j], delta, pref, majority, calib, bucketCount, score, captionSystem, systems, theta));
    }
  }

  const report: Report = {
    listeners: {
      total: nListeners,
      retained: retained.reduce((a, b) => a + b, 0),
      attention_pass_rate: allAnswered > 0 ? allCorrect / allAnswered : null,
      excluded,
      excluded_by_reason: excludedByReason,
      not_run_by_reason: notRunByReason,
    },
    reliability,
    judges,
    bradley_terry: bt,
    listener_quality: [],
  };
  if (bundle.ratings) {
    const judged = options.rules?.find((r) => r.listenerCorrelations)?.listenerCorrelations;
    report.ratings = ratingsReport(bundle, retained, options.bootstrap ?? null, judged);
  }
  // A rating-only study has no pair items: no pair table, not an empty one.
  const hasPairs = (!bundle.ratings && Object.keys(bundle.kindAnswers).length === 0) || items.some((item) => isVoteItem(item) && !item.attention);
  if (hasPairs) report.items = pairItemRows(bundle, attention, nA, nTotal, majority, splitThreshold, itemTies);
  report.listener_quality = listenerQuality(bundle, {
    retained, excluded, answered, correct, pairs: hasPairs ? { attention, nA, nTotal } : null, facts: options.facts ?? listenerFacts(bundle),
  });
  if (bundle.skipped.count > 0) {
    report.input = { skipped_rows: bundle.skipped.count, skipped_by_reason: bundle.skipped.by_reason };
  }

  if (options.bootstrap && options.bootstrap.n > 0) {
    runBootstrap(report, options.bootstrap, {
      K, lambda, theta, systems, nItems, nListeners, retained, sysA, sysB, prefs,
      usedItem: usedItem.subarray(0, nUsed), usedListener: usedListener.subarray(0, nUsed), usedChosenA: usedChosenA.subarray(0, nUsed),
    });
  }
  // Each registered kind's section (analysis/kinds), from its own answers and the listeners every rule retained.
  for (const [kind, answers] of bundleKinds(bundle)) {
    (report as unknown as Record<string, unknown>)[kind.section] = kind.report(bundle, answers, { retained, study: bundle.study, bootstrap: options.bootstrap ?? null });
  }
  return report;
}

/**
 * Each caption's sum and count of judge scores, [0] over every judge (the ensemble), then one per
 * judge in order of appearance. One pass over the scores, in file order (so each caption's sums
 * are added as before). A file sorted by utterance, system or judge repeats the previous row's
 * names, so those are looked up only when they change. A function of its own: its loop, run once
 * over ≈ 200,000 scores, is optimised by itself instead of with the whole of analyze.
 */
function judgeSums(
  scores: Bundle['judgeScores'], nCaptions: number, systemIndex: ReadonlyMap<string, number>, captionsOf: ReadonlyMap<string, number[]>,
): { judgeNames: string[]; sums: Float64Array[]; counts: Float64Array[] } {
  const judgeNames: string[] = [];
  const judgeIndex = new Map<string, number>();
  const sums = [new Float64Array(nCaptions)];
  const counts = [new Float64Array(nCaptions)];
  let judgeName: string | undefined;
  let judgeSum = sums[0];
  let judgeCount = counts[0];
  let systemName: string | undefined;
  let system: number | undefined;
  let utterance: string | undefined;
  let bySystem: number[] | undefined;
  for (const s of scores) {
    if (s.judge !== judgeName) {
      judgeName = s.judge;
      let j = judgeIndex.get(judgeName);
      if (j === undefined) {
        j = judgeNames.length;
        judgeIndex.set(judgeName, j);
        judgeNames.push(judgeName);
        sums.push(new Float64Array(nCaptions));
        counts.push(new Float64Array(nCaptions));
      }
      judgeSum = sums[j + 1];
      judgeCount = counts[j + 1];
    }
    if (s.system !== systemName) system = systemIndex.get((systemName = s.system));
    if (s.utterance_id !== utterance) bySystem = captionsOf.get((utterance = s.utterance_id));
    const c = system === undefined ? undefined : bySystem?.[system];
    if (c === undefined) continue;
    judgeSum[c] += s.score;
    judgeCount[c]++;
    sums[0][c] += s.score;
    counts[0][c]++;
  }
  return { judgeNames, sums, counts };
}

/** The per-item table of the pair items (non-attention), in items.csv order. */
function pairItemRows(
  bundle: Bundle, attention: Uint8Array, nA: Int32Array, nTotal: Int32Array, majority: Int8Array, splitThreshold: number, itemTies: Int32Array | null,
): PairItemRow[] {
  const rows: PairItemRow[] = [];
  bundle.items.forEach((item, i) => {
    if (attention[i] || !isVoteItem(item)) return;
    const a = nA[i];
    const b = nTotal[i] - a;
    rows.push({
      item_id: item.item_id,
      utterance_id: item.utterance_id,
      system_a: item.system_a,
      system_b: item.system_b,
      votes: nTotal[i],
      votes_a: a,
      votes_b: b,
      majority: majority[i] === 1 ? 'a' : majority[i] === 0 ? 'b' : null,
      majority_share: nTotal[i] > 0 ? Math.max(a, b) / nTotal[i] : null,
      split: splitClass(a, b, splitThreshold),
      ...(itemTies && itemKind(item) === 'ab' && { ties: itemTies[i] }),
    });
  });
  return rows;
}

/**
 * The per-listener quality view: every listener who answered, with the attention tally, the
 * median response time, and how far they agree with the others — for pairs the leave-one-out
 * majority (stats/majority-agreement.ts) with its Wilson interval, for ratings the correlation
 * with the panel (stats/listener-correlation.ts) with its Fisher interval. A listener who passes
 * the attention checks but answers the real items at random shows up here with a flag.
 */
function listenerQuality(bundle: Bundle, d: {
  retained: Uint8Array;
  excluded: ExcludedListener[];
  answered: Int32Array;
  correct: Int32Array;
  pairs: { attention: Uint8Array; nA: Int32Array; nTotal: Int32Array } | null;
  facts: ReadonlyMap<string, ListenerFacts>;
}): ListenerQuality[] {
  const { votes, listeners, items } = bundle;
  const answers = new Int32Array(listeners.length);
  let agreement: { n: number; agree: number }[] | null = null;
  if (d.pairs) {
    const { attention, nA, nTotal } = d.pairs;
    // Room for every vote, the non-attention ones at the front (one pass, not a count first).
    const item = new Int32Array(votes.length);
    const listener = new Int32Array(votes.length);
    const chosenA = new Uint8Array(votes.length);
    const counted = new Uint8Array(votes.length);
    let u = 0;
    for (let v = 0; v < votes.length; v++) {
      if (attention[votes.item[v]]) continue;
      item[u] = votes.item[v];
      listener[u] = votes.listener[v];
      chosenA[u] = votes.chosenA[v];
      counted[u] = d.retained[votes.listener[v]];
      answers[listener[u]]++;
      u++;
    }
    agreement = majorityAgreement(item.subarray(0, u), listener.subarray(0, u), chosenA.subarray(0, u), counted.subarray(0, u), nA, nTotal, listeners.length);
  }
  const ratings = bundle.ratings;
  if (ratings) for (let x = 0; x < ratings.length; x++) if (!items[ratings.item[x]].attention) answers[ratings.listener[x]]++;
  // A tie is one of the listener's answers, though no agreement figure counts it.
  const { ties } = bundle;
  for (let t = 0; t < ties.length; t++) if (!items[ties.item[t]].attention) answers[ties.listener[t]]++;
  const correlations = ratings ? ratingListenerCorrelations(bundle) : null;
  const { facts } = d;
  const reasons = new Map(d.excluded.map((e) => [e.listener_id, e.reasons]));
  return listeners.map((id, l) => {
    const row: ListenerQuality = {
      listener_id: id,
      retained: d.retained[l] === 1,
      reasons: reasons.get(id) ?? [],
      answers: answers[l],
      attention_answered: d.answered[l],
      attention_correct: d.correct[l],
      attention_score: d.answered[l] > 0 ? d.correct[l] / d.answered[l] : null,
      median_response_ms: facts.get(id)?.median_response_ms ?? null,
      flags: [],
    };
    if (agreement) {
      const { n, agree } = agreement[l];
      const ci = wilsonInterval(agree, n);
      row.majority_items = n;
      row.majority_agreement = n > 0 ? agree / n : null;
      row.majority_agreement_ci95 = ci;
      if (ci && ci[0] <= 0.5) row.flags.push('agreement_at_chance');
    }
    if (correlations) {
      const c = correlations.get(id);
      const ci = c ? correlationInterval(c.pearson_r, c.n) : null;
      row.panel_r = c?.pearson_r ?? null;
      row.panel_n = c?.n ?? 0;
      row.panel_r_ci95 = ci;
      if (ci && ci[0] <= 0) row.flags.push('uncorrelated_with_panel');
    }
    return row;
  });
}

/** Per item, the ties of retained listeners on it when it is not an attention check; null in a study without ab items. */
function tiesPerItem(bundle: Bundle, retained: Uint8Array, attention: Uint8Array): Int32Array | null {
  const { items, ties } = bundle;
  if (!items.some((item) => itemKind(item) === 'ab')) return null;
  const tiesOf = new Int32Array(items.length);
  for (let t = 0; t < ties.length; t++) if (retained[ties.listener[t]] && !attention[ties.item[t]]) tiesOf[ties.item[t]]++;
  return tiesOf;
}

/**
 * `reliability.ties` of a study with ab items: per system pair of its non-attention ab items, the
 * retained listeners' votes (ties included; nTotal counts the others) and ties.
 */
function abTies(bundle: Bundle, tiesOf: Int32Array, nTotal: Int32Array): TieCounts {
  const { items } = bundle;
  const abItems = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (itemKind(item) !== 'ab' || item.attention) continue;
    abItems.push({ systemA: item.system_a, systemB: item.system_b, votes: nTotal[i] + tiesOf[i], ties: tiesOf[i] });
  }
  return tieCounts(abItems);
}

/** The labels of α and κ in words: the chosen caption as items.csv orients it, and how it was oriented. */
function abCoding(bundle: Bundle): string {
  const how = bundle.study?.orientation ? `; orientation: ${bundle.study.orientation}` : '';
  return `label = the chosen caption, a = the item's system_a and b = its system_b in items.csv (not the screen position)${how}`;
}

function majorityOf(nA: ArrayLike<number>, nTotal: ArrayLike<number>, out = new Int8Array(nA.length)): Int8Array {
  for (let i = 0; i < nA.length; i++) {
    const a = nA[i];
    const t = nTotal[i];
    out[i] = 2 * a > t ? 1 : 2 * (t - a) > t ? 0 : -1;
  }
  return out;
}

function judgeReport(
  judge: string,
  delta: Float64Array,
  pref: Int8Array,
  majority: Int8Array,
  calib: Int32Array,
  bucketCount: number,
  captionScore: Float64Array,
  captionSystem: readonly number[],
  systems: readonly string[],
  theta: Float64Array | null,
): JudgeReport {
  const nItems = delta.length;
  let n = 0;
  let nZero = 0;
  let agree = 0;
  const judgeLabels: string[] = [];
  const majorityLabels: string[] = [];
  const decidedGap: number[] = [];
  const decidedAgree: number[] = [];
  for (let i = 0; i < nItems; i++) {
    if (majority[i] < 0 || Number.isNaN(delta[i])) continue;
    if (delta[i] === 0) {
      nZero++;
      continue;
    }
    n++;
    const match = pref[i] === majority[i] ? 1 : 0;
    agree += match;
    judgeLabels.push(pref[i] ? 'a' : 'b');
    majorityLabels.push(majority[i] ? 'a' : 'b');
    decidedGap.push(Math.abs(delta[i]));
    decidedAgree.push(match);
  }

  // Calibration: y = first-shown caption chosen, x = s(first) − s(second), one weighted row per
  // (item, which caption was first, outcome).
  const rowX = new Float64Array(nItems * 4);
  const rowY = new Uint8Array(nItems * 4);
  const rowW = new Int32Array(nItems * 4);
  let rows = 0;
  let calibrationVotes = 0;
  for (let i = 0; i < nItems; i++) {
    if (Number.isNaN(delta[i])) continue;
    for (let firstA = 0; firstA < 2; firstA++) {
      for (let y = 0; y < 2; y++) {
        const w = calib[i * 4 + firstA * 2 + y];
        if (w === 0) continue;
        rowX[rows] = firstA ? delta[i] : -delta[i];
        rowY[rows] = y;
        rowW[rows] = w;
        rows++;
        calibrationVotes += w;
      }
    }
  }
  const xs = rowX.subarray(0, rows);
  const ys = rowY.subarray(0, rows);
  const ws = rowW.subarray(0, rows);
  const fit = fitSimpleLogistic(xs, ys, ws);

  // System means over the study's captions, each caption once.
  const sum = new Float64Array(systems.length);
  const cnt = new Float64Array(systems.length);
  for (let c = 0; c < captionSystem.length; c++) {
    if (Number.isNaN(captionScore[c])) continue;
    sum[captionSystem[c]] += captionScore[c];
    cnt[captionSystem[c]]++;
  }
  const systemMeans: Record<string, number | null> = {};
  systems.forEach((s, i) => (systemMeans[s] = cnt[i] > 0 ? sum[i] / cnt[i] : null));
  const bt: number[] = [];
  const means: number[] = [];
  if (theta) systems.forEach((_, i) => {
    if (cnt[i] > 0) {
      bt.push(theta[i]);
      means.push(sum[i] / cnt[i]);
    }
  });

  return {
    judge,
    n,
    n_delta_zero: nZero,
    agreement: n > 0 ? agree / n : null,
    ci95: wilsonInterval(agree, n),
    cohen_kappa: cohenKappa(judgeLabels, majorityLabels),
    p_value: binomialTest(agree, n),
    buckets: gapBuckets(decidedGap, decidedAgree, bucketCount),
    calibration: {
      votes: calibrationVotes,
      beta0: fit?.beta0 ?? null,
      beta1: fit?.beta1 ?? null,
      se_beta0: fit?.seBeta0 ?? null,
      se_beta1: fit?.seBeta1 ?? null,
      position_bias: fit ? 1 / (1 + Math.exp(-fit.beta0)) : null,
      bins: calibrationBins(xs, ys, ws, 10),
    },
    system_means: systemMeans,
    ranking: {
      systems: bt.length,
      spearman_rho: bt.length >= 2 ? spearmanRho(bt, means) : null,
      kendall_tau: bt.length >= 2 ? kendallTauB(bt, means) : null,
    },
  };
}

/** Observed share of first-shown captions chosen in equal-width bins of x (weighted rows). */
function calibrationBins(xs: ArrayLike<number>, ys: ArrayLike<number>, ws: ArrayLike<number>, count: number): CalibrationBin[] {
  if (xs.length === 0) return [];
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < xs.length; i++) {
    min = Math.min(min, xs[i]);
    max = Math.max(max, xs[i]);
  }
  const w = (max - min) / count || 1;
  const votes = new Float64Array(count);
  const first = new Float64Array(count);
  const xsum = new Float64Array(count);
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    const b = Math.min(count - 1, Math.floor((x - min) / w));
    votes[b] += ws[i];
    first[b] += ws[i] * ys[i];
    xsum[b] += ws[i] * x;
  }
  const bins: CalibrationBin[] = [];
  for (let b = 0; b < count; b++) {
    if (votes[b] === 0) continue;
    bins.push({ lo: min + b * w, hi: min + (b + 1) * w, x_mean: xsum[b] / votes[b], votes: votes[b], first_chosen: first[b] / votes[b] });
  }
  return bins;
}

/**
 * Equal-width buckets over [min |Δ|, max |Δ|] of the decided items: bucket 1 = [e0, e1],
 * bucket k > 1 = (e_{k−1}, e_k], e_k = min + k·w (spec §2, calibration by score gap).
 */
export function gapBuckets(gaps: readonly number[], agrees: readonly number[], count: number): BucketReport[] {
  if (gaps.length === 0 || count < 1) return [];
  let min = Infinity;
  let max = -Infinity;
  for (const g of gaps) {
    min = Math.min(min, g);
    max = Math.max(max, g);
  }
  const w = (max - min) / count;
  const edge = (k: number) => (k === count ? max : min + k * w);
  const n = new Int32Array(count);
  const a = new Int32Array(count);
  for (let idx = 0; idx < gaps.length; idx++) {
    const g = gaps[idx];
    let k = w > 0 ? Math.min(count, Math.max(1, Math.ceil((g - min) / w))) : 1;
    // Settle floating-point edge cases against the exact edges: (e_{k−1}, e_k].
    while (k > 1 && g <= edge(k - 1)) k--;
    while (k < count && g > edge(k)) k++;
    n[k - 1]++;
    a[k - 1] += agrees[idx];
  }
  return Array.from({ length: count }, (_, b) => ({
    bucket: b + 1,
    lo: edge(b),
    hi: edge(b + 1),
    n: n[b],
    agreement: n[b] > 0 ? a[b] / n[b] : null,
    ci95: wilsonInterval(a[b], n[b]),
    p_value: binomialTest(a[b], n[b]),
  }));
}

interface BootstrapInput {
  K: number;
  lambda: number;
  theta: Float64Array | null;
  systems: string[];
  nItems: number;
  nListeners: number;
  retained: Uint8Array;
  usedItem: Int32Array;
  usedListener: Int32Array;
  usedChosenA: Uint8Array;
  sysA: Int32Array;
  sysB: Int32Array;
  prefs: Int8Array[];
}

/**
 * Bootstrap over listeners (bias-corrected percentile intervals, see biasCorrectedInterval). Each listener's votes are reduced once to a sparse
 * win-count table (pair → count) and an item list; a resample draws listeners with
 * replacement and adds their tables with multiplicity weights, so a BT refit costs
 * O(distinct pairs + K³) rather than a pass over raw comparisons. A resample whose win table
 * is not strongly connected has no MLE: it is counted (bt_mle_missing), not fitted, and when
 * more than 10% of resamples lack an MLE the BT bootstrap intervals are withheld (null),
 * because the remaining resamples would describe only the lucky ones.
 */
function runBootstrap(report: Report, opts: { n: number; seed: number }, d: BootstrapInput): void {
  const random = seededRandom(opts.seed);
  const pool: number[] = [];
  for (let l = 0; l < d.nListeners; l++) if (d.retained[l]) pool.push(l);
  const { K } = d;
  const nUsed = d.usedItem.length;

  // Group used votes by listener.
  const start = new Int32Array(d.nListeners + 1);
  for (let u = 0; u < nUsed; u++) start[d.usedListener[u] + 1]++;
  for (let l = 0; l < d.nListeners; l++) start[l + 1] += start[l];
  const pos = start.slice(0, d.nListeners);
  const byItem = new Int32Array(nUsed);
  const byChosen = new Uint8Array(nUsed);
  const byPair = new Int32Array(nUsed);
  for (let u = 0; u < nUsed; u++) {
    const p = pos[d.usedListener[u]]++;
    const i = d.usedItem[u];
    byItem[p] = i;
    byChosen[p] = d.usedChosenA[u];
    byPair[p] = d.usedChosenA[u] ? d.sysA[i] * K + d.sysB[i] : d.sysB[i] * K + d.sysA[i];
  }
  // Sparse win tables: sort each listener's pairs and run-length encode.
  const tableStart = new Int32Array(d.nListeners + 1);
  const pairs: number[] = [];
  const pairCounts: number[] = [];
  for (let l = 0; l < d.nListeners; l++) {
    const seg = byPair.subarray(start[l], start[l + 1]).slice().sort();
    for (let x = 0; x < seg.length; x++) {
      if (x > 0 && seg[x] === seg[x - 1]) pairCounts[pairCounts.length - 1]++;
      else {
        pairs.push(seg[x]);
        pairCounts.push(1);
      }
    }
    tableStart[l + 1] = pairs.length;
  }
  const pairArr = Int32Array.from(pairs);
  const countArr = Int32Array.from(pairCounts);

  const weight = new Int32Array(d.nListeners);
  const wins = new Float64Array(K * K);
  const countA = new Float64Array(d.nItems);
  const countT = new Float64Array(d.nItems);
  const majority = new Int8Array(d.nItems);
  const thetaDraws: number[][] = Array.from({ length: K }, () => []);
  const agreementDraws: number[][] = d.prefs.map(() => []);
  let missing = 0;
  for (let b = 0; b < opts.n; b++) {
    weight.fill(0);
    for (let x = 0; x < pool.length; x++) weight[pool[Math.floor(random() * pool.length)]]++;
    wins.fill(0);
    countA.fill(0);
    countT.fill(0);
    for (let l = 0; l < d.nListeners; l++) {
      const w = weight[l];
      if (w === 0) continue;
      for (let t = tableStart[l]; t < tableStart[l + 1]; t++) wins[pairArr[t]] += w * countArr[t];
      for (let p = start[l]; p < start[l + 1]; p++) {
        countA[byItem[p]] += w * byChosen[p];
        countT[byItem[p]] += w;
      }
    }
    majorityOf(countA, countT, majority);
    d.prefs.forEach((pref, j) => {
      let n = 0;
      let agree = 0;
      for (let i = 0; i < d.nItems; i++) {
        if (majority[i] < 0 || pref[i] < 0) continue;
        n++;
        if (pref[i] === majority[i]) agree++;
      }
      if (n > 0) agreementDraws[j].push(agree / n);
    });
    if (!d.theta) continue;
    if (d.lambda === 0 && beatComponents(wins, K).count > 1) {
      missing++;
      continue;
    }
    const fit = fitBradleyTerry(wins, K, { lambda: d.lambda, standardErrors: false, start: d.theta });
    for (let s = 0; s < K; s++) thetaDraws[s].push(fit.theta[s]);
  }

  const withhold = missing > 0.1 * opts.n;
  for (const entry of report.bradley_terry.systems) {
    entry.bootstrap_ci95 = withhold ? null : biasCorrectedInterval(thetaDraws[d.systems.indexOf(entry.system)], entry.log_strength);
  }
  report.judges.forEach((j, idx) => (j.bootstrap_ci95 = j.agreement === null ? null : biasCorrectedInterval(agreementDraws[idx], j.agreement)));
  const notes: string[] = [];
  if (withhold) notes.push(`BT bootstrap intervals withheld: the MLE did not exist in ${missing} of ${opts.n} resamples`);
  const noAgreementCi = report.judges.filter((j) => j.agreement !== null && j.bootstrap_ci95 === null).map((j) => j.judge);
  if (noAgreementCi.length) {
    notes.push(`agreement bootstrap intervals withheld for ${noAgreementCi.join(', ')}: the resampled agreements all fell on one side of the estimate (duplicated listeners flip close majorities), so the bias cannot be corrected; use the Wilson ci95`);
  }
  report.bootstrap = {
    resamples: opts.n,
    seed: opts.seed,
    resampled: 'listeners',
    bt_mle_missing: missing,
    ...(notes.length ? { note: notes.join('; ') } : {}),
  };
}

/**
 * Bias-corrected (BC) percentile interval: z0 = Φ⁻¹(share of draws below the estimate, ties
 * counted half); the interval is the draws' quantiles at Φ(2z0 ∓ 1.96). It matters for the
 * majority-vote agreement: resampling listeners with replacement duplicates some and drops
 * others, which flips close majorities and shifts every resampled agreement downwards, so the
 * plain percentile interval can miss the estimate altogether. When all draws lie on one side of
 * the estimate the bias cannot be estimated and the interval is withheld (null).
 * Source: Efron (1987), JASA 82:171–185; Efron & Tibshirani (1993), An Introduction to the
 * Bootstrap, §14.3. Φ and Φ⁻¹ from simple-statistics (errorFunction, probit).
 */
export function biasCorrectedInterval(draws: readonly number[], estimate: number): Interval | null {
  if (draws.length < 2) return null;
  let below = 0;
  for (const x of draws) below += x < estimate ? 1 : x === estimate ? 0.5 : 0;
  const p0 = below / draws.length;
  if (p0 <= 0 || p0 >= 1) return null;
  const z0 = probit(p0);
  const phi = (z: number) => 0.5 * (1 + errorFunction(z / Math.SQRT2));
  const sorted = [...draws].sort((a, b) => a - b);
  return [quantileSorted(sorted, phi(2 * z0 - Z95)), quantileSorted(sorted, phi(2 * z0 + Z95))];
}

import type { BundleItem, BundleRating, BundleStimulus, BundleVote, JudgeScore, KindRowsToWrite, KindRowToWrite } from './bundle';
import { normal, seededRandom } from './random';
import { abRespondent, chosenSide } from '../trials/ab/simulate';
import { pairRespondent } from '../trials/pair/simulate';
import { ratingRespondent } from '../trials/rating/simulate';
import { mushraRespondent } from '../trials/mushra/simulate';
import type { MushraRole } from '../trials/mushra/report';
import { abxAnswer } from '../trials/abx/simulate';
import { ABX_COLUMNS } from '../trials/abx/report';
import { ccrAnswer } from '../trials/ccr/simulate';
import { CCR_COLUMNS, signCorrected } from '../trials/ccr/report';

/**
 * A seeded study simulator that writes bundles from known truth, so the analysis can be checked
 * against the answer: systems have true Bradley–Terry log-strengths θ (mean 0); an attentive
 * listener picks caption a with probability σ(θ_a − θ_b ± positionBias) (+ when a is shown
 * first); careless listeners click at random, attention checks included — except the first
 * `carelessPassing` of them, who answer the checks as attentive listeners do (the careless
 * listener the checks miss, whom only the quality view finds). Each caption gets a
 * latent quality θ_system + N(0, captionNoise²); each judge run scores it as
 * round(5.5 + 1.5·quality + judge bias + N(0, runNoise²)) clamped to 1–10, so judge scores are
 * correlated with the truth without being it.
 *
 * Listeners answer as their kind's seeded respondent (trials/<kind>/simulate.ts); this file
 * draws the truth, the items, the judges and the roster and assembles the bundle.
 *
 * `kind: 'ab'` makes the same study an A/B preference test between systems' renditions
 * (docs/analysis-spec.md §6): items of kind ab, listeners answering as trials/ab/simulate.ts's
 * respondent (ties with probability up to `tieRate`, none when it is 0: a study without "no
 * preference"), attention checks pitting a clean rendition against a degraded one (expected = the
 * clean side), and the judges automatic quality predictors of each rendition: score =
 * 3 + 0.8·quality + 0.3·judge bias + 0.25·N(0, runNoise²) clamped to 1–5 (a MOS scale), to 3
 * decimals, by default 2 predictors × 1 run. The draws of a pair study are unchanged.
 *
 * `simulateAbx` and `simulateCcr` (below) do the same for the ABX and CCR kinds, whose answers
 * travel in their own files (abx.csv, ccr.csv; analysis/kinds).
 */
export interface SimulateOptions {
  systems: number;
  items: number;
  listeners: number;
  careless: number;
  attention: number;
  seed: number;
  /** listeners per ordinary item (default: every listener rates every item) */
  ratingsPerItem?: number;
  /** logit added in favour of the first-shown caption (default 0.2) */
  positionBias?: number;
  judges?: number;
  runs?: number;
  /** probability that a judge run of a caption is missing from judge_scores.csv (default 0) */
  missingRuns?: number;
  captionNoise?: number;
  runNoise?: number;
  /** probability an attentive listener answers an attention check right (default 0.97) */
  attentiveAccuracy?: number;
  /** how many of the careless listeners answer attention checks like attentive ones (default 0) */
  carelessPassing?: number;
  /** a caption-pair study (default) or an A/B preference study between renditions */
  kind?: 'pair' | 'ab';
  /** ab: the largest chance of a tie, between equal systems (default 0.15; 0 = no tie offered) */
  tieRate?: number;
  /** pair: each listener's sensitivity (factor on the strength gap) is uniform in 1 ± this (default 0) */
  listenerSpread?: number;
}

export interface SimulatedStudy {
  items: BundleItem[];
  votes: BundleVote[];
  judgeScores: JudgeScore[];
  truth: { theta: Record<string, number>; careless: string[]; carelessPassing: string[]; positionBias: number; tieRate?: number };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * Listener ids and which of them are careless, spread through the roster rather than bunched at
 * the end; the careless listeners with the lowest numbers pass the attention checks (no draw, so
 * a seed gives the same study with or without them).
 */
function roster(o: { listeners: number; careless: number; carelessPassing?: number }, random: () => number) {
  const listenerIds = Array.from({ length: o.listeners }, (_, l) => `L${pad(l + 1, String(o.listeners).length)}`);
  const carelessSet = new Set<number>();
  while (carelessSet.size < o.careless) carelessSet.add(Math.floor(random() * o.listeners));
  if ((o.carelessPassing ?? 0) > o.careless) throw new RangeError('more careless listeners passing the checks than careless listeners');
  const passingSet = new Set([...carelessSet].sort((a, b) => a - b).slice(0, o.carelessPassing ?? 0));
  const ids = (set: Set<number>) => [...set].sort((a, b) => a - b).map((l) => listenerIds[l]);
  return { listenerIds, carelessSet, passingSet, careless: ids(carelessSet), passing: ids(passingSet) };
}

export function simulate(o: SimulateOptions): SimulatedStudy {
  const random = seededRandom(o.seed);
  const ab = o.kind === 'ab';
  const tieRate = ab ? (o.tieRate ?? 0.15) : 0;
  const positionBias = o.positionBias ?? 0.2;
  const judges = o.judges ?? (ab ? 2 : 3);
  const runs = o.runs ?? (ab ? 1 : 3);
  const missingRuns = o.missingRuns ?? 0;
  const captionNoise = o.captionNoise ?? 0.5;
  const runNoise = o.runNoise ?? 0.4;
  const accuracy = o.attentiveAccuracy ?? 0.97;
  if (o.systems < 2) throw new RangeError('simulate needs at least 2 systems');
  if (o.careless > o.listeners) throw new RangeError('more careless listeners than listeners');

  const systemNames = Array.from({ length: o.systems }, (_, s) => (ab ? `tts-${pad(s + 1, 2)}` : s === 0 ? 'oracle' : `system-${pad(s, 2)}`));
  // Sorted so the oracle captions are the strongest system, as in the reference study.
  const raw = systemNames.map(() => normal(random)).sort((a, b) => b - a);
  const mean = raw.reduce((a, b) => a + b, 0) / raw.length;
  const theta = raw.map((t) => t - mean);

  const items: BundleItem[] = [];
  const itemSystems: Array<[number, number]> = [];
  const judgeScores: JudgeScore[] = [];
  const judgeBias = Array.from({ length: judges }, () => 0.5 * normal(random));
  const judgeNames = Array.from({ length: judges }, (_, j) => (ab ? `mos-predictor-${j + 1}` : `judge-${j + 1}`));
  const judgeScore = ab
    ? (quality: number, j: number) => Math.round(1000 * Math.min(5, Math.max(1, 3 + 0.8 * quality + 0.3 * judgeBias[j] + 0.25 * runNoise * normal(random)))) / 1000
    : (quality: number, j: number) => Math.min(10, Math.max(1, Math.round(5.5 + 1.5 * quality + judgeBias[j] + runNoise * normal(random))));
  const kind = ab ? { kind: 'ab' as const } : {};
  const idWidth = String(o.items + o.attention).length;
  for (let i = 0; i < o.items; i++) {
    // Cycle the first system so every system appears; draw its opponent at random.
    const a = i % o.systems;
    let b = Math.floor(random() * (o.systems - 1));
    if (b >= a) b++;
    const [sa, sb] = random() < 0.5 ? [a, b] : [b, a];
    const utterance = `utt-${pad(i + 1, idWidth)}`;
    items.push({ item_id: `item-${pad(i + 1, idWidth)}`, utterance_id: utterance, system_a: systemNames[sa], system_b: systemNames[sb], attention: false, expected: null, ...kind });
    itemSystems.push([sa, sb]);
    for (const s of [sa, sb]) {
      const quality = theta[s] + captionNoise * normal(random);
      for (let j = 0; j < judges; j++) {
        for (let r = 1; r <= runs; r++) {
          const score = judgeScore(quality, j);
          // Drawn only when runs may be missing, so seeded studies without them stay as they were.
          if (missingRuns > 0 && random() < missingRuns) continue;
          judgeScores.push({ utterance_id: utterance, system: systemNames[s], judge: judgeNames[j], run: String(r), score });
        }
      }
    }
  }
  for (let c = 0; c < o.attention; c++) {
    const expected = random() < 0.5 ? 'a' : 'b';
    // An A/B check's expected side is the clean rendition, the other a degraded copy of it.
    const [systemA, systemB] = !ab ? ['check-true', 'check-inverted'] : expected === 'a' ? ['check-clean', 'check-degraded'] : ['check-degraded', 'check-clean'];
    items.push({
      item_id: `check-${pad(c + 1, 2)}`, utterance_id: `check-utt-${pad(c + 1, 2)}`,
      system_a: systemA, system_b: systemB, attention: true, expected, ...kind,
    });
  }

  const { listenerIds, carelessSet, passingSet, careless: carelessIds, passing } = roster(o, random);
  const r = Math.min(o.ratingsPerItem ?? o.listeners, o.listeners);
  const votes: BundleVote[] = [];
  // Each listener answers as its kind's respondent, drawing from the study's generator.
  const respondent = (l: number) => ({ careless: carelessSet.has(l), passesChecks: passingSet.has(l), positionBias, accuracy });
  const abRespondents = ab ? listenerIds.map((_, l) => abRespondent(random, { ...respondent(l), tieRate })) : [];
  // Drawn only with a spread, so seeded studies without one stay as they were.
  const spread = o.listenerSpread ?? 0;
  const pairRespondents = ab ? [] : listenerIds.map((_, l) => pairRespondent(random, { ...respondent(l), ...(spread > 0 && { sensitivity: 1 + spread * (2 * random() - 1) }) }));
  const vote = (item: BundleItem, l: number, pA: number | null, expected: BundleItem['expected']) => {
    const firstA = random() < 0.5;
    const careless = carelessSet.has(l);
    const side = expected === 'a' ? 'a' as const : expected === 'b' ? 'b' as const : undefined;
    const chosen: BundleVote['chosen'] = ab
      ? chosenSide(abRespondents[l]({
        tie: tieRate > 0,
        gap: pA === null ? 0 : firstA ? pA : -pA,
        ...(side && { expected: (side === 'a') === firstA ? 'A' as const : 'B' as const }),
      }), firstA ? 'a' : 'b')
      : pairRespondents[l]({ first: firstA ? 'a' : 'b', gap: pA ?? 0, ...(side && { expected: side }) });
    votes.push({
      item_id: item.item_id, listener_id: listenerIds[l], first: firstA ? 'a' : 'b', chosen,
      extra: { response_ms: Math.round(careless ? 600 + 600 * random() : 2500 + 5000 * random()) },
    });
  };
  for (let i = 0; i < o.items; i++) {
    const [sa, sb] = itemSystems[i];
    for (let k = 0; k < r; k++) vote(items[i], (i * r + k) % o.listeners, theta[sa] - theta[sb], null);
  }
  for (let c = 0; c < o.attention; c++) {
    const item = items[o.items + c];
    for (let l = 0; l < o.listeners; l++) vote(item, l, null, item.expected);
  }

  return {
    items,
    votes,
    judgeScores,
    truth: {
      theta: Object.fromEntries(systemNames.map((s, i) => [s, theta[i]])),
      careless: carelessIds,
      carelessPassing: passing,
      positionBias,
      ...(ab && { tieRate }),
    },
  };
}

/**
 * A seeded rating (MOS / ACR) study from known truth: each system has a true MOS; item i rates
 * system i mod S on utterance ⌊i / S⌋ (so utterances are crossed with systems). An attentive
 * listener l scores round(MOS_s + u_i + b_l + e) clamped to the scale, with an item effect
 * u_i ~ N(0, itemNoise²), a listener bias b_l ~ N(0, listenerBias²) and noise e ~ N(0,
 * ratingNoise²); a careless listener picks any point of the scale at random, attention checks
 * included (but for the first `carelessPassing`, who answer the checks as attentive listeners
 * do). Attention items ask for a given score, which attentive listeners give with
 * probability attentiveAccuracy. The true MOS is the latent mean before rounding and clamping:
 * the expected score is pulled towards the middle near the ends of the scale, in the same order.
 */
export interface SimulateRatingsOptions
  extends Pick<SimulateOptions, 'systems' | 'items' | 'listeners' | 'careless' | 'attention' | 'seed' | 'ratingsPerItem' | 'attentiveAccuracy' | 'carelessPassing'> {
  /** true MOS per system (default: drawn uniformly between 1.8 and 4.4, best first) */
  mos?: readonly number[];
  /** SD of the listener bias (default 0.4) */
  listenerBias?: number;
  /** SD of a single rating's noise (default 0.7) */
  ratingNoise?: number;
  /** SD of the item effect (default 0.3) */
  itemNoise?: number;
  /** the scale's lowest and highest score (default ACR 1–5) */
  scale?: [number, number];
}

export interface SimulatedRatingStudy {
  items: BundleItem[];
  votes: BundleVote[];
  judgeScores: JudgeScore[];
  ratings: BundleRating[];
  truth: { mos: Record<string, number>; careless: string[]; carelessPassing: string[] };
}

export function simulateRatings(o: SimulateRatingsOptions): SimulatedRatingStudy {
  const random = seededRandom(o.seed);
  const [lo, hi] = o.scale ?? [1, 5];
  const listenerBias = o.listenerBias ?? 0.4;
  const ratingNoise = o.ratingNoise ?? 0.7;
  const itemNoise = o.itemNoise ?? 0.3;
  const accuracy = o.attentiveAccuracy ?? 0.97;
  if (o.systems < 1) throw new RangeError('simulateRatings needs at least 1 system');
  if (o.careless > o.listeners) throw new RangeError('more careless listeners than listeners');
  if (o.mos && o.mos.length !== o.systems) throw new RangeError(`mos has ${o.mos.length} values for ${o.systems} systems`);
  if (!(lo < hi)) throw new RangeError(`scale ${lo}–${hi} is empty`);

  const systemNames = Array.from({ length: o.systems }, (_, s) => `tts-${pad(s + 1, 2)}`);
  const mos = o.mos ? [...o.mos] : systemNames.map(() => 1.8 + 2.6 * random()).sort((a, b) => b - a);
  const point = () => lo + Math.floor(random() * (hi - lo + 1));

  const idWidth = String(o.items + o.attention).length;
  const utteranceWidth = String(Math.ceil(o.items / o.systems)).length;
  const items: BundleItem[] = [];
  const itemEffect: number[] = [];
  for (let i = 0; i < o.items; i++) {
    const s = i % o.systems;
    items.push({
      item_id: `item-${pad(i + 1, idWidth)}`, utterance_id: `utt-${pad(Math.floor(i / o.systems) + 1, utteranceWidth)}`,
      system_a: systemNames[s], system_b: '', attention: false, expected: null,
    });
    itemEffect.push(itemNoise * normal(random));
  }
  const required: number[] = [];
  for (let c = 0; c < o.attention; c++) {
    required.push(point());
    items.push({
      item_id: `check-${pad(c + 1, 2)}`, utterance_id: `check-utt-${pad(c + 1, 2)}`,
      system_a: systemNames[c % o.systems], system_b: '', attention: true, expected: required[c],
    });
  }

  const { listenerIds, carelessSet, passingSet, careless: carelessIds, passing } = roster(o, random);
  const bias = listenerIds.map(() => listenerBias * normal(random));
  // Each listener answers as the rating kind's respondent, drawing from the study's generator.
  const respondents = listenerIds.map((_, l) => ratingRespondent(random, {
    careless: carelessSet.has(l), passesChecks: passingSet.has(l), scale: [lo, hi], bias: bias[l], noise: ratingNoise, accuracy,
  }));
  const r = Math.min(o.ratingsPerItem ?? o.listeners, o.listeners);
  const ratings: BundleRating[] = [];
  const rate = (item: BundleItem, l: number, score: number) =>
    ratings.push({ item_id: item.item_id, listener_id: listenerIds[l], system: item.system_a, utterance_id: item.utterance_id, score });
  for (let i = 0; i < o.items; i++) {
    const s = i % o.systems;
    for (let k = 0; k < r; k++) {
      const l = (i * r + k) % o.listeners;
      rate(items[i], l, respondents[l]({ mean: mos[s] + itemEffect[i] }));
    }
  }
  for (let c = 0; c < o.attention; c++) {
    const item = items[o.items + c];
    for (let l = 0; l < o.listeners; l++) rate(item, l, respondents[l]({ expected: required[c] }));
  }

  return {
    items,
    votes: [],
    judgeScores: [],
    ratings,
    truth: {
      mos: Object.fromEntries(systemNames.map((s, i) => [s, mos[i]])),
      careless: carelessIds,
      carelessPassing: passing,
    },
  };
}

/**
 * A seeded MUSHRA study from known truth (analysis-spec §5.3, trials/mushra/simulate.ts's respondent):
 * `systems` systems with true scores spread evenly from 85 down to 30 (best first), the 3.5 kHz anchor
 * at 15 and the 7 kHz anchor at 45; each item one utterance with the hidden reference, both anchors and
 * every system, scored by every listener. The first `missReference` listeners score the hidden
 * reference like a good system (the post-screening must exclude them).
 */
export interface SimulateMushraOptions extends Pick<SimulateOptions, 'systems' | 'items' | 'listeners' | 'seed'> {
  missReference: number;
}

export interface SimulatedMushraStudy {
  items: BundleItem[];
  stimuli: BundleStimulus[];
  rows: { item_id: string; listener_id: string; system: string; role: MushraRole; score: number }[];
  truth: { scores: Record<string, number>; missesReference: string[] };
}

export function simulateMushra(o: SimulateMushraOptions): SimulatedMushraStudy {
  const random = seededRandom(o.seed);
  if (o.systems + 3 > 12) throw new RangeError('a MUSHRA page has at most 12 stimuli: at most 9 systems');
  if (o.missReference > o.listeners) throw new RangeError('more listeners missing the reference than listeners');
  const systemNames = Array.from({ length: o.systems }, (_, s) => `tts-${pad(s + 1, 2)}`);
  const truth: Record<string, number> = Object.fromEntries(systemNames.map((s, i) => [s, o.systems === 1 ? 60 : 85 - (55 * i) / (o.systems - 1)]));
  const page: { slot: string; role: MushraRole; system: string; truth: number }[] = [
    { slot: 'reference', role: 'reference', system: 'reference', truth: 100 },
    { slot: 'anchor35', role: 'anchor35', system: 'anchor35', truth: 15 },
    { slot: 'anchor70', role: 'anchor70', system: 'anchor70', truth: 45 },
    ...systemNames.map((system, k) => ({ slot: `condition-${k + 1}`, role: 'condition' as const, system, truth: truth[system] })),
  ];
  const idWidth = String(o.items).length;
  const items: BundleItem[] = [];
  const stimuli: BundleStimulus[] = [];
  for (let i = 0; i < o.items; i++) {
    const item_id = `item-${pad(i + 1, idWidth)}`;
    items.push({ kind: 'mushra', item_id, utterance_id: `utt-${pad(i + 1, idWidth)}`, system_a: 'reference', system_b: '', attention: false, expected: null });
    for (const s of page) stimuli.push({ item_id, slot: s.slot, role: s.role, system: s.system });
  }
  const listenerIds = Array.from({ length: o.listeners }, (_, l) => `L${pad(l + 1, String(o.listeners).length)}`);
  const respondents = listenerIds.map((_, l) => mushraRespondent(random, { missesReference: l < o.missReference, bias: 4 * normal(random) }));
  const rows: SimulatedMushraStudy['rows'] = [];
  for (const item of items) {
    listenerIds.forEach((listener_id, l) => {
      const scores = respondents[l](page);
      page.forEach((s, k) => rows.push({ item_id: item.item_id, listener_id, system: s.system, role: s.role, score: scores[k] }));
    });
  }
  return { items, stimuli, rows, truth: { scores: truth, missesReference: listenerIds.slice(0, o.missReference) } };
}

/** What simulateAbx and simulateCcr share with the other simulators. */
export type SimulateKindOptions = Pick<SimulateOptions, 'systems' | 'items' | 'listeners' | 'careless' | 'attention' | 'seed' | 'ratingsPerItem'>;

/** A registered kind's simulated study: its items, its answers file (analysis/kinds) and the truth. */
export interface SimulatedKindStudy<Truth> {
  items: BundleItem[];
  votes: BundleVote[];
  judgeScores: JudgeScore[];
  answerFiles: KindRowsToWrite[];
  truth: Truth & { careless: string[] };
}

const responseMs = (careless: boolean, random: () => number) => Math.round(careless ? 600 + 600 * random() : 2500 + 5000 * random());

/**
 * A seeded ABX study (analysis-spec §5.2) from known truth: systems sit on a line at positions
 * drawn N(0, spread²), best first, so a pair's true d′ is the distance |θ_a − θ_b| and the line's
 * order is recoverable from the pairs' d′ (the farthest pair holds its two ends). Items cycle the
 * systems as `simulate` does; each answer draws X's slot and the slot offered as A by coins and
 * asks trials/abx/simulate.ts's respondent (`bias`: its pull towards "X is A" when guessing).
 * Attention checks pit a clean rendition against its degraded copy, X the degraded copy.
 */
export function simulateAbx(o: SimulateKindOptions & { spread?: number; bias?: number }): SimulatedKindStudy<{ theta: Record<string, number>; dPrime: Record<string, number> }> {
  const random = seededRandom(o.seed);
  if (o.systems < 2) throw new RangeError('simulateAbx needs at least 2 systems');
  if (o.careless > o.listeners) throw new RangeError('more careless listeners than listeners');
  const spread = o.spread ?? 1.5;
  const systemNames = Array.from({ length: o.systems }, (_, s) => `tts-${pad(s + 1, 2)}`);
  const theta = systemNames.map(() => spread * normal(random)).sort((a, b) => b - a);
  const idWidth = String(o.items + o.attention).length;
  const items: BundleItem[] = [];
  const gap: number[] = [];
  for (let i = 0; i < o.items; i++) {
    const a = i % o.systems;
    let b = Math.floor(random() * (o.systems - 1));
    if (b >= a) b++;
    const [sa, sb] = random() < 0.5 ? [a, b] : [b, a];
    items.push({ kind: 'abx', item_id: `item-${pad(i + 1, idWidth)}`, utterance_id: `utt-${pad(i + 1, idWidth)}`, system_a: systemNames[sa], system_b: systemNames[sb], attention: false, expected: null });
    gap.push(Math.abs(theta[sa] - theta[sb]));
  }
  for (let c = 0; c < o.attention; c++) {
    const expected = random() < 0.5 ? 'a' : 'b';
    const [systemA, systemB] = expected === 'a' ? ['check-degraded', 'check-clean'] : ['check-clean', 'check-degraded'];
    items.push({ kind: 'abx', item_id: `check-${pad(c + 1, 2)}`, utterance_id: `check-utt-${pad(c + 1, 2)}`, system_a: systemA, system_b: systemB, attention: true, expected });
  }
  const { listenerIds, carelessSet, careless } = roster(o, random);
  const rows: KindRowToWrite[] = [];
  const answer = (item: BundleItem, l: number, dPrime: number) => {
    const x: 'a' | 'b' = item.attention ? (item.expected as 'a' | 'b') : random() < 0.5 ? 'a' : 'b';
    const first: 'a' | 'b' = random() < 0.5 ? 'a' : 'b';
    const said = abxAnswer(random, { xIs: x === first ? 'A' : 'B', dPrime, check: item.attention }, { careless: carelessSet.has(l), bias: o.bias });
    const chosen = (said === 'A') === (first === 'a') ? 'a' : 'b';
    rows.push({
      cells: { item_id: item.item_id, listener_id: listenerIds[l], system_a: item.system_a, system_b: item.system_b, x, chosen },
      extra: { response_ms: responseMs(carelessSet.has(l), random) },
    });
  };
  const r = Math.min(o.ratingsPerItem ?? o.listeners, o.listeners);
  for (let i = 0; i < o.items; i++) for (let k = 0; k < r; k++) answer(items[i], (i * r + k) % o.listeners, gap[i]);
  for (let c = 0; c < o.attention; c++) for (let l = 0; l < o.listeners; l++) answer(items[o.items + c], l, 0);
  const dPrime: Record<string, number> = {};
  for (let a = 0; a < o.systems; a++) for (let b = a + 1; b < o.systems; b++) dPrime[`${systemNames[a]}|${systemNames[b]}`] = Math.abs(theta[a] - theta[b]);
  return {
    items, votes: [], judgeScores: [],
    answerFiles: [{ file: 'abx.csv', columns: ABX_COLUMNS, rows }],
    truth: { theta: Object.fromEntries(systemNames.map((s, i) => [s, theta[i]])), dPrime, careless },
  };
}

/**
 * A seeded CCR/CMOS study (analysis-spec §5.4) from known truth: every processed system has a true
 * CMOS against the reference (`ref`), drawn uniformly in [−2, 1], best first; item i rates system
 * i mod S on utterance ⌊i / S⌋. Each item's listeners alternate which version comes first (the
 * balance the app draws) and answer as trials/ccr/simulate.ts's respondent, `recency` its pull
 * towards the second version (default 0.3, so the report's order effect is about +0.6). Attention
 * checks rate the reference's degraded copy against it (expected −1: worse).
 */
export function simulateCcr(o: SimulateKindOptions & { recency?: number; noise?: number }): SimulatedKindStudy<{ cmos: Record<string, number>; recency: number }> {
  const random = seededRandom(o.seed);
  if (o.systems < 1) throw new RangeError('simulateCcr needs at least 1 processed system');
  if (o.careless > o.listeners) throw new RangeError('more careless listeners than listeners');
  const recency = o.recency ?? 0.3;
  const reference = 'ref';
  const systemNames = Array.from({ length: o.systems }, (_, s) => `tts-${pad(s + 1, 2)}`);
  const cmos = systemNames.map(() => -2 + 3 * random()).sort((a, b) => b - a);
  const idWidth = String(o.items + o.attention).length;
  const utteranceWidth = String(Math.ceil(o.items / o.systems)).length;
  const items: BundleItem[] = [];
  for (let i = 0; i < o.items; i++) {
    items.push({
      kind: 'ccr', item_id: `item-${pad(i + 1, idWidth)}`, utterance_id: `utt-${pad(Math.floor(i / o.systems) + 1, utteranceWidth)}`,
      system_a: systemNames[i % o.systems], system_b: reference, attention: false, expected: null,
    });
  }
  for (let c = 0; c < o.attention; c++) {
    items.push({ kind: 'ccr', item_id: `check-${pad(c + 1, 2)}`, utterance_id: `check-utt-${pad(c + 1, 2)}`, system_a: 'check-degraded', system_b: reference, attention: true, expected: -1 });
  }
  const { listenerIds, carelessSet, careless } = roster(o, random);
  const rows: KindRowToWrite[] = [];
  const answer = (item: BundleItem, l: number, k: number, truth: number) => {
    const first = k % 2 === 0 ? 'reference' as const : 'processed' as const;
    const raw = ccrAnswer(random, { first, cmos: truth, check: item.attention }, { careless: carelessSet.has(l), recency, noise: o.noise });
    rows.push({
      cells: { item_id: item.item_id, listener_id: listenerIds[l], system: item.system_a, reference_system: reference, first, raw, score: signCorrected(first, raw) },
      extra: { response_ms: responseMs(carelessSet.has(l), random) },
    });
  };
  const r = Math.min(o.ratingsPerItem ?? o.listeners, o.listeners);
  for (let i = 0; i < o.items; i++) for (let k = 0; k < r; k++) answer(items[i], (i * r + k) % o.listeners, k, cmos[i % o.systems]);
  for (let c = 0; c < o.attention; c++) for (let l = 0; l < o.listeners; l++) answer(items[o.items + c], l, l + c, 0);
  return {
    items, votes: [], judgeScores: [],
    answerFiles: [{ file: 'ccr.csv', columns: CCR_COLUMNS, rows }],
    truth: { cmos: Object.fromEntries(systemNames.map((s, i) => [s, cmos[i]])), recency, careless },
  };
}

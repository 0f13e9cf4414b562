/**
 * The reference design's item sampler: choose `count` caption pairs (utterance, system a,
 * system b) so that every system appears in at least k items, the items spread over the whole
 * range of the judge's |Δ| with the near-tie bucket over-sampled, and no utterance is used more
 * than `maxPerUtterance` times. Pure and deterministic for a seed.
 *
 * Method: enumerate every candidate pair; split [min |Δ|, max |Δ|] into equal-width buckets
 * (bucket 1 closed, later ones (lo, hi], as analysis-spec §2 buckets are); apportion `count`
 * over buckets by weight (near-tie bucket `nearTieWeight`, others 1, largest remainder, capped
 * by what each bucket holds). Then greedily (1) cover systems below k, preferring pairs of two
 * under-covered systems and buckets furthest below target, and (2) fill each bucket to target
 * with the pairs whose systems are least used so far. Ties are broken by a seeded shuffle.
 * Which caption is `a` is a seeded coin per item, balanced per system (studies/orientation.ts).
 * Cost O(candidates + count × min(candidates, 4000)). Rating studies draw single captions with
 * the same machinery (sampleRatedCaptions), without strata.
 */
import { balancedOrientation } from './orientation';
import { keyedRandom, type StudyRandom } from '../analysis/random';

export interface ScoredCaption {
  utteranceId: string;
  system: string;
  /** The chosen judge's score of this caption; null when it has none. */
  score: number | null;
  /** The caption's text: two captions that read the same give no choice, so never pair them. */
  text?: string;
}

export interface SamplerOptions {
  count: number;
  minPerSystem: number;
  /** false = no judge: one bucket, unscored captions allowed. */
  stratify: boolean;
  buckets: number;
  nearTieWeight: number;
  maxPerUtterance: number;
  /** Keep only pairs that include this system. */
  anchorSystem?: string;
  seed: number | string;
}

export interface SampledItem {
  utteranceId: string;
  systemA: string;
  systemB: string;
  /** s(a) − s(b) for the chosen judge; null without stratification. */
  delta: number | null;
  /** 0-based |Δ| bucket. */
  bucket: number;
}

export interface BucketSummary {
  from: number | null;
  to: number | null;
  available: number;
  target: number;
  chosen: number;
}

export interface SamplerSummary {
  /** What was drawn: caption pairs, or single captions to rate. */
  of: 'pairs' | 'captions';
  candidates: number;
  /** Pairs left out because a caption had no score for the judge. */
  unscored: number;
  /** Pairs left out because both captions read the same (e.g. a VoxReason counterfactual that changes nothing). */
  identical: number;
  perSystem: Record<string, number>;
  buckets: BucketSummary[];
  utterancesUsed: number;
}

export interface SamplerResult {
  items: SampledItem[];
  summary: SamplerSummary;
}

/** A request the candidates cannot satisfy: `field` is the setting at fault, the message says by how much. */
export class SamplingError extends Error {
  constructor(
    readonly field: 'count' | 'minPerSystem' | 'maxPerUtterance',
    message: string,
  ) {
    super(message);
    this.name = 'SamplingError';
  }
}

interface Candidate {
  utteranceId: string;
  /** The systems the item shows: two for a caption pair, one for a rating. */
  systems: readonly string[];
  delta: number | null;
  bucket: number;
}

function enumerate(captions: readonly ScoredCaption[], stratify: boolean): { candidates: Candidate[]; unscored: number; identical: number } {
  const byUtterance = new Map<string, ScoredCaption[]>();
  for (const c of captions) {
    const list = byUtterance.get(c.utteranceId) ?? [];
    list.push(c);
    byUtterance.set(c.utteranceId, list);
  }
  const candidates: Candidate[] = [];
  let unscored = 0;
  let identical = 0;
  for (const [utteranceId, list] of [...byUtterance].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const sorted = [...list].sort((a, b) => (a.system < b.system ? -1 : 1));
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) {
        const [x, y] = [sorted[i], sorted[j]];
        if (x.system === y.system) continue;
        if (x.text !== undefined && x.text === y.text) {
          identical++;
          continue;
        }
        const scored = x.score !== null && y.score !== null;
        if (stratify && !scored) {
          unscored++;
          continue;
        }
        candidates.push({ utteranceId, systems: [x.system, y.system], delta: scored ? x.score! - y.score! : null, bucket: 0 });
      }
    }
  }
  return { candidates, unscored, identical };
}

/** Largest-remainder apportionment of `total` by `weights`, never giving a bucket more than its cap. */
export function apportion(total: number, weights: readonly number[], caps: readonly number[]): number[] {
  const target = weights.map(() => 0);
  let open = weights.map((_, i) => i).filter((i) => caps[i] > 0);
  let left = total;
  while (left > 0 && open.length > 0) {
    const weightSum = open.reduce((s, i) => s + weights[i], 0);
    const shares = open.map((i) => ({ i, exact: (left * weights[i]) / weightSum }));
    const floors = shares.map(({ i, exact }) => ({ i, n: Math.min(Math.floor(exact), caps[i] - target[i]), rest: exact - Math.floor(exact) }));
    let given = 0;
    for (const f of floors) {
      target[f.i] += f.n;
      given += f.n;
    }
    let remainder = left - given;
    for (const f of [...floors].sort((a, b) => b.rest - a.rest || a.i - b.i)) {
      if (remainder === 0) break;
      if (target[f.i] < caps[f.i]) {
        target[f.i]++;
        remainder--;
      }
    }
    left = remainder;
    open = open.filter((i) => target[i] < caps[i]);
  }
  return target;
}

type DrawOptions = Omit<SamplerOptions, 'anchorSystem' | 'seed'>;

/** What an item is: how messages name the candidates ("caption pairs") and what else was left out, how many systems it shows. */
interface ItemShape {
  candidates: string;
  leftOut: string;
  systemsPerItem: number;
  /**
   * Among equally good picks, take the least-used utterance. Single captions are many per clip, so
   * filling one clip early can leave a system that still needs k items nowhere to go.
   */
  spreadUtterances: boolean;
}

interface Drawn {
  chosen: Candidate[];
  summary: Omit<SamplerSummary, 'unscored' | 'identical' | 'of'>;
}

/**
 * The sampler's machinery for any item that shows one or more systems' captions of an utterance:
 * feasibility checks, |Δ| buckets, (1) coverage of every system k times, (2) filling the buckets
 * with the least-used systems. `random` is the sampler's stream; the caller may go on drawing from it.
 */
function draw(all: Candidate[], systems: readonly string[], options: DrawOptions, random: StudyRandom, shape: ItemShape): Drawn {
  const k = options.minPerSystem;
  const nBuckets = options.stratify ? options.buckets : 1;
  if (options.count > all.length) {
    throw new SamplingError('count', `asked for ${options.count} items but only ${all.length} ${shape.candidates} exist over the chosen systems and utterances${shape.leftOut}`);
  }
  if (k * systems.length > shape.systemsPerItem * options.count) {
    throw new SamplingError(
      'minPerSystem',
      `minPerSystem ${k} is impossible: ${systems.length} systems × ${k} appearances need at least ${Math.ceil((k * systems.length) / shape.systemsPerItem)} items, but count is ${options.count}`,
    );
  }
  const perUtterancePairs = new Map<string, number>();
  for (const c of all) perUtterancePairs.set(c.utteranceId, (perUtterancePairs.get(c.utteranceId) ?? 0) + 1);
  const reachable = [...perUtterancePairs.values()].reduce((s, n) => s + Math.min(n, options.maxPerUtterance), 0);
  if (options.count > reachable) {
    throw new SamplingError(
      'maxPerUtterance',
      `asked for ${options.count} items but with maxPerUtterance ${options.maxPerUtterance} at most ${reachable} can be drawn from ${perUtterancePairs.size} utterances`,
    );
  }
  for (const s of systems) {
    const perUtt = new Map<string, number>();
    for (const c of all) if (c.systems.includes(s)) perUtt.set(c.utteranceId, (perUtt.get(c.utteranceId) ?? 0) + 1);
    const possible = [...perUtt.values()].reduce((sum, n) => sum + Math.min(n, options.maxPerUtterance), 0);
    if (possible < k) {
      throw new SamplingError('minPerSystem', `system ${s} can appear in at most ${possible} items, fewer than minPerSystem ${k}`);
    }
  }

  // Buckets over the observed |Δ| range.
  // A loop, not Math.min(...): pools of MetaSet size exceed the engine's argument limit.
  let lo = Infinity;
  let hi = -Infinity;
  for (const c of all) {
    const d = Math.abs(c.delta ?? 0);
    if (d < lo) lo = d;
    if (d > hi) hi = d;
  }
  if (all.length === 0) lo = hi = 0;
  const width = (hi - lo) / nBuckets;
  for (const c of all) {
    const d = Math.abs(c.delta ?? 0);
    c.bucket = width === 0 || d <= lo ? 0 : Math.min(nBuckets - 1, Math.max(0, Math.ceil((d - lo) / width - 1e-12) - 1));
  }
  const available = Array.from({ length: nBuckets }, (_, b) => all.filter((c) => c.bucket === b).length);
  const weights = Array.from({ length: nBuckets }, (_, b) => (b === 0 ? options.nearTieWeight : 1));
  const target = apportion(options.count, weights, available);

  const pool = random.shuffle(all);
  const chosen: Candidate[] = [];
  const taken = new Set<Candidate>();
  const perSystem = new Map(systems.map((s) => [s, 0]));
  const perUtterance = new Map<string, number>();
  const perBucket = new Array<number>(nBuckets).fill(0);
  const eligible = (c: Candidate) => !taken.has(c) && (perUtterance.get(c.utteranceId) ?? 0) < options.maxPerUtterance;
  const take = (c: Candidate) => {
    taken.add(c);
    chosen.push(c);
    for (const s of c.systems) perSystem.set(s, perSystem.get(s)! + 1);
    perUtterance.set(c.utteranceId, (perUtterance.get(c.utteranceId) ?? 0) + 1);
    perBucket[c.bucket]++;
  };
  // Each pick looks at the first SCAN eligible candidates of the relevant (shuffled) list: exact
  // for study-sized pools, and a seeded random subset for MetaSet-sized ones (10^5+ pairs).
  const SCAN = 4000;
  const spread = (c: Candidate, score: number) => (shape.spreadUtterances ? score * (options.maxPerUtterance + 1) - (perUtterance.get(c.utteranceId) ?? 0) : score);
  const bestOf = (list: readonly Candidate[], score: (c: Candidate) => number): Candidate | undefined => {
    let best: Candidate | undefined;
    let bestScore = -Infinity;
    let seen = 0;
    for (const c of list) {
      if (!eligible(c)) continue;
      const s = spread(c, score(c));
      if (s > bestScore) [best, bestScore] = [c, s];
      if (++seen >= SCAN) break;
    }
    return best;
  };
  const bySystem = new Map(systems.map((s) => [s, [] as Candidate[]]));
  const byBucket = Array.from({ length: nBuckets }, () => [] as Candidate[]);
  for (const c of pool) {
    for (const s of c.systems) bySystem.get(s)!.push(c);
    byBucket[c.bucket].push(c);
  }

  // (1) coverage: every system in ≥ k items.
  const systemOrder = random.shuffle(systems);
  for (;;) {
    const deficit = (s: string) => k - perSystem.get(s)!;
    const neediest = systemOrder.reduce<string | undefined>((best, s) => (deficit(s) > 0 && (best === undefined || deficit(s) > deficit(best)) ? s : best), undefined);
    if (neediest === undefined) break;
    if (chosen.length >= options.count) {
      throw new SamplingError('minPerSystem', `could not cover every system ${k} times within ${options.count} items (${neediest} has ${perSystem.get(neediest)})`);
    }
    // Prefer items whose other systems are short of k too, then the bucket furthest below target.
    const pick = bestOf(bySystem.get(neediest)!, (c) =>
      c.systems.reduce((score, other) => (other === neediest ? score : score + (deficit(other) > 0 ? 1000 : 0) - perSystem.get(other)!), 10 * (target[c.bucket] - perBucket[c.bucket])),
    );
    if (!pick) {
      throw new SamplingError('minPerSystem', `system ${neediest} cannot reach minPerSystem ${k} with maxPerUtterance ${options.maxPerUtterance}`);
    }
    take(pick);
  }

  // (2) fill buckets towards their targets with the least-used systems.
  const exhausted = new Set<number>();
  while (chosen.length < options.count) {
    let bucket = -1;
    for (let b = 0; b < nBuckets; b++) {
      if (exhausted.has(b)) continue;
      if (bucket < 0 || target[b] - perBucket[b] > target[bucket] - perBucket[bucket]) bucket = b;
    }
    if (bucket < 0) throw new SamplingError('maxPerUtterance', `only ${chosen.length} of ${options.count} items could be drawn with maxPerUtterance ${options.maxPerUtterance}`);
    const pick = bestOf(byBucket[bucket], (c) => -c.systems.reduce((n, s) => n + perSystem.get(s)!, 0));
    if (!pick) {
      exhausted.add(bucket);
      continue;
    }
    take(pick);
  }

  return {
    chosen,
    summary: {
      candidates: all.length,
      perSystem: Object.fromEntries(systems.map((s) => [s, perSystem.get(s)!])),
      buckets: available.map((n, b) => ({
        from: options.stratify ? lo + b * width : null,
        to: options.stratify ? (b === nBuckets - 1 ? hi : lo + (b + 1) * width) : null,
        available: n,
        target: target[b],
        chosen: perBucket[b],
      })),
      utterancesUsed: perUtterance.size,
    },
  };
}

export function sampleItems(captions: readonly ScoredCaption[], systems: readonly string[], options: SamplerOptions): SamplerResult {
  const systemSet = new Set(systems);
  const enumerated = enumerate(
    captions.filter((c) => systemSet.has(c.system)),
    options.stratify,
  );
  const anchor = options.anchorSystem;
  const all = anchor === undefined ? enumerated.candidates : enumerated.candidates.filter((c) => c.systems.includes(anchor));
  const { unscored, identical } = enumerated;
  const random = keyedRandom(options.seed, 'sampler');
  const { chosen, summary } = draw(
    all,
    systems,
    options,
    random,
    {
      candidates: 'caption pairs',
      systemsPerItem: 2,
      spreadUtterances: false,
      leftOut: (unscored > 0 ? ` (${unscored} more lack a judge score)` : '') + (identical > 0 ? ` (${identical} more pair two captions that read the same)` : ''),
    },
  );

  const swaps = balancedOrientation(chosen.map((c) => [c.systems[0], c.systems[1]] as const), random);
  const items = chosen
    .map((c, i): SampledItem => {
      const swap = swaps[i];
      const [s1, s2] = c.systems;
      return {
        utteranceId: c.utteranceId,
        systemA: swap ? s2 : s1,
        systemB: swap ? s1 : s2,
        delta: c.delta === null ? null : swap ? -c.delta : c.delta,
        bucket: c.bucket,
      };
    })
    .sort((a, b) => a.bucket - b.bucket || (a.utteranceId < b.utteranceId ? -1 : a.utteranceId > b.utteranceId ? 1 : 0) || (a.systemA < b.systemA ? -1 : 1));

  return { items, summary: { ...summary, of: 'pairs', unscored, identical } };
}

/**
 * Single captions (utterance, system) for rating: the same machinery without |Δ| strata, so every
 * system is rated in at least k items and no utterance in more than maxPerUtterance.
 */
export function sampleRatedCaptions(
  captions: readonly ScoredCaption[],
  systems: readonly string[],
  options: Pick<SamplerOptions, 'count' | 'minPerSystem' | 'maxPerUtterance' | 'seed'>,
): { items: { utteranceId: string; system: string }[]; summary: SamplerSummary } {
  const systemSet = new Set(systems);
  const order = (a: ScoredCaption, b: ScoredCaption) => (a.utteranceId < b.utteranceId ? -1 : a.utteranceId > b.utteranceId ? 1 : a.system < b.system ? -1 : a.system > b.system ? 1 : 0);
  const all = captions
    .filter((c) => systemSet.has(c.system))
    .sort(order)
    .map((c): Candidate => ({ utteranceId: c.utteranceId, systems: [c.system], delta: null, bucket: 0 }));
  const { chosen, summary } = draw(all, systems, { ...options, stratify: false, buckets: 1, nearTieWeight: 1 }, keyedRandom(options.seed, 'sampler'), {
    candidates: 'captions',
    systemsPerItem: 1,
    spreadUtterances: true,
    leftOut: '',
  });
  const items = chosen.map((c) => ({ utteranceId: c.utteranceId, system: c.systems[0] }));
  items.sort((a, b) => (a.utteranceId < b.utteranceId ? -1 : a.utteranceId > b.utteranceId ? 1 : a.system < b.system ? -1 : 1));
  return { items, summary: { ...summary, of: 'captions', unscored: 0, identical: 0 } };
}

/** Human-readable sampler summary for the CLI. */
export function formatSamplerSummary(summary: SamplerSummary): string {
  const left = [summary.unscored ? `${summary.unscored} unscored` : '', summary.identical ? `${summary.identical} with identical captions` : ''].filter(Boolean);
  const lines = [`items per system (from ${summary.candidates} candidate ${summary.of === 'pairs' ? 'pairs' : 'captions'}${left.length ? `, ${left.join(' and ')} left out` : ''}):`];
  for (const [system, n] of Object.entries(summary.perSystem)) lines.push(`  ${system.padEnd(28)} ${n}`);
  // Rated captions are not stratified: their one bucket says nothing.
  if (summary.of === 'pairs') {
    lines.push('items per |Δ| bucket:');
    summary.buckets.forEach((b, i) => {
      const range = b.from === null ? 'all' : `${i === 0 ? '[' : '('}${b.from.toFixed(2)}, ${b.to!.toFixed(2)}]`;
      lines.push(`  B${i + 1} ${range.padEnd(16)} chosen ${b.chosen} (target ${b.target}, available ${b.available})`);
    });
  }
  lines.push(`utterances used: ${summary.utterancesUsed}`);
  return lines.join('\n');
}

/**
 * One judge's score per caption: `ensemble` = mean over every (judge, run) row of the caption;
 * a judge name = mean over that judge's runs (analysis-spec §2).
 */
export function judgeScores(
  rows: readonly { utteranceId: string; system: string; judge: string; score: number }[],
  judge: string,
): Map<string, number> {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const r of rows) {
    if (judge !== 'ensemble' && r.judge !== judge) continue;
    const key = captionKey(r.utteranceId, r.system);
    const s = sums.get(key) ?? { sum: 0, n: 0 };
    s.sum += r.score;
    s.n++;
    sums.set(key, s);
  }
  return new Map([...sums].map(([key, s]) => [key, s.sum / s.n]));
}

export function captionKey(utteranceId: string, system: string): string {
  return `${utteranceId}\u0000${system}`;
}

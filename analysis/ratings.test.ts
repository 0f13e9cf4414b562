import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildBundle, readBundle, writeBundle, type BundleItem, type BundleRating, type BundleVote } from './bundle';
import { describeRules, minListenerCorrelation } from './exclusion';
import { ratingListenerCorrelations } from '../trials/rating/report';
import { renderReportHtml } from './html';
import { analyze } from './report';
import { simulate, simulateRatings } from './simulate';
import { correlationInterval } from './stats/correlation-interval';
import { krippendorffAlpha } from './stats/krippendorff-alpha-metric';
import { listenerCorrelations } from './stats/listener-correlation';
import { meanOpinionScore } from './stats/mean-opinion-score';
import { spearmanRho } from './stats/spearman';
import { analyzeStudy, resolveSettings } from './study-settings';

const rated = (id: string, system: string, utterance: string): BundleItem =>
  ({ item_id: id, utterance_id: utterance, system_a: system, system_b: '', attention: false, expected: null });
const rating = (item_id: string, listener_id: string, system: string, utterance_id: string, score: number): BundleRating =>
  ({ item_id, listener_id, system, utterance_id, score });

/** Two systems, four rating items, one rating attention check (required score 1), four listeners. */
function smallRatingStudy() {
  const items = [rated('r1', 'A', 'u1'), rated('r2', 'A', 'u2'), rated('r3', 'B', 'u1'), rated('r4', 'B', 'u2'),
    { ...rated('chk', 'A', 'u9'), attention: true, expected: 1 }];
  const scores: Record<string, number[]> = { L1: [4, 5, 2, 3], L2: [5, 4, 2, 2], L3: [4, 4, 3, 1], L4: [1, 1, 5, 5] };
  const ratings = Object.entries(scores).flatMap(([l, s]) => [
    ...items.slice(0, 4).map((item, k) => rating(item.item_id, l, item.system_a, item.utterance_id, s[k])),
    rating('chk', l, 'A', 'u9', l === 'L4' ? 5 : 1),
  ]);
  return { items, votes: [] as BundleVote[], judgeScores: [], ratings };
}

describe('the ratings section on a hand-worked study', () => {
  const bundle = buildBundle(smallRatingStudy());
  const report = analyze(bundle);
  const r = report.ratings!;

  it('excludes L4 by the rating attention check (score 5 where 1 was required)', () => {
    expect(report.listeners.excluded).toEqual([{ listener_id: 'L4', reason: 'attention', reasons: ['attention'], correct: 0, answered: 1 }]);
    expect(report.listeners.attention_pass_rate).toBe(3 / 4);
    expect(r.votes).toBe(12);
    expect(r.listeners).toBe(3);
    expect(r.scale).toEqual([1, 5]);
  });

  it('gives MOS, sample SD and the t-interval per system, best first', () => {
    // A (L1–L3): 4 5 5 4 4 4 → MOS 26/6 = 4.3333; squared deviations sum to 4·(1/9) + 2·(4/9) = 4/3,
    //   s² = (4/3)/5, s = 0.5163978; s/√6 = 0.2108185; half = t(0.975, 5) × 0.2108185 = 2.5705818 × 0.2108185 = 0.5419262.
    // B: 2 3 2 2 3 1 → MOS 13/6 = 2.1667; squared deviations (1 + 25 + 1 + 1 + 25 + 49)/36 = 102/36,
    //   s² = (102/36)/5, s = 0.7527727; s/√6 = 0.3073181; half = 2.5705818 × 0.3073181 = 0.7899865.
    const [a, b] = r.systems;
    expect(a).toMatchObject({ system: 'A', n: 6, rank: 1, rank_ci: 1 });
    expect(a.mos).toBeCloseTo(26 / 6, 12);
    expect(a.sd!).toBeCloseTo(0.5163978, 6);
    expect(a.ci95![0]).toBeCloseTo(26 / 6 - 0.5419262, 6);
    expect(a.ci95![1]).toBeCloseTo(26 / 6 + 0.5419262, 6);
    expect(b).toMatchObject({ system: 'B', n: 6, rank: 2, rank_ci: 2 });
    expect(b.mos).toBeCloseTo(13 / 6, 12);
    expect(b.ci95![1]).toBeCloseTo(13 / 6 + 0.7899865, 6);
    expect(a.ci95_bootstrap).toBeUndefined();
  });

  it('computes α over retained listeners, items as units, and r for every listener who rated', () => {
    const units = [[4, 5, 4], [5, 4, 4], [2, 2, 3], [3, 2, 1]];
    expect(r.reliability.krippendorff_alpha_interval).toBeCloseTo(krippendorffAlpha(units, 'interval')!, 14);
    expect(r.reliability.krippendorff_alpha_ordinal).toBeCloseTo(krippendorffAlpha(units, 'ordinal')!, 14);
    const all = smallRatingStudy().ratings.filter((x) => x.item_id !== 'chk');
    const expected = listenerCorrelations(all.map((x) => Number(x.item_id.slice(1))), all.map((x) => Number(x.listener_id.slice(1)) - 1), all.map((x) => x.score), 4);
    expect(r.listener_correlation).toEqual(['L1', 'L2', 'L3', 'L4'].map((listener_id, l) => ({ listener_id, ...expected[l] })));
    expect(r.listener_correlation[3].pearson_r!).toBeLessThan(-0.9);
  });

  it('the correlation rule excludes an inverted rater, listing every reason', () => {
    // Six items, L1–L4 agree, L5 inverts the scale and fails the check. The panel is everyone
    // else, so with L5 in it the others' means are flattened: L3 (5 4 5 1 2 2) against
    // 3.5 3.75 3 3 2 2.25 gives r = 0.609; L5 (1 2 1 5 4 5) against 4.5 4.25 4 2 1.5 1.5, r = −0.936.
    const ids = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
    const items = [...ids.map((id, k) => rated(id, k < 3 ? 'A' : 'B', `u${k}`)), { ...rated('chk', 'A', 'u9'), attention: true, expected: 1 }];
    const scores: Record<string, number[]> = {
      L1: [5, 4, 4, 2, 1, 2], L2: [4, 5, 3, 2, 2, 1], L3: [5, 4, 5, 1, 2, 2], L4: [4, 4, 4, 3, 1, 1], L5: [1, 2, 1, 5, 4, 5],
    };
    const ratings = Object.entries(scores).flatMap(([l, s]) => [
      ...ids.map((id, k) => rating(id, l, k < 3 ? 'A' : 'B', `u${k}`, s[k])), rating('chk', l, 'A', 'u9', l === 'L5' ? 4 : 1)]);
    const six = buildBundle({ items, votes: [], judgeScores: [], ratings });
    const correlations = ratingListenerCorrelations(six);
    expect(correlations.get('L3')!.pearson_r).toBeCloseTo(0.6090871521, 9);
    expect(correlations.get('L5')!.pearson_r).toBeCloseTo(-0.9362921947, 9);
    const withRule = analyze(six, { rules: [minListenerCorrelation(0.3, correlations)] });
    // The figures of both rules that failed, so the approvals file can say what was measured against what.
    expect(withRule.listeners.excluded).toEqual([{
      listener_id: 'L5', reason: 'attention', correct: 0, answered: 1, pearson_r: correlations.get('L5')!.pearson_r, n: 6, min_r: 0.3,
      reasons: ['attention', 'listener_correlation'],
    }]);
    // analysis-spec §2: a listener excluded by several rules counts under each of them.
    expect(withRule.listeners.excluded_by_reason).toEqual({ attention: 1, listener_correlation: 1 });
    expect(withRule.listeners.not_run_by_reason).toEqual({});
    expect(withRule.ratings!.listener_correlation.map((c) => c.listener_id)).toEqual(['L1', 'L2', 'L3', 'L4', 'L5']);
  });

  it('adds listener-bootstrap intervals only when asked, reproducibly', () => {
    const one = analyze(bundle, { bootstrap: { n: 300, seed: 4 } }).ratings!;
    expect(analyze(bundle, { bootstrap: { n: 300, seed: 4 } }).ratings).toEqual(one);
    expect(one.bootstrap).toEqual({ resamples: 300, seed: 4, resampled: 'listeners' });
    for (const s of one.systems) {
      expect(s.ci95_bootstrap![0]).toBeLessThanOrEqual(s.mos);
      expect(s.ci95_bootstrap![1]).toBeGreaterThanOrEqual(s.mos);
    }
  });
});

describe('a rating study with no ratings yet', () => {
  it('still has a ratings section, with nothing estimated', () => {
    const study = { ...smallRatingStudy(), ratings: [] };
    const report = analyze(buildBundle(study));
    expect(report.ratings).toEqual({
      scale: null, votes: 0, listeners: 0, systems: [],
      reliability: { krippendorff_alpha_interval: null, krippendorff_alpha_ordinal: null }, listener_correlation: [],
      // every clip listed, none rated yet; no spread without a scale
      items: study.items.filter((i) => !i.attention).map((i) => ({
        item_id: i.item_id, utterance_id: i.utterance_id, system: i.system_a, n: 0, mos: null, sd: null, ci95: null,
      })),
      spread: [],
    });
    expect(renderReportHtml(report)).toContain('No system has an interval yet.');
  });
});

describe('ratings beside pair votes', () => {
  const pairItems: BundleItem[] = [
    { item_id: 'p1', utterance_id: 'u1', system_a: 'X', system_b: 'Y', attention: false, expected: null },
    { item_id: 'p2', utterance_id: 'u2', system_a: 'Y', system_b: 'X', attention: false, expected: null },
  ];
  const votes: BundleVote[] = ['L1', 'L2', 'L3'].flatMap((l, k) => [
    { item_id: 'p1', listener_id: l, first: 'a', chosen: k < 2 ? 'a' : 'b' },
    { item_id: 'p2', listener_id: l, first: 'b', chosen: k < 2 ? 'b' : 'a' },
  ]);

  it('leave the pair sections exactly as without ratings; a pair bundle has no ratings section', () => {
    const pairOnly = analyze(buildBundle({ items: pairItems, votes, judgeScores: [] }));
    const study = smallRatingStudy();
    const mixed = analyze(buildBundle({ ...study, items: [...pairItems, ...study.items], votes }));
    expect(pairOnly.ratings).toBeUndefined();
    expect(mixed.reliability).toEqual(pairOnly.reliability);
    expect(mixed.bradley_terry).toEqual(pairOnly.bradley_terry);
    expect(mixed.ratings!.systems.map((s) => s.system)).toEqual(['A', 'B']);
  });

  it('reports the correlation rule as not run when there are no ratings', () => {
    const bundle = buildBundle({ items: pairItems, votes, judgeScores: [] });
    const report = analyze(bundle, { rules: [minListenerCorrelation(0.3, ratingListenerCorrelations(bundle, 0.3))] });
    // Nobody answered an attention item either: that rule did not run for them as well.
    expect(report.listeners.not_run_by_reason).toEqual({ attention: 3, listener_correlation: 3 });
    expect(report.listeners.excluded).toEqual([]);
  });
});

describe('the correlation rule in study.json', () => {
  const settings0 = { study: 's', exportedAt: '2026-01-31T12:00:00.000Z', minAttention: 0.75, splitThreshold: 0.75, linkParameters: [] };
  const settings = resolveSettings({ ...settings0, rules: { correlation: { minListenerCorrelation: 0.3 } } });

  it('runs as the rule built by hand does, after attention, and is described', () => {
    const bundle = buildBundle(smallRatingStudy());
    const report = analyzeStudy(bundle, settings);
    expect(report).toEqual(analyze(bundle, { rules: [minListenerCorrelation(0.3, ratingListenerCorrelations(bundle, 0.3))] }));
    expect(report.listeners.excluded.find((e) => e.listener_id === 'L4')!.reasons).toEqual(['attention', 'listener_correlation']);
    expect(describeRules(0.75, settings.rules)).toEqual([
      { reason: 'attention', description: 'attention checks ≥ 75% right' },
      { reason: 'listener_correlation', description: "ratings correlate with the panel's mean at r ≥ 0.3" },
    ]);
  });

  it('keeps both careful listeners of a three-listener panel when the third inverts the scale', () => {
    // 15 items of quality 1–5; L2 is off by one on every fourth item; L3 answers 6 − quality.
    // Against the others' mean in one pass both careful listeners would fall below 0.25 with L3.
    const ids = Array.from({ length: 15 }, (_, k) => `r${k}`);
    const quality = ids.map((_, k) => 1 + (k % 5));
    const given: Record<string, number[]> = {
      L1: quality, L2: quality.map((q, k) => (k % 4 === 0 ? Math.min(5, q + 1) : q)), L3: quality.map((q) => 6 - q),
    };
    const bundle = buildBundle({
      items: ids.map((id, k) => rated(id, k % 2 ? 'A' : 'B', `u${k}`)), votes: [], judgeScores: [],
      ratings: Object.entries(given).flatMap(([l, s]) => ids.map((id, k) => rating(id, l, k % 2 ? 'A' : 'B', `u${k}`, s[k]))),
    });
    const strict = resolveSettings({ ...settings0, rules: { correlation: { minListenerCorrelation: 0.25 } } });
    const report = analyzeStudy(bundle, strict);
    expect(report.listeners.excluded.map((e) => e.listener_id)).toEqual(['L3']);
    expect(report.listeners.excluded[0]).toMatchObject({ reason: 'listener_correlation', n: 15, min_r: 0.25 });
    const r = new Map(report.ratings!.listener_correlation.map((c) => [c.listener_id, c.pearson_r!]));
    expect(r.get('L1')!).toBeGreaterThan(0.9);
    expect(r.get('L2')!).toBeGreaterThan(0.9);
    expect(r.get('L3')!).toBeLessThan(-0.9);
  });

  it('is not run on a pair study', () => {
    const pairs = simulate({ systems: 3, items: 20, listeners: 4, careless: 0, attention: 0, seed: 1 });
    const report = analyzeStudy(buildBundle(pairs), settings);
    expect(report.listeners.not_run_by_reason.listener_correlation).toBe(4);
    expect(report.listeners.excluded).toEqual([]);
  });
});

describe('simulated rating studies', () => {
  it('the MOS ranking recovers the true system order', () => {
    const mos = [4.4, 3.9, 3.4, 2.9, 2.4, 1.9];
    const study = simulateRatings({ systems: 6, items: 600, listeners: 20, careless: 0, attention: 0, ratingsPerItem: 8, seed: 5, mos });
    expect(study.ratings).toHaveLength(4800);
    const r = analyze(buildBundle(study), { bootstrap: { n: 200, seed: 1 } }).ratings!;
    expect(r.systems.map((s) => s.system)).toEqual(['tts-01', 'tts-02', 'tts-03', 'tts-04', 'tts-05', 'tts-06']);
    expect(r.systems.map((s) => s.rank_ci)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(spearmanRho(r.systems.map((s) => s.mos), r.systems.map((s) => study.truth.mos[s.system]))).toBe(1);
    // Listener biases make the listener bootstrap wider than the independent-scores t-interval.
    const wider = r.systems.filter((s) => s.ci95_bootstrap![1] - s.ci95_bootstrap![0] > s.ci95![1] - s.ci95![0]).length;
    expect(wider).toBeGreaterThanOrEqual(5);
    expect(r.reliability.krippendorff_alpha_interval!).toBeGreaterThan(0.4);
  });

  it('careless raters are excluded by the correlation rule, attentive ones kept', () => {
    let careless = 0;
    let caught = 0;
    let lost = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const study = simulateRatings({ systems: 5, items: 100, listeners: 15, careless: 3, attention: 0, seed, mos: [4.2, 3.6, 3.0, 2.4, 1.8] });
      const bundle = buildBundle(study);
      const report = analyze(bundle, { rules: [minListenerCorrelation(0.3, ratingListenerCorrelations(bundle, 0.3))] });
      const excluded = new Set(report.listeners.excluded.map((e) => e.listener_id));
      for (const e of report.listeners.excluded) expect(e.reason).toBe('listener_correlation');
      careless += study.truth.careless.length;
      caught += study.truth.careless.filter((l) => excluded.has(l)).length;
      lost += [...excluded].filter((l) => !study.truth.careless.includes(l)).length;
    }
    expect(caught).toBe(careless);
    expect(lost).toBe(0);
  });

  it('is deterministic for a seed, with attention checks that ask for a score', () => {
    const o = { systems: 4, items: 40, listeners: 10, careless: 2, attention: 4, seed: 3 };
    const a = simulateRatings(o);
    expect(simulateRatings(o)).toEqual(a);
    expect(a.items.filter((i) => i.attention).every((i) => typeof i.expected === 'number' && i.system_b === '')).toBe(true);
    expect(a.ratings).toHaveLength(40 * 10 + 4 * 10);
    const report = analyze(buildBundle(a));
    expect(report.listeners.excluded.every((e) => a.truth.careless.includes(e.listener_id))).toBe(true);
  });
});

describe('HTML report with ratings', () => {
  it('shows both the pair sections and the ratings section when a study has both', () => {
    const pairs = simulate({ systems: 4, items: 40, listeners: 6, careless: 0, attention: 0, seed: 2 });
    const rating = simulateRatings({ systems: 3, items: 30, listeners: 6, careless: 0, attention: 0, seed: 2 });
    const prefixed = (id: string) => `rating-${id}`;
    const html = renderReportHtml(analyze(buildBundle({
      ...pairs,
      items: [...pairs.items, ...rating.items.map((i) => ({ ...i, item_id: prefixed(i.item_id) }))],
      ratings: rating.ratings.map((r) => ({ ...r, item_id: prefixed(r.item_id) })),
    })));
    expect(html).toContain('Do listeners agree? (reliability)');
    expect(html).toContain('How good is each system?');
    expect(html.match(/<svg /g)!.length).toBe(4);
    expect(html).not.toMatch(/<script|<link|<img/i);
  });

  it('escapes system names from ratings', () => {
    const study = simulateRatings({ systems: 2, items: 20, listeners: 4, careless: 0, attention: 0, seed: 1 });
    const evil = (s: string) => (s === 'tts-01' ? '<img src=x onerror=alert(1)>' : s);
    const html = renderReportHtml(analyze(buildBundle({
      ...study,
      items: study.items.map((i) => ({ ...i, system_a: evil(i.system_a) })),
      ratings: study.ratings.map((r) => ({ ...r, system: evil(r.system) })),
    })));
    expect(html).not.toContain('<img');
    // React's entity for < and > (the string templates wrote &#60; and &#62;)
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});

describe('the per-clip table, the spread per system and the quality view of a rating study', () => {
  const report = analyze(buildBundle(smallRatingStudy()));
  const r = report.ratings!;

  it('gives each clip the MOS of its retained ratings, worked by hand', () => {
    // Retained L1–L3 (L4 fails the check): r1 4 5 4, r2 5 4 4, r3 2 2 3, r4 3 2 1.
    expect(r.items.map((c) => [c.item_id, c.system, c.n, c.mos])).toEqual([['r1', 'A', 3, 13 / 3], ['r2', 'A', 3, 13 / 3], ['r3', 'B', 3, 7 / 3], ['r4', 'B', 3, 2]]);
    expect(r.items[3].sd).toBeCloseTo(1, 14);
    expect(r.items[0]).toMatchObject(meanOpinionScore([4, 5, 4])!);
  });

  it('counts each score per system, with R type 7 quartiles, worked by hand', () => {
    // A: 4 5 4 5 4 4 → sorted 4 4 4 4 5 5: Q(¼) h = 1.25 → 4, median h = 2.5 → 4, Q(¾) h = 3.75 → 4 + .75 = 4.75.
    // B: 2 2 3 3 2 1 → sorted 1 2 2 2 3 3: Q(¼) → 2, median → 2, Q(¾) h = 3.75 → 2 + .75 = 2.75.
    expect(r.spread).toEqual([
      { system: 'A', n: 6, counts: [0, 0, 0, 4, 2], median: 4, iqr: [4, 4.75] },
      { system: 'B', n: 6, counts: [1, 3, 2, 0, 0], median: 2, iqr: [2, 2.75] },
    ]);
  });

  it('has the rating quality fields and no pair ones, and no pair table', () => {
    expect(report.items).toBeUndefined();
    const l1 = report.listener_quality.find((q) => q.listener_id === 'L1')!;
    expect(Object.keys(l1)).not.toContain('majority_agreement');
    const r1 = r.listener_correlation.find((c) => c.listener_id === 'L1')!;
    expect(l1).toMatchObject({ retained: true, answers: 4, attention_answered: 1, attention_correct: 1, panel_r: r1.pearson_r, panel_n: r1.n });
    expect(l1.panel_r_ci95).toEqual(correlationInterval(r1.pearson_r, r1.n));
  });

  it('finds the careless rater who passes the attention checks', () => {
    const study = simulateRatings({ systems: 5, items: 150, listeners: 12, careless: 2, carelessPassing: 1, attention: 6, seed: 4, ratingsPerItem: 8 });
    const q = analyze(buildBundle(study)).listener_quality;
    const [sneaky] = study.truth.carelessPassing;
    const flagged = q.filter((x) => x.retained && x.flags.length).map((x) => x.listener_id);
    expect(q.find((x) => x.listener_id === sneaky)).toMatchObject({ retained: true, flags: ['uncorrelated_with_panel'] });
    expect(flagged.every((l) => study.truth.careless.includes(l))).toBe(true);
  });
});

describe('rating facts read from ratings.csv', () => {
  it('gives the live report (records in memory) and the CLI (files) the same response times and the same quality view', async () => {
    const study = smallRatingStudy();
    const records = {
      ...study,
      ratings: study.ratings.map((r, k) => ({ ...r, extra: { response_ms: 1000 + 100 * k, heard_to_end: 1 } })),
      extraVoteColumns: ['response_ms', 'heard_to_end'],
    };
    const dir = await mkdtemp(join(tmpdir(), 'earmark-rating-facts-'));
    try {
      await writeBundle(dir, records);
      const [live, offline] = [buildBundle(records), await readBundle(dir)];
      expect(offline.ratings!.responseMs).toEqual(live.ratings!.responseMs);
      expect(offline.ratings!.heardToEnd).toEqual(live.ratings!.heardToEnd);
      const quality = analyze(offline).listener_quality;
      expect(quality).toEqual(analyze(live).listener_quality);
      // L1's five answers (four clips and the check) took 1000, 1100, …, 1400 ms
      expect(quality.find((q) => q.listener_id === 'L1')!.median_response_ms).toBe(1200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

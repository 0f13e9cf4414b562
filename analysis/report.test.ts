import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildBundle, type BundleItem, type BundleVote, type JudgeScore } from './bundle';
import { minMedianResponseTime, requireScreening } from './exclusion';
import { analyze, biasCorrectedInterval, gapBuckets, type Report } from './report';
import { simulate } from './simulate';
import { wilsonInterval } from './stats/wilson-interval';
import { cohenKappa } from './stats/cohen-kappa';
import { fleissKappa } from './stats/fleiss-kappa';
import { krippendorffAlphaNominal } from './stats/krippendorff-alpha';

const item = (id: string, a: string, b: string, utterance = id): BundleItem =>
  ({ item_id: id, utterance_id: utterance, system_a: a, system_b: b, attention: false, expected: null });
const check = (id: string, expected: 'a' | 'b'): BundleItem =>
  ({ item_id: id, utterance_id: id, system_a: 'T', system_b: 'F', attention: true, expected });
const vote = (item_id: string, listener_id: string, chosen: 'a' | 'b', first: 'a' | 'b' = 'a'): BundleVote =>
  ({ item_id, listener_id, first, chosen });
const score = (utterance_id: string, system: string, judge: string, run: string, s: number): JudgeScore =>
  ({ utterance_id, system, judge, run, score: s });

/** A small study with numbers worked out by hand in the assertions below. */
function smallStudy() {
  const items = [item('i1', 'X', 'Y'), item('i2', 'Y', 'Z'), item('i3', 'Z', 'X'), check('c1', 'a'), check('c2', 'b')];
  const votes: BundleVote[] = [
    // L1, L2, L3 answer both checks right; L4 gets both wrong and is excluded.
    ...['L1', 'L2', 'L3'].flatMap((l) => [vote('c1', l, 'a'), vote('c2', l, 'b')]),
    vote('c1', 'L4', 'b'), vote('c2', 'L4', 'a'),
    vote('i1', 'L1', 'a'), vote('i1', 'L2', 'a', 'b'), vote('i1', 'L3', 'b'),
    vote('i2', 'L1', 'a'), vote('i2', 'L2', 'b', 'b'), vote('i2', 'L3', 'a', 'b'),
    vote('i3', 'L1', 'b'), vote('i3', 'L2', 'b'), vote('i3', 'L3', 'b', 'b'),
    vote('i1', 'L4', 'b'), vote('i2', 'L4', 'b'), vote('i3', 'L4', 'a'),
  ];
  const judgeScores = [
    score('i1', 'X', 'j1', '1', 8), score('i1', 'X', 'j1', '2', 6), score('i1', 'Y', 'j1', '1', 5), // j1: Δ1 = 7 − 5 = 2
    score('i2', 'Y', 'j1', '1', 4), score('i2', 'Z', 'j1', '1', 4), // j1: Δ2 = 0
    score('i3', 'Z', 'j1', '1', 2), score('i3', 'X', 'j1', '1', 9), // j1: Δ3 = −7
    score('i1', 'X', 'j2', '1', 1), score('i1', 'Y', 'j2', '1', 2), // j2: Δ1 = −1
  ];
  return { items, votes, judgeScores };
}

describe('analyze on a hand-worked study', () => {
  const report = analyze(buildBundle(smallStudy()));

  it('lists exclusions with reasons and counts, attention pass rate over all listeners', () => {
    expect(report.listeners).toEqual({
      total: 4, retained: 3, attention_pass_rate: 6 / 8,
      excluded: [{ listener_id: 'L4', reason: 'attention', reasons: ['attention'], correct: 0, answered: 2 }],
      excluded_by_reason: { attention: 1 }, not_run_by_reason: {},
    });
  });

  it('computes reliability on retained listeners and non-attention items', () => {
    // chosen a-counts per item (L1–L3): i1 2/3, i2 2/3, i3 0/3
    expect(report.reliability.items).toBe(3);
    expect(report.reliability.votes).toBe(9);
    expect(report.reliability.krippendorff_alpha).toBeCloseTo(krippendorffAlphaNominal([[2, 1], [2, 1], [0, 3]])!, 14);
    expect(report.reliability.fleiss_kappa).toBeCloseTo(fleissKappa([[2, 1], [2, 1], [0, 3]])!, 14);
    // pairs: L1–L2 agree on i1, i3 (2/3); L1–L3 on i2, i3 (2/3); L2–L3 on i3 (1/3) → 5/9
    expect(report.reliability.mean_pairwise_agreement).toBeCloseTo(5 / 9, 14);
    expect([report.reliability.unanimous, report.reliability.lopsided, report.reliability.split]).toEqual([1, 0, 2]);
  });

  it('reports ensemble first, then judges in bundle order, with decided items and Δ = 0', () => {
    expect(report.judges.map((j) => j.judge)).toEqual(['ensemble', 'j1', 'j2']);
    const j1 = report.judges[1];
    // majorities: i1 a, i2 a, i3 b. j1 prefers a on i1 (agree), ties i2, prefers b on i3 (agree).
    expect([j1.n, j1.n_delta_zero, j1.agreement]).toEqual([2, 1, 1]);
    expect(j1.p_value).toBeCloseTo(0.5, 14);
    expect(j1.cohen_kappa).toBeCloseTo(cohenKappa(['a', 'b'], ['a', 'b'])!, 14);
    expect(j1.system_means).toEqual({ X: (7 + 9) / 2, Y: (5 + 4) / 2, Z: (4 + 2) / 2 });
    const j2 = report.judges[2];
    expect([j2.n, j2.agreement]).toEqual([1, 0]);
    // ensemble over all rows: i1 X (8+6+1)/3 = 5, Y (5+2)/2 = 3.5 → prefers a
    expect(report.judges[0].system_means.X).toBeCloseTo((5 + 9) / 2, 14);
  });

  it('uses exactly the spec key names', () => {
    // the spec's four sections, then the per-item table and the per-listener quality view (docs/reports.md)
    expect(Object.keys(report).sort()).toEqual(['bradley_terry', 'items', 'judges', 'listener_quality', 'listeners', 'reliability']);
    expect(Object.keys(report.judges[0]).sort()).toEqual(
      ['buckets', 'calibration', 'ci95', 'cohen_kappa', 'judge', 'n', 'n_delta_zero', 'p_value', 'agreement', 'ranking', 'system_means'].sort());
    expect(Object.keys(report.judges[0].calibration)).toEqual(['votes', 'beta0', 'beta1', 'se_beta0', 'se_beta1', 'position_bias', 'bins']);
    expect(Object.keys(report.judges[0].ranking)).toEqual(['systems', 'spearman_rho', 'kendall_tau']);
  });

  it('fits BT on the 9 retained comparisons', () => {
    const bt = report.bradley_terry;
    expect(bt.comparisons).toBe(9);
    expect(bt.method).toBe('mle');
    expect(bt.systems.map((s) => s.rank)).toEqual([1, 2, 3]);
    expect(Object.keys(bt.systems[0])).toEqual(['system', 'log_strength', 'se', 'ci95', 'rank', 'rank_ci']);
    expect(bt.systems.reduce((s, x) => s + x.log_strength, 0)).toBeCloseTo(0, 12);
  });
});

describe('exclusion rules', () => {
  it('applies extra rules after attention, reports "not run" when a fact is missing', () => {
    const study = smallStudy();
    const facts = { L1: { median_response_ms: 400 }, L2: { median_response_ms: 5000, screening: 'pass' as const }, L4: { median_response_ms: 100 } };
    const r = analyze(buildBundle(study), { rules: [minMedianResponseTime(1000, facts), requireScreening(facts)] });
    expect(r.listeners.excluded.map((e) => [e.listener_id, e.reason, e.reasons])).toEqual([
      ['L1', 'fast', ['fast']],
      ['L4', 'attention', ['attention', 'fast']],
    ]);
    // analysis-spec §2: a listener excluded by several rules counts under each of them.
    expect(r.listeners.excluded_by_reason).toEqual({ fast: 2, attention: 1 });
    expect(r.listeners.not_run_by_reason).toEqual({ fast: 1, screening: 3 });
    expect(r.listeners.retained).toBe(2);
  });

  it('honours minAttention', () => {
    expect(analyze(buildBundle(smallStudy()), { minAttention: 0 }).listeners.retained).toBe(4);
  });
});

describe('Bradley–Terry existence in the report', () => {
  const study = {
    items: [item('i1', 'A', 'B'), item('i2', 'B', 'C'), item('i3', 'A', 'C')],
    votes: [vote('i1', 'L1', 'a'), vote('i2', 'L1', 'a'), vote('i2', 'L2', 'b'), vote('i3', 'L1', 'a')],
    judgeScores: [],
  };
  it('reports an error naming the systems that never lose', () => {
    const bt = analyze(buildBundle(study)).bradley_terry;
    expect(bt.systems).toEqual([]);
    expect(bt.never_lose).toEqual([['A']]);
    expect(bt.error).toContain('{A} never lost');
  });
  it('fits the MAP estimate when a ridge prior is given, and says so', () => {
    const bt = analyze(buildBundle(study), { btPrior: 1 }).bradley_terry;
    expect(bt.method).toBe('map');
    expect(bt.prior_lambda).toBe(1);
    expect(bt.systems[0].system).toBe('A');
  });
  it('omits judge sections without judge scores', () => {
    expect(analyze(buildBundle(study)).judges).toEqual([]);
  });
});

describe('gapBuckets', () => {
  it('uses [e0, e1] for bucket 1 and (e_{k−1}, e_k] after, reporting empty buckets', () => {
    const b = gapBuckets([0, 1, 2, 2.5, 10], [1, 1, 0, 1, 1], 5);
    expect(b.map((x) => x.n)).toEqual([3, 1, 0, 0, 1]);
    expect(b[0]).toMatchObject({ lo: 0, hi: 2, agreement: 2 / 3 });
    expect(b[2]).toMatchObject({ n: 0, agreement: null, ci95: null, p_value: null });
    expect(b[4].hi).toBe(10);
  });
  it('puts everything in bucket 1 when all gaps are equal', () => {
    expect(gapBuckets([1, 1], [1, 0], 3).map((x) => x.n)).toEqual([2, 0, 0]);
  });
});

const small = simulate({ systems: 5, items: 40, listeners: 6, careless: 1, attention: 4, seed: 7 });
const judgeStats = (r: Report) => r.judges.map(({ system_means: _omit, ...rest }) => rest);

describe('report properties', () => {
  it('adding a constant to every judge score changes no judge statistic', () => {
    const base = judgeStats(analyze(buildBundle(small)));
    fc.assert(fc.property(fc.integer({ min: -50, max: 50 }), (c) => {
      const shifted = analyze(buildBundle({ ...small, judgeScores: small.judgeScores.map((s) => ({ ...s, score: s.score + c })) }));
      const got = judgeStats(shifted);
      // Δ is a difference of means, so shifting may move its last bits; compare to 1e-9.
      expect(JSON.stringify(got, round)).toBe(JSON.stringify(base, round));
    }), { numRuns: 15 });
  });

  it('α and κ are unchanged by relabelling a↔b consistently across items and votes', () => {
    const swapped = {
      ...small,
      items: small.items.map((i) => ({ ...i, system_a: i.system_b, system_b: i.system_a, expected: i.expected && (i.expected === 'a' ? 'b' as const : 'a' as const) })),
      votes: small.votes.map((v) => ({ ...v, first: v.first === 'a' ? 'b' as const : 'a' as const, chosen: v.chosen === 'a' ? 'b' as const : 'a' as const })),
    };
    const a = analyze(buildBundle(small));
    const b = analyze(buildBundle(swapped));
    expect(b.reliability).toEqual(a.reliability);
    expect(b.judges.map((j) => j.cohen_kappa)).toEqual(a.judges.map((j) => j.cohen_kappa));
    expect(b.judges.map((j) => j.agreement)).toEqual(a.judges.map((j) => j.agreement));
  });

  it('statistics stay in bounds and every CI contains its estimate', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 10_000 }), (seed) => {
      const r = analyze(buildBundle(simulate({ systems: 4, items: 15, listeners: 5, careless: 1, attention: 3, seed })), { btPrior: 0.01 });
      for (const j of r.judges) {
        if (j.cohen_kappa !== null) expect(j.cohen_kappa).toBeLessThanOrEqual(1 + 1e-12);
        if (j.p_value !== null) expect(j.p_value >= 0 && j.p_value <= 1).toBe(true);
        if (j.ci95) expect(j.ci95[0] <= j.agreement! && j.agreement! <= j.ci95[1]).toBe(true);
      }
      for (const s of r.bradley_terry.systems) expect(s.ci95[0] <= s.log_strength && s.log_strength <= s.ci95[1]).toBe(true);
      const alpha = r.reliability.krippendorff_alpha;
      if (alpha !== null) expect(alpha).toBeLessThanOrEqual(1 + 1e-12);
    }), { numRuns: 25 });
  });
});

describe('bootstrap', () => {
  it('is reproducible for a seed and reports intervals for BT and agreement', () => {
    const bundle = buildBundle(simulate({ systems: 5, items: 60, listeners: 8, careless: 0, attention: 2, seed: 3 }));
    const a = analyze(bundle, { bootstrap: { n: 50, seed: 9 } });
    const b = analyze(bundle, { bootstrap: { n: 50, seed: 9 } });
    expect(a).toEqual(b);
    expect(a.bootstrap).toMatchObject({ resamples: 50, seed: 9, resampled: 'listeners', bt_mle_missing: 0 });
    for (const s of a.bradley_terry.systems) {
      expect(s.bootstrap_ci95![0]).toBeLessThan(s.bootstrap_ci95![1]);
    }
    expect(a.judges[0].bootstrap_ci95).not.toBeNull();
  });

  it('counts resamples without an MLE and withholds BT intervals when they are many', () => {
    // Only L1 ever sees A lose; resamples without L1 leave A unbeaten (no MLE).
    const study = {
      items: [item('i1', 'A', 'B'), item('i2', 'B', 'C'), item('i3', 'C', 'A')],
      votes: [
        vote('i1', 'L1', 'b'), vote('i1', 'L2', 'a'), vote('i2', 'L2', 'a'), vote('i2', 'L3', 'b'),
        vote('i3', 'L3', 'b'), vote('i1', 'L3', 'a'), vote('i2', 'L1', 'a'), vote('i3', 'L1', 'a'),
      ],
      judgeScores: [],
    };
    const r = analyze(buildBundle(study), { bootstrap: { n: 200, seed: 1 } });
    // P(L1 absent from a resample of 3) = (2/3)³ ≈ 0.30
    expect(r.bootstrap!.bt_mle_missing).toBeGreaterThan(30);
    expect(r.bootstrap!.bt_mle_missing).toBeLessThan(100);
    expect(r.bootstrap!.note).toMatch(/withheld/);
    expect(r.bradley_terry.systems.every((s) => s.bootstrap_ci95 === null)).toBe(true);
  });
});

function round(_key: string, value: unknown) {
  return typeof value === 'number' ? Number(value.toPrecision(9)) : value;
}

describe('biasCorrectedInterval', () => {
  it('equals the plain percentile interval when the estimate is the draws’ median', () => {
    const draws = Array.from({ length: 1001 }, (_, i) => i / 1000);
    const ci = biasCorrectedInterval(draws, 0.5)!;
    expect(ci[0]).toBeCloseTo(0.025, 3);
    expect(ci[1]).toBeCloseTo(0.975, 3);
  });
  it('shifts with the bias and is withheld when every draw is on one side', () => {
    const draws = Array.from({ length: 1001 }, (_, i) => i / 1000);
    const ci = biasCorrectedInterval(draws, 0.6)!;
    expect(ci[0]).toBeGreaterThan(0.025);
    expect(biasCorrectedInterval(draws, 2)).toBeNull();
  });
});

describe('the per-item table and the per-listener quality view (docs/reports.md)', () => {
  const report = analyze(buildBundle(smallStudy()));

  it('lists every pair item with its retained votes, majority and split class, worked by hand', () => {
    // Retained L1–L3: i1 a a b, i2 a b a, i3 b b b (L4 excluded, its votes left out).
    expect(report.items).toEqual([
      { item_id: 'i1', utterance_id: 'i1', system_a: 'X', system_b: 'Y', votes: 3, votes_a: 2, votes_b: 1, majority: 'a', majority_share: 2 / 3, split: 'split' },
      { item_id: 'i2', utterance_id: 'i2', system_a: 'Y', system_b: 'Z', votes: 3, votes_a: 2, votes_b: 1, majority: 'a', majority_share: 2 / 3, split: 'split' },
      { item_id: 'i3', utterance_id: 'i3', system_a: 'Z', system_b: 'X', votes: 3, votes_a: 0, votes_b: 3, majority: 'b', majority_share: 1, split: 'unanimous' },
    ]);
    // The same classes as the reliability counts.
    const classes = report.items!.map((i) => i.split);
    expect([classes.filter((c) => c === 'unanimous').length, classes.filter((c) => c === 'split').length]).toEqual([report.reliability.unanimous, report.reliability.split]);
  });

  it('compares each listener with the majority of the others, worked by hand', () => {
    // L1: i1 a vs others a,b (tie), i2 a vs b,a (tie), i3 b vs b,b → 1 of 1.
    // L2: i1 tie; i2 b vs a,a → no; i3 b → yes: 1 of 2.  L3: i1 b vs a,a → no; i2 tie; i3 yes: 1 of 2.
    // L4 (excluded, not in the tallies): i1 b vs a, i2 b vs a, i3 a vs b → 0 of 3.
    const q = new Map(report.listener_quality.map((x) => [x.listener_id, x]));
    expect([...q.keys()]).toEqual(['L1', 'L2', 'L3', 'L4']);
    expect(['L1', 'L2', 'L3', 'L4'].map((l) => [q.get(l)!.majority_items, q.get(l)!.majority_agreement])).toEqual([[1, 1], [2, 0.5], [2, 0.5], [3, 0]]);
    expect(q.get('L4')).toMatchObject({ retained: false, reasons: ['attention'], answers: 3, attention_answered: 2, attention_correct: 0, attention_score: 0 });
    expect(q.get('L1')).toMatchObject({ retained: true, reasons: [], answers: 3, attention_score: 1, median_response_ms: null });
    expect(q.get('L2')!.majority_agreement_ci95).toEqual(wilsonInterval(1, 2));
    // A pair study has no rating fields.
    expect(Object.keys(q.get('L1')!)).not.toContain('panel_r');
  });

  it('finds the careless listener who passes the attention checks, and no attentive one', () => {
    const study = simulate({ systems: 8, items: 160, listeners: 12, careless: 3, carelessPassing: 1, attention: 8, seed: 12 });
    const r = analyze(buildBundle(study));
    const [sneaky] = study.truth.carelessPassing;
    const rows = new Map(r.listener_quality.map((x) => [x.listener_id, x]));
    // The attention rule lets the sneaky one through and catches the other careless ones…
    expect(rows.get(sneaky)).toMatchObject({ retained: true, flags: ['agreement_at_chance'] });
    expect(rows.get(sneaky)!.attention_score).toBeGreaterThanOrEqual(0.75);
    expect(r.listeners.excluded.every((e) => study.truth.careless.includes(e.listener_id) && e.listener_id !== sneaky)).toBe(true);
    // …the quality view flags every careless listener the rules let through (one who clicks enough
    // checks right by luck too), and no attentive listener.
    const flaggedRetained = r.listener_quality.filter((x) => x.retained && x.flags.length).map((x) => x.listener_id);
    const carelessRetained = study.truth.careless.filter((l) => rows.get(l)!.retained);
    expect(carelessRetained).toContain(sneaky);
    expect(flaggedRetained).toEqual(carelessRetained);
    expect(rows.get(sneaky)!.majority_agreement!).toBeLessThan(Math.min(...r.listener_quality.filter((x) => !study.truth.careless.includes(x.listener_id)).map((x) => x.majority_agreement!)));
  });
});

import { describe, expect, it } from 'vitest';
import { buildBundle } from './bundle';
import { analyze } from './report';
import { simulate } from './simulate';
import { spearmanRho } from './stats/spearman';

describe('simulate', () => {
  it('is deterministic for a seed and shaped as asked', () => {
    const a = simulate({ systems: 14, items: 100, listeners: 15, careless: 2, attention: 8, seed: 1 });
    expect(a).toEqual(simulate({ systems: 14, items: 100, listeners: 15, careless: 2, attention: 8, seed: 1 }));
    expect(a.items).toHaveLength(108);
    expect(a.votes).toHaveLength(108 * 15);
    expect(a.judgeScores).toHaveLength(100 * 2 * 9);
    expect(new Set(a.items.filter((i) => !i.attention).flatMap((i) => [i.system_a, i.system_b])).size).toBe(14);
  });

  it('drops about the asked share of judge runs, and keeps the scores of the runs left', () => {
    const o = { systems: 14, items: 500, listeners: 15, careless: 2, attention: 8, seed: 3 };
    const full = simulate(o).judgeScores;
    const some = simulate({ ...o, missingRuns: 0.45 }).judgeScores;
    expect(some.length / full.length).toBeGreaterThan(0.5);
    expect(some.length / full.length).toBeLessThan(0.6);
    // No judge run appears twice.
    const keys = some.map((s) => `${s.utterance_id}|${s.system}|${s.judge}|${s.run}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(simulate(o).judgeScores).toEqual(full);
  });

  it('makes careless listeners who pass the attention checks, changing nothing else of the study', () => {
    const o = { systems: 6, items: 80, listeners: 10, careless: 3, attention: 8, seed: 4 };
    const plain = simulate(o);
    const sneaky = simulate({ ...o, carelessPassing: 2 });
    expect(plain.truth.carelessPassing).toEqual([]);
    expect(sneaky.truth.careless).toEqual(plain.truth.careless);
    expect(sneaky.truth.carelessPassing).toEqual(plain.truth.careless.slice(0, 2));
    expect(sneaky.items).toEqual(plain.items);
    expect(sneaky.judgeScores).toEqual(plain.judgeScores);
    const expected = new Map(sneaky.items.map((i) => [i.item_id, i.expected]));
    const checks = (votes: typeof plain.votes, l: string) => votes.filter((v) => v.listener_id === l && expected.get(v.item_id));
    for (const l of sneaky.truth.carelessPassing) {
      const answers = checks(sneaky.votes, l);
      expect(answers.filter((v) => v.chosen === expected.get(v.item_id)).length).toBeGreaterThanOrEqual(7);
    }
    // Only the attention answers of those listeners differ.
    const differ = sneaky.votes.filter((v, k) => v.chosen !== plain.votes[k].chosen);
    expect(differ.every((v) => sneaky.truth.carelessPassing.includes(v.listener_id) && expected.get(v.item_id))).toBe(true);
    expect(() => simulate({ ...o, carelessPassing: 4 })).toThrow(RangeError);
  });

  it('gives pair listeners their own sensitivity only when asked, so they differ in how often the stronger system wins', () => {
    const o = { systems: 8, items: 400, listeners: 20, careless: 0, attention: 0, seed: 6, positionBias: 0 };
    expect(simulate({ ...o, listenerSpread: 0 })).toEqual(simulate(o));
    const spreadSd = (study: ReturnType<typeof simulate>) => {
      const strength = study.truth.theta;
      const item = new Map(study.items.map((i) => [i.item_id, i]));
      const shares = [...new Set(study.votes.map((v) => v.listener_id))].map((l) => {
        const mine = study.votes.filter((v) => v.listener_id === l);
        const stronger = mine.filter((v) => {
          const { system_a: a, system_b: b } = item.get(v.item_id)!;
          return (v.chosen === 'a') === (strength[a] > strength[b]);
        });
        return stronger.length / mine.length;
      });
      const mean = shares.reduce((x, y) => x + y, 0) / shares.length;
      return Math.sqrt(shares.reduce((x, y) => x + (y - mean) ** 2, 0) / (shares.length - 1));
    };
    const same = simulate(o);
    const spread = simulate({ ...o, listenerSpread: 0.9 });
    expect(spread.items).toEqual(same.items);
    // Without a spread the listeners' shares differ by binomial noise alone (SD ≈ 0.02 over 400 votes).
    console.log(`simulate listenerSpread 0.9: SD of listeners' stronger-system share ${spreadSd(spread).toFixed(3)} against ${spreadSd(same).toFixed(3)} without`);
    expect(spreadSd(spread)).toBeGreaterThan(2 * spreadSd(same));
  });

  it('Bradley–Terry recovers the true order from ≥ 10,000 votes (ρ ≥ 0.9)', () => {
    const study = simulate({ systems: 14, items: 1000, listeners: 11, careless: 0, attention: 0, seed: 11 });
    expect(study.votes.length).toBeGreaterThanOrEqual(10_000);
    const report = analyze(buildBundle(study));
    const systems = report.bradley_terry.systems;
    const rho = spearmanRho(systems.map((s) => s.log_strength), systems.map((s) => study.truth.theta[s.system]))!;
    expect(rho).toBeGreaterThanOrEqual(0.9);
  });

  it('careless listeners are excluded by the attention rule, attentive ones kept', () => {
    // A careless listener clicks at random, so passes 6/8 checks with probability 37/256 ≈ 14%:
    // over many studies most, not all, are caught; attentive listeners are almost never lost.
    let careless = 0;
    let caught = 0;
    let attentive = 0;
    let lost = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const study = simulate({ systems: 6, items: 10, listeners: 15, careless: 2, attention: 8, seed });
      const report = analyze(buildBundle(study));
      const excluded = new Set(report.listeners.excluded.map((e) => e.listener_id));
      for (const e of report.listeners.excluded) expect(e).toMatchObject({ reason: 'attention', answered: 8 });
      careless += study.truth.careless.length;
      caught += study.truth.careless.filter((l) => excluded.has(l)).length;
      attentive += 15 - study.truth.careless.length;
      lost += [...excluded].filter((l) => !study.truth.careless.includes(l)).length;
    }
    expect(caught / careless).toBeGreaterThanOrEqual(0.75);
    expect(lost / attentive).toBeLessThanOrEqual(0.01);
    // The example study shape, seed 2, excludes exactly its two careless listeners.
    const study = simulate({ systems: 14, items: 100, listeners: 15, careless: 2, attention: 8, seed: 2 });
    const report = analyze(buildBundle(study));
    expect(report.listeners.excluded.map((e) => e.listener_id).sort()).toEqual(study.truth.careless);
    expect(report.listeners.excluded_by_reason).toEqual({ attention: 2 });
  });

  it('95% BT intervals cover the true strengths in 90–98% of cases over many seeds', () => {
    let covered = 0;
    let total = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const study = simulate({ systems: 14, items: 250, listeners: 10, careless: 0, attention: 0, seed, positionBias: 0 });
      for (const s of analyze(buildBundle(study)).bradley_terry.systems) {
        const truth = study.truth.theta[s.system];
        if (s.ci95[0] <= truth && truth <= s.ci95[1]) covered++;
        total++;
      }
    }
    expect(total).toBe(560);
    expect(covered / total).toBeGreaterThanOrEqual(0.9);
    expect(covered / total).toBeLessThanOrEqual(0.98);
  });
});

import { describe, expect, it } from 'vitest';
import { buildBundle } from '../bundle';
import { simulate } from '../simulate';
import { seededRandom } from '../random';
import { parseTarget, planStudy, PlanError } from './plan';
import { simulatePairWidth, type PairModel } from './pair-model';

// The truth: 8 systems (simulate's seeded spread of strengths), 10 % careless, position bias 0.3, 10 checks.
const pilotStudy = simulate({ systems: 8, items: 200, listeners: 20, careless: 2, attention: 10, ratingsPerItem: 2, positionBias: 0.3, seed: 7 });
const pilot = buildBundle({ ...pilotStudy, extraVoteColumns: ['response_ms'] });
const plan = planStudy(pilot, parseTarget('bt-ci=0.3'), { seed: 3 });
const model = plan.model as PairModel;
const systems = model.systems;
const truth: PairModel = { ...model, theta: systems.map((s) => pilotStudy.truth.theta[s]), careless: 0.1, positionBias: 0.3 };

describe('planner, bt-ci', () => {
  it('predicts a width that studies of the predicted size from the truth achieve within ±10 %', () => {
    const achieved = Array.from({ length: 40 }, (_, r) => simulatePairWidth(truth, plan.listeners, seededRandom(9000 + r)).width);
    const mean = achieved.reduce((a, b) => a + b, 0) / achieved.length;
    console.log(`planner bt-ci: N=${plan.listeners}, predicted ${plan.predictedWidth.toFixed(4)} ± ${plan.widthSpread.toFixed(4)}, achieved ${mean.toFixed(4)}; fitted careless ${plan.model.careless.toFixed(3)}, bias ${model.positionBias.toFixed(3)}`);
    expect(plan.predictedWidth).toBeLessThanOrEqual(0.3);
    expect(Math.abs(mean - plan.predictedWidth) / plan.predictedWidth).toBeLessThanOrEqual(0.1);
  });

  it('gives 95 % intervals that cover the true strengths in 93–97 % of system-study cases', () => {
    let covered = 0;
    let cases = 0;
    for (let r = 0; r < 300; r++) {
      const { theta, se } = simulatePairWidth(truth, plan.listeners, seededRandom(20000 + r));
      if (!theta || !se) continue;
      for (let s = 0; s < theta.length; s++) {
        cases++;
        if (Math.abs(theta[s] - truth.theta[s]) <= 1.959964 * se[s]) covered++;
      }
    }
    console.log(`planner bt-ci coverage: ${covered}/${cases} = ${(covered / cases).toFixed(4)}`);
    expect(covered / cases).toBeGreaterThanOrEqual(0.93);
    expect(covered / cases).toBeLessThanOrEqual(0.97);
  });

  it('refuses an unknown target and a rating target on a pair pilot', () => {
    expect(() => parseTarget('kappa=0.1')).toThrow(/unknown target statistic "kappa"/);
    expect(() => planStudy(pilot, parseTarget('mos-ci=0.1'))).toThrow(PlanError);
    expect(() => planStudy(pilot, parseTarget('bt-ci=0.001'), { maxListeners: 64 })).toThrow(/not reached by 64 listeners/);
  });
});

// The same truth with heterogeneous listeners: each attentive one's sensitivity uniform in ×0.6–1.4.
describe('planner, bt-ci, a pilot of listeners who differ in sensitivity', () => {
  const spread = 0.4;
  const spreadStudy = simulate({ systems: 8, items: 200, listeners: 20, careless: 2, attention: 10, ratingsPerItem: 2, positionBias: 0.3, seed: 7, listenerSpread: spread });
  const spreadPlan = planStudy(buildBundle({ ...spreadStudy, extraVoteColumns: ['response_ms'] }), parseTarget('bt-ci=0.3'), { seed: 3 });
  const spreadTruth: PairModel = { ...(spreadPlan.model as PairModel), theta: (spreadPlan.model as PairModel).systems.map((s) => spreadStudy.truth.theta[s]), careless: 0.1, positionBias: 0.3 };

  it('predicts a width that studies of the predicted size from that truth achieve within ±10 %', () => {
    const achieved = Array.from({ length: 40 }, (_, r) => simulatePairWidth(spreadTruth, spreadPlan.listeners, seededRandom(9000 + r), spread).width);
    const mean = achieved.reduce((a, b) => a + b, 0) / achieved.length;
    console.log(`planner bt-ci, listener spread ±${spread}: N=${spreadPlan.listeners}, predicted ${spreadPlan.predictedWidth.toFixed(4)} ± ${spreadPlan.widthSpread.toFixed(4)}, achieved ${mean.toFixed(4)}`);
    expect(spreadPlan.predictedWidth).toBeLessThanOrEqual(0.3);
    expect(Math.abs(mean - spreadPlan.predictedWidth) / spreadPlan.predictedWidth).toBeLessThanOrEqual(0.1);
  });

  it('gives 95 % intervals that still cover the true strengths in 93–97 % of system-study cases', () => {
    let covered = 0;
    let cases = 0;
    for (let r = 0; r < 300; r++) {
      const { theta, se } = simulatePairWidth(spreadTruth, spreadPlan.listeners, seededRandom(20000 + r), spread);
      if (!theta || !se) continue;
      for (let s = 0; s < theta.length; s++) {
        cases++;
        if (Math.abs(theta[s] - spreadTruth.theta[s]) <= 1.959964 * se[s]) covered++;
      }
    }
    console.log(`planner bt-ci coverage, listener spread ±${spread}: ${covered}/${cases} = ${(covered / cases).toFixed(4)}`);
    expect(covered / cases).toBeGreaterThanOrEqual(0.93);
    expect(covered / cases).toBeLessThanOrEqual(0.97);
  });
});

import { describe, expect, it } from 'vitest';
import { buildBundle } from '../bundle';
import { simulate } from '../simulate';
import { seededRandom } from '../random';
import { parseTarget, planStudy, PlanError } from './plan';
import { simulatePairWidth, type PairModel } from './pair-model';

/**
 * The truth: 8 systems (simulate's seeded spread of strengths), 10 % careless, position bias 0.3, 10 checks;
 * with `spread`, each attentive listener's sensitivity is uniform in 1 ± spread. A 20-listener pilot is
 * drawn from it and planned for bt-ci=0.3; studies of the planned size are then drawn from the truth.
 */
function planned(spread: number) {
  const pilotStudy = simulate({ systems: 8, items: 200, listeners: 20, careless: 2, attention: 10, ratingsPerItem: 2, positionBias: 0.3, seed: 7, listenerSpread: spread });
  const pilot = buildBundle({ ...pilotStudy, extraVoteColumns: ['response_ms'] });
  const plan = planStudy(pilot, parseTarget('bt-ci=0.3'), { seed: 3 });
  const model = plan.model as PairModel;
  const truth: PairModel = { ...model, theta: model.systems.map((s) => pilotStudy.truth.theta[s]), careless: 0.1, positionBias: 0.3 };
  return { pilot, plan, model, truth };
}

for (const spread of [0, 0.4]) {
  const label = spread === 0 ? 'planner bt-ci' : `planner bt-ci, listener spread ±${spread}`;
  describe(spread === 0 ? 'planner, bt-ci' : 'planner, bt-ci, a pilot of listeners who differ in sensitivity (×0.6–1.4)', () => {
    const { plan, model, truth } = planned(spread);

    it('predicts a width that studies of the predicted size from the truth achieve within ±10 %', () => {
      const achieved = Array.from({ length: 40 }, (_, r) => simulatePairWidth(truth, plan.listeners, seededRandom(9000 + r), spread).width);
      const mean = achieved.reduce((a, b) => a + b, 0) / achieved.length;
      console.log(`${label}: N=${plan.listeners}, predicted ${plan.predictedWidth.toFixed(4)} ± ${plan.widthSpread.toFixed(4)}, achieved ${mean.toFixed(4)}; fitted careless ${model.careless.toFixed(3)}, bias ${model.positionBias.toFixed(3)}`);
      expect(plan.predictedWidth).toBeLessThanOrEqual(0.3);
      expect(Math.abs(mean - plan.predictedWidth) / plan.predictedWidth).toBeLessThanOrEqual(0.1);
    });

    it('gives 95 % intervals that cover the true strengths in 93–97 % of system-study cases', () => {
      let covered = 0;
      let cases = 0;
      for (let r = 0; r < 300; r++) {
        const { theta, se } = simulatePairWidth(truth, plan.listeners, seededRandom(20000 + r), spread);
        if (!theta || !se) continue;
        for (let s = 0; s < theta.length; s++) {
          cases++;
          if (Math.abs(theta[s] - truth.theta[s]) <= 1.959964 * se[s]) covered++;
        }
      }
      console.log(`${label} coverage: ${covered}/${cases} = ${(covered / cases).toFixed(4)}`);
      expect(covered / cases).toBeGreaterThanOrEqual(0.93);
      expect(covered / cases).toBeLessThanOrEqual(0.97);
    });
  });
}

describe('planner, bt-ci, bad targets', () => {
  const { pilot } = planned(0);
  it('refuses an unknown target and a rating target on a pair pilot', () => {
    expect(() => parseTarget('kappa=0.1')).toThrow(/unknown target statistic "kappa"/);
    expect(() => planStudy(pilot, parseTarget('mos-ci=0.1'))).toThrow(PlanError);
    expect(() => planStudy(pilot, parseTarget('bt-ci=0.001'), { maxListeners: 64 })).toThrow(/not reached by 64 listeners/);
  });
});

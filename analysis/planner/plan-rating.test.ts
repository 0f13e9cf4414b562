import { describe, expect, it } from 'vitest';
import { buildBundle } from '../bundle';
import { simulateRatings } from '../simulate';
import { seededRandom } from '../random';
import { parseTarget, planStudy } from './plan';
import { populationMos, simulateRatingWidth, type RatingModel } from './rating-model';

// The truth: 8 systems, listener bias SD 0.4, rating noise 0.7, 10 % careless, 10 checks on ACR 1–5.
const pilotStudy = simulateRatings({ systems: 8, items: 400, listeners: 20, careless: 2, attention: 10, ratingsPerItem: 1, listenerBias: 0.4, ratingNoise: 0.7, seed: 5 });
const pilot = buildBundle(pilotStudy);
const plan = planStudy(pilot, parseTarget('mos-ci=0.1'), { seed: 3 });
const model = plan.model as RatingModel;
const truth: RatingModel = {
  ...model, mos: model.systems.map((s) => pilotStudy.truth.mos[s]), listenerBias: 0.4,
  residual: Math.hypot(0.7, 0.3), careless: 0.1,
};

describe('planner, mos-ci', () => {
  it('predicts a width that studies of the predicted size from the truth achieve within ±10 %', () => {
    const achieved = Array.from({ length: 40 }, (_, r) => simulateRatingWidth(truth, plan.listeners, seededRandom(7000 + r)).width);
    const mean = achieved.reduce((a, b) => a + b, 0) / achieved.length;
    console.log(`planner mos-ci: N=${plan.listeners}, predicted ${plan.predictedWidth.toFixed(4)} ± ${plan.widthSpread.toFixed(4)}, achieved ${mean.toFixed(4)}; fitted bias SD ${model.listenerBias.toFixed(3)}, residual ${model.residual.toFixed(3)}, careless ${model.careless.toFixed(3)}`);
    expect(plan.predictedWidth).toBeLessThanOrEqual(0.1);
    expect(Math.abs(mean - plan.predictedWidth) / plan.predictedWidth).toBeLessThanOrEqual(0.1);
  });

  // The truth a study's mean score estimates is the population MOS (the expected clamped, rounded score),
  // not the latent MOS: the interval is the listener bootstrap (ci95_bootstrap), since ratings share
  // their listener's bias. Before, with the P.808 t-interval against the latent MOS: 2087/2400 = 87.0 %.
  it('gives listener-bootstrap intervals covering the population MOS in 93–97 % of system-study cases', () => {
    const population = truth.mos.map((_, s) => populationMos(truth, s));
    let covered = 0;
    let cases = 0;
    for (let r = 0; r < 300; r++) {
      const { intervals } = simulateRatingWidth(truth, plan.listeners, seededRandom(30000 + r));
      if (!intervals) continue;
      for (let s = 0; s < intervals.length; s++) {
        cases++;
        if (intervals[s][0] <= population[s] && population[s] <= intervals[s][1]) covered++;
      }
    }
    console.log(`planner mos-ci coverage (listener bootstrap): ${covered}/${cases} = ${(covered / cases).toFixed(4)}`);
    expect(cases).toBe(2400);
    expect(covered / cases).toBeGreaterThanOrEqual(0.93);
    expect(covered / cases).toBeLessThanOrEqual(0.97);
  });
});

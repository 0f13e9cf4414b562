/**
 * A sample config's items drawn over system pairs, for every kind that sets two systems' versions
 * of one utterance side by side: the caption pair (versions = captions) and A/B (versions =
 * renditions). Checks the config against the manifest (systems, anchor, judge), then runs the
 * sampler (studies/sampler.ts) over each (utterance, system) that has a version; problems go to the
 * study at their YAML lines and nothing is drawn.
 */
import type { SampleConfig } from '../contract/study-definition';
import type { PlanContext } from './build';
import { captionKey, judgeScores, sampleItems, type SampledItem, type SamplerSummary } from './sampler';

export interface PairSample {
  items: SampledItem[];
  summary: SamplerSummary;
}

export function samplePairs(
  config: SampleConfig,
  study: PlanContext,
  options: {
    seed: number;
    /** Draw over systems with renditions (A/B) rather than captions. */
    audio: boolean;
    /** Attention checks drawn before the sample: the sample leaves their clips alone. */
    checks: Parameters<PlanContext['samplePool']>[1];
    /** Whether the utterance has the system's version, and its text (two that read the same are never paired). */
    version(utteranceId: string, system: string): { text?: string } | null;
  },
): PairSample | null {
  const { manifest } = study;
  const systems = study.sampledSystems(config, options.audio);
  if (config.anchorSystem !== undefined && !systems.includes(config.anchorSystem)) {
    study.problem(['items', 'anchorSystem'], `anchor system ${config.anchorSystem} is not among items.systems in ${manifest.name}`);
  }
  const stratify = config.judge !== 'none';
  if (stratify && config.judge !== 'ensemble' && !manifest.judges().has(config.judge)) {
    study.problem(['items', 'judge'], `judge ${config.judge} has no scores in ${manifest.name}`);
  }
  if (!study.failed() && systems.length < 2) study.problem(['items', 'systems'], 'at least two systems are needed to make pairs');
  if (study.failed()) return null;
  const pool = study.samplePool(config.utterances, options.checks);
  const scores = stratify ? judgeScores(manifest.judgeRows(new Set(systems)), config.judge) : new Map<string, number>();
  const versions = pool.flatMap((u) =>
    systems.flatMap((system) => {
      const version = options.version(u.id, system);
      return version ? [{ utteranceId: u.id, system, score: scores.get(captionKey(u.id, system)) ?? null, ...version }] : [];
    }),
  );
  try {
    return sampleItems(versions, systems, {
      count: config.count,
      minPerSystem: config.minPerSystem,
      stratify,
      buckets: config.buckets,
      nearTieWeight: config.nearTieWeight,
      maxPerUtterance: config.maxPerUtterance,
      anchorSystem: config.anchorSystem,
      seed: options.seed,
    });
  } catch (error) {
    study.samplingProblem(error);
    return null;
  }
}

import type { ListenerCorrelation } from './stats/listener-correlation';

/**
 * Listener exclusion rules beyond the attention score, fed with per-listener facts the app
 * knows (median response time, listening-requirement violations, headphone screening).
 * A rule whose fact is missing for a listener answers "not_run" — never a pass or a failure —
 * and the report counts those separately, so a check that could not run stays visible.
 */
export type RuleOutcome =
  | { outcome: 'pass' }
  | { outcome: 'not_run' }
  | { outcome: 'fail'; detail: Record<string, number | string | null> };

export interface ExclusionRule {
  /** key used in `excluded[].reason` and `excluded_by_reason` */
  reason: string;
  evaluate(listenerId: string): RuleOutcome;
}

export interface ListenerFacts {
  median_response_ms?: number | null;
  listening_violations?: number | null;
  screening?: 'pass' | 'fail' | null;
}

type FactsLookup = ReadonlyMap<string, ListenerFacts> | Readonly<Record<string, ListenerFacts>>;

function factsOf(facts: FactsLookup, id: string): ListenerFacts | undefined {
  return facts instanceof Map ? facts.get(id) : (facts as Record<string, ListenerFacts>)[id];
}

/** Excludes listeners answering faster than `minMs` at the median (clicking through). */
export function minMedianResponseTime(minMs: number, facts: FactsLookup): ExclusionRule {
  return {
    reason: 'median_response_time',
    evaluate(id) {
      const v = factsOf(facts, id)?.median_response_ms;
      if (v === null || v === undefined) return { outcome: 'not_run' };
      return v >= minMs ? { outcome: 'pass' } : { outcome: 'fail', detail: { median_response_ms: v, min_ms: minMs } };
    },
  };
}

/** Excludes listeners who chose before meeting the listening requirement more than `max` times. */
export function maxListeningViolations(max: number, facts: FactsLookup): ExclusionRule {
  return {
    reason: 'listening_violations',
    evaluate(id) {
      const v = factsOf(facts, id)?.listening_violations;
      if (v === null || v === undefined) return { outcome: 'not_run' };
      return v <= max ? { outcome: 'pass' } : { outcome: 'fail', detail: { listening_violations: v, max } };
    },
  };
}

/** Excludes listeners who failed the headphone screening; a screening that never ran is "not_run". */
export function requireScreening(facts: FactsLookup): ExclusionRule {
  return {
    reason: 'screening',
    evaluate(id) {
      const v = factsOf(facts, id)?.screening;
      if (v === null || v === undefined) return { outcome: 'not_run' };
      return v === 'pass' ? { outcome: 'pass' } : { outcome: 'fail', detail: { screening: v } };
    },
  };
}

/**
 * Excludes rating listeners whose scores correlate with the other listeners' mean below `min`
 * (ITU-T P.808's per-listener check, analysis-spec §4). A listener without ratings, or with too
 * few shared items for r (pearson_r null), is "not_run": a pair study reports the rule as not run.
 */
export function minListenerCorrelation(min: number, correlations: ReadonlyMap<string, ListenerCorrelation>): ExclusionRule {
  return {
    reason: 'listener_correlation',
    evaluate(id) {
      const c = correlations.get(id);
      if (!c || c.pearson_r === null) return { outcome: 'not_run' };
      return c.pearson_r >= min ? { outcome: 'pass' } : { outcome: 'fail', detail: { pearson_r: c.pearson_r, n: c.n, min_r: min } };
    },
  };
}

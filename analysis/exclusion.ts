/**
 * Listener exclusion rules (analysis-spec §2), each fed with per-listener facts read from the
 * bundle: attention answers from items.csv, votes.csv and ratings.csv, response times, listening
 * and hidden time from votes.csv's further columns, the screening from listeners.csv, each rating
 * listener's correlation with the panel from ratings.csv; a registered kind's (analysis/kinds)
 * attention answers through its `correct`, and its own rules after the study's.
 * A rule whose fact is missing for a listener answers "not_run" — never a pass or a failure —
 * and the report counts those separately, so a check that could not run stays visible.
 */
import { median } from 'simple-statistics';
import type { Bundle } from './bundle';
import { analysisKind } from './kinds/index';
import type { AnalysisKind, KindAnswer } from './kinds/types';
import { countRatingAttention, ratingListenerCorrelations } from '../trials/rating/report';
import type { ListenerCorrelation } from './stats/listener-correlation';
import type { ExclusionRuleSettings, ListeningRequirement } from './study-settings';

export type RuleOutcome =
  | { outcome: 'pass' }
  | { outcome: 'not_run' }
  | { outcome: 'fail'; detail: Record<string, number | string | null> };

export interface ExclusionRule {
  /** key used in `excluded[].reason` and `excluded_by_reason` */
  reason: string;
  evaluate(listenerId: string): RuleOutcome;
  /** the correlation rule's figures, which the report's ratings section lists as they were judged */
  listenerCorrelations?: ReadonlyMap<string, ListenerCorrelation>;
}

export interface ListenerFacts {
  median_response_ms?: number | null;
  listening_violations?: number | null;
  hidden_ms?: number | null;
  screening?: 'pass' | 'fail' | null;
}

type FactsLookup = ReadonlyMap<string, ListenerFacts> | Readonly<Record<string, ListenerFacts>>;

function factsOf(facts: FactsLookup, id: string): ListenerFacts | undefined {
  return facts instanceof Map ? facts.get(id) : (facts as Record<string, ListenerFacts>)[id];
}

/** Attention answers per listener (index as in bundle.listeners). */
export function attentionCounts(bundle: Bundle): { answered: Int32Array; correct: Int32Array } {
  const { items, votes, listeners } = bundle;
  const answered = new Int32Array(listeners.length);
  const correct = new Int32Array(listeners.length);
  for (let v = 0; v < votes.length; v++) {
    const item = items[votes.item[v]];
    if (!item.attention) continue;
    const l = votes.listener[v];
    answered[l]++;
    if ((votes.chosenA[v] === 1) === (item.expected === 'a')) correct[l]++;
  }
  // An A/B attention check expects the undegraded side: a tie on it is answered, and wrong.
  const { ties } = bundle;
  for (let t = 0; t < ties.length; t++) if (items[ties.item[t]].attention) answered[ties.listener[t]]++;
  countRatingAttention(bundle, answered, correct);
  for (const [kind, answers] of bundleKinds(bundle)) {
    for (const answer of answers) {
      const item = items[answer.item];
      if (!item.attention) continue;
      answered[answer.listener]++;
      if (kind.correct(answer, item)) correct[answer.listener]++;
    }
  }
  return { answered, correct };
}

/** The registered kinds the bundle has answers of (or items of), each with its answers, in the registry's order. */
export function bundleKinds(bundle: Bundle): [AnalysisKind<any, any>, readonly KindAnswer<unknown>[]][] {
  return Object.entries(bundle.kindAnswers).flatMap(([name, answers]) => {
    const kind = analysisKind(name);
    return kind ? [[kind, answers]] : [];
  });
}

/** Excludes listeners whose share of right attention answers is below `min`; no answers = not run. */
export function minAttentionScore(min: number, bundle: Bundle): ExclusionRule {
  const { answered, correct } = attentionCounts(bundle);
  const index = new Map(bundle.listeners.map((id, l) => [id, l]));
  return {
    reason: 'attention',
    evaluate(id) {
      const l = index.get(id);
      if (l === undefined || answered[l] === 0) return { outcome: 'not_run' };
      return correct[l] / answered[l] >= min ? { outcome: 'pass' } : { outcome: 'fail', detail: { correct: correct[l], answered: answered[l] } };
    },
  };
}

/** Excludes listeners answering faster than `minMs` at the median (clicking through). */
export function minMedianResponseTime(minMs: number, facts: FactsLookup): ExclusionRule {
  return {
    reason: 'fast',
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
    reason: 'listening',
    evaluate(id) {
      const v = factsOf(facts, id)?.listening_violations;
      if (v === null || v === undefined) return { outcome: 'not_run' };
      return v <= max ? { outcome: 'pass' } : { outcome: 'fail', detail: { listening_violations: v, max } };
    },
  };
}

/** Excludes listeners whose tab was hidden for more than `maxMs` in total during their trials. */
export function maxHiddenTime(maxMs: number, facts: FactsLookup): ExclusionRule {
  return {
    reason: 'hidden',
    evaluate(id) {
      const v = factsOf(facts, id)?.hidden_ms;
      if (v === null || v === undefined) return { outcome: 'not_run' };
      return v <= maxMs ? { outcome: 'pass' } : { outcome: 'fail', detail: { hidden_ms: v, max_ms: maxMs } };
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
 * Excludes rating listeners whose scores correlate with the panel's mean below `min` (ITU-T
 * P.808's per-listener check by iterative leave-out, docs/analysis-spec.md; `correlations` as
 * ratingListenerCorrelations(bundle, min) gives them). A listener without ratings, or with too
 * few shared items for r (pearson_r null), is "not_run": a pair study reports the rule as not run.
 */
export function minListenerCorrelation(min: number, correlations: ReadonlyMap<string, ListenerCorrelation>): ExclusionRule {
  return {
    reason: 'listener_correlation',
    listenerCorrelations: correlations,
    evaluate(id) {
      const c = correlations.get(id);
      if (!c || c.pearson_r === null) return { outcome: 'not_run' };
      return c.pearson_r >= min ? { outcome: 'pass' } : { outcome: 'fail', detail: { pearson_r: c.pearson_r, n: c.n, min_r: min } };
    },
  };
}

/**
 * Per listener who answered: median response time, listening-requirement violations, total hidden
 * time (each over the listener's votes, ties and ratings that carry the fact; null when none does or the
 * column is absent) and the screening outcome (null when listeners.csv lacks it).
 */
export function listenerFacts(bundle: Bundle, listening: ListeningRequirement = { mode: 'whole' }): Map<string, ListenerFacts> {
  const { votes, ratings, ties, listeners } = bundle;
  const times: number[][] = listeners.map(() => []);
  const violations = new Int32Array(listeners.length).fill(-1);
  const hidden = new Float64Array(listeners.length).fill(NaN);
  // A rating study's answers carry the same facts as a pair study's votes (ratings.csv's further
  // columns); an A/B study's ties are answers of the listener like their choices.
  for (const answers of ratings ? [votes, ratings, ties] : [votes, ties]) {
    const met = (v: number): boolean | null => {
      if (listening.mode === 'whole') return answers.heardToEnd && answers.heardToEnd[v] >= 0 ? answers.heardToEnd[v] === 1 : null;
      const s = answers.secondsListened?.[v];
      return s === undefined || Number.isNaN(s) ? null : s >= listening.seconds;
    };
    for (let v = 0; v < answers.length; v++) {
      const l = answers.listener[v];
      const ms = answers.responseMs?.[v];
      if (ms !== undefined && !Number.isNaN(ms)) times[l].push(ms);
      const ok = met(v);
      if (ok !== null) violations[l] = Math.max(violations[l], 0) + (ok ? 0 : 1);
      const h = answers.hiddenMs?.[v];
      if (h !== undefined && !Number.isNaN(h)) hidden[l] = (Number.isNaN(hidden[l]) ? 0 : hidden[l]) + h;
    }
  }
  return new Map(listeners.map((id, l) => {
    const screening = bundle.listenerTable?.get(id)?.screening;
    return [id, {
      median_response_ms: times[l].length ? median(times[l]) : null,
      listening_violations: violations[l] >= 0 ? violations[l] : null,
      hidden_ms: Number.isNaN(hidden[l]) ? null : hidden[l],
      screening: screening === 'passed' ? 'pass' : screening === 'failed' ? 'fail' : null,
    }];
  }));
}

/** The rules a study switched on, after attention, in the order the report applies them. */
export function exclusionRules(
  bundle: Bundle,
  settings: ExclusionRuleSettings,
  facts: ReadonlyMap<string, ListenerFacts> = listenerFacts(bundle, settings.listening?.requirement),
): ExclusionRule[] {
  const rules: ExclusionRule[] = [];
  if (settings.fast) rules.push(minMedianResponseTime(settings.fast.minMedianResponseMs, facts));
  if (settings.listening) rules.push(maxListeningViolations(settings.listening.maxListeningViolations, facts));
  if (settings.hidden) rules.push(maxHiddenTime(settings.hidden.maxHiddenMs, facts));
  if (settings.screening) rules.push(requireScreening(facts));
  if (settings.correlation) rules.push(minListenerCorrelation(settings.correlation.minListenerCorrelation, ratingListenerCorrelations(bundle, settings.correlation.minListenerCorrelation)));
  // A registered kind's own rules (e.g. MUSHRA's post-screening) come after the study's.
  for (const [kind, answers] of bundleKinds(bundle)) rules.push(...(kind.rules?.(bundle, answers, bundle.study) ?? []));
  return rules;
}

/**
 * Each rule in force as a reason and a sentence, attention first (for dashboards and reports);
 * given the bundle, its registered kinds' own rules last, as exclusionRules applies them.
 */
export function describeRules(minAttention: number, settings: ExclusionRuleSettings, bundle?: Bundle): { reason: string; description: string }[] {
  const out = [{ reason: 'attention', description: `attention checks ≥ ${Math.round(minAttention * 100)}% right` }];
  if (settings.fast) out.push({ reason: 'fast', description: `median response ≥ ${settings.fast.minMedianResponseMs} ms` });
  if (settings.listening) {
    const need = settings.listening.requirement.mode === 'whole' ? 'the whole clip' : `${settings.listening.requirement.seconds} s of the clip`;
    out.push({ reason: 'listening', description: `≤ ${settings.listening.maxListeningViolations} trials answered before hearing ${need}` });
  }
  if (settings.hidden) out.push({ reason: 'hidden', description: `tab hidden ≤ ${settings.hidden.maxHiddenMs} ms in total during trials` });
  if (settings.screening) out.push({ reason: 'screening', description: 'headphone screening passed' });
  if (settings.correlation) {
    out.push({ reason: 'listener_correlation', description: `ratings correlate with the panel's mean at r ≥ ${settings.correlation.minListenerCorrelation}` });
  }
  if (bundle) for (const [kind] of bundleKinds(bundle)) out.push(...(kind.describeRules?.(bundle.study) ?? []));
  return out;
}

import { describe, expect, it } from 'vitest';
import { buildBundle, type BundleItem, type BundleVote } from './bundle';
import { describeRules, listenerFacts } from './exclusion';
import { analyzeStudy, resolveSettings, type StudySettings } from './study-settings';

const item = (id: string, attention = false): BundleItem =>
  ({ item_id: id, utterance_id: id, system_a: 'X', system_b: 'Y', attention, expected: attention ? 'a' : null });
const vote = (item_id: string, listener_id: string, chosen: 'a' | 'b', extra: BundleVote['extra']): BundleVote =>
  ({ item_id, listener_id, first: 'a', chosen, extra });
const columns = ['response_ms', 'heard_to_end', 'seconds_listened', 'hidden_ms'];

/** L1 careful; L2 fast; L3 breaks the listening rule twice; L4 hides the tab; L5 no facts at all. */
function study() {
  const items = [item('i1'), item('i2'), item('i3'), item('c1', true)];
  const f = (response_ms: number | null, heard_to_end: number | null, seconds_listened: number | null, hidden_ms: number | null) =>
    ({ response_ms, heard_to_end, seconds_listened, hidden_ms });
  const votes = [
    ...['i1', 'i2', 'i3', 'c1'].map((i) => vote(i, 'L1', 'a', f(3000, 1, 4, 0))),
    ...['i1', 'i2', 'i3', 'c1'].map((i, n) => vote(i, 'L2', 'b', f([200, 300, 5000, 400][n], 1, 4, 0))),
    ...['i1', 'i2', 'i3', 'c1'].map((i, n) => vote(i, 'L3', 'a', f(2000, n < 2 ? 0 : 1, n < 2 ? 1 : 4, 0))),
    ...['i1', 'i2', 'i3', 'c1'].map((i) => vote(i, 'L4', 'b', f(2000, 1, 4, 2500))),
    ...['i1', 'c1'].map((i) => vote(i, 'L5', 'a', f(null, null, null, null))),
  ];
  const listeners = ['L1', 'L2', 'L3', 'L4', 'L5'].map((id, n) => ({
    listener_id: id, started_at: '2026-01-31T10:00:00.000Z', completed_at: null, screening: n === 0 ? ('failed' as const) : n === 4 ? null : ('passed' as const),
  }));
  return { items, votes, judgeScores: [], extraVoteColumns: columns, listeners };
}

describe('exclusion facts come from the bundle', () => {
  const bundle = buildBundle(study());

  it('median response, violations of either listening requirement, total hidden time, screening', () => {
    const facts = listenerFacts(bundle);
    expect(facts.get('L2')).toEqual({ median_response_ms: 350, listening_violations: 0, hidden_ms: 0, screening: 'pass' });
    expect(facts.get('L3')!.listening_violations).toBe(2);
    expect(facts.get('L4')!.hidden_ms).toBe(10000);
    expect(facts.get('L1')!.screening).toBe('fail');
    expect(facts.get('L5')).toEqual({ median_response_ms: null, listening_violations: null, hidden_ms: null, screening: null });
    // "seconds" mode reads seconds_listened: L3 heard 1 s of two clips, under the 3 s asked.
    expect(listenerFacts(bundle, { mode: 'seconds', seconds: 3 }).get('L3')!.listening_violations).toBe(2);
    expect(listenerFacts(bundle, { mode: 'seconds', seconds: 0.5 }).get('L3')!.listening_violations).toBe(0);
  });

  it('runs every rule of study.json, counts "not run" per rule, and flags override it', () => {
    const settings: StudySettings = {
      study: 's', exportedAt: '2026-01-31T12:00:00.000Z', minAttention: 0.75, splitThreshold: 0.75, linkParameters: [],
      rules: {
        fast: { minMedianResponseMs: 1000 },
        listening: { maxListeningViolations: 1, requirement: { mode: 'whole' } },
        hidden: { maxHiddenMs: 5000 },
        screening: { excludeFailedScreening: true },
      },
    };
    const report = analyzeStudy(bundle, resolveSettings(settings));
    expect(report.listeners.excluded.map((e) => [e.listener_id, e.reasons])).toEqual([
      ['L1', ['screening']], ['L2', ['attention', 'fast']], ['L3', ['listening']], ['L4', ['attention', 'hidden']],
    ]);
    expect(report.listeners.excluded_by_reason).toEqual({ screening: 1, attention: 2, fast: 1, listening: 1, hidden: 1 });
    expect(report.listeners.not_run_by_reason).toEqual({ fast: 1, listening: 1, hidden: 1, screening: 1 });
    expect(report.listeners.retained).toBe(1);
    const loose = resolveSettings(settings, { minAttention: 0, rules: { hidden: { maxHiddenMs: 20000 } } });
    expect(analyzeStudy(bundle, loose).listeners.excluded_by_reason).toEqual({ screening: 1, fast: 1, listening: 1 });
    expect(describeRules(0.75, settings.rules).map((r) => r.reason)).toEqual(['attention', 'fast', 'listening', 'hidden', 'screening']);
  });

  it('without study.json only attention runs, at the default threshold', () => {
    const settings = resolveSettings(null);
    expect(settings).toEqual({ minAttention: 0.75, splitThreshold: 0.75, rules: {} });
    expect(analyzeStudy(bundle, settings).listeners.excluded_by_reason).toEqual({ attention: 2 });
  });
});

describe('a rating study', () => {
  // R1 careful; R2 answers in 200–400 ms and never hears a clip out; R3 gives no facts.
  const ratingItem = (id: string, attention = false): BundleItem =>
    ({ item_id: id, utterance_id: id, system_a: 'X', system_b: '', attention, expected: attention ? 1 : null });
  const rating = (item_id: string, listener_id: string, score: number, response_ms: number | null, heard_to_end: number | null) =>
    ({ item_id, listener_id, system: 'X', utterance_id: item_id, score, extra: { response_ms, heard_to_end, seconds_listened: null, hidden_ms: 0 } });
  const bundle = buildBundle({
    items: ['r1', 'r2', 'r3'].map((id) => ratingItem(id)),
    votes: [],
    judgeScores: [],
    extraVoteColumns: columns,
    ratings: [
      ...['r1', 'r2', 'r3'].map((i) => rating(i, 'R1', 4, 3000, 1)),
      ...['r1', 'r2', 'r3'].map((i, n) => rating(i, 'R2', 2, [200, 300, 400][n], 0)),
      rating('r1', 'R3', 3, null, null),
    ],
  });

  it('reads the exclusion facts from ratings.csv as a pair study reads them from votes.csv', () => {
    const facts = listenerFacts(bundle);
    expect(facts.get('R1')).toMatchObject({ median_response_ms: 3000, listening_violations: 0, hidden_ms: 0 });
    expect(facts.get('R2')).toMatchObject({ median_response_ms: 300, listening_violations: 3 });
    expect(facts.get('R3')).toMatchObject({ median_response_ms: null, listening_violations: null });
  });
});

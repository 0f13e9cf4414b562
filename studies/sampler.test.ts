import { describe, expect, it } from 'vitest';
import { keyedRandom } from '../analysis/random';
import { apportion, formatSamplerSummary, judgeScores, sampleItems, SamplingError, type ScoredCaption } from './sampler';

const SYSTEMS = Array.from({ length: 14 }, (_, i) => `sys${String(i).padStart(2, '0')}`);

/** A pool shaped like the reference study: every utterance captioned by every system, scores 1–10. */
function pool(utterances: number, seed = 7): ScoredCaption[] {
  const random = keyedRandom(seed);
  const out: ScoredCaption[] = [];
  for (let u = 0; u < utterances; u++) {
    for (const [i, system] of SYSTEMS.entries()) {
      out.push({ utteranceId: `metaset:u${u}`, system, score: Math.min(10, Math.max(1, 3 + i * 0.4 + random.next() * 3)) });
    }
  }
  return out;
}

const reference = { count: 100, minPerSystem: 10, stratify: true, buckets: 5, nearTieWeight: 2, maxPerUtterance: 1, seed: 1 };

describe('sampleItems', () => {
  it('covers every system at least k times with distinct utterances', () => {
    const { items, summary } = sampleItems(pool(300), SYSTEMS, reference);
    expect(items).toHaveLength(100);
    for (const s of SYSTEMS) expect(summary.perSystem[s]).toBeGreaterThanOrEqual(10);
    const counted = new Map<string, number>();
    for (const it of items) for (const s of [it.systemA, it.systemB]) counted.set(s, (counted.get(s) ?? 0) + 1);
    expect(Object.fromEntries(counted)).toEqual(summary.perSystem);
    expect(new Set(items.map((i) => i.utteranceId)).size).toBe(100);
    for (const it of items) expect(it.systemA).not.toBe(it.systemB);
  });

  it('stratifies over the |Δ| range and over-samples near-ties', () => {
    const { items, summary } = sampleItems(pool(400), SYSTEMS, reference);
    // weights 2:1:1:1:1 → 33.3/16.7/16.7/16.7/16.7, remainders to the largest when every bucket holds enough pairs
    expect(summary.buckets.map((b) => b.target)).toEqual([33, 17, 17, 17, 16]);
    for (const b of summary.buckets) expect(b.chosen).toBe(b.target);
    const absolute = items.map((i) => Math.abs(i.delta!));
    expect(Math.min(...absolute)).toBeLessThanOrEqual(summary.buckets[0].to!);
    expect(Math.max(...absolute)).toBeGreaterThan(summary.buckets[4].from!);
    for (const it of items) {
      const b = summary.buckets[it.bucket];
      expect(Math.abs(it.delta!)).toBeGreaterThanOrEqual(b.from! - 1e-9);
      expect(Math.abs(it.delta!)).toBeLessThanOrEqual(b.to! + 1e-9);
    }
  });

  it('caps how often an utterance repeats', () => {
    const { items } = sampleItems(pool(40), SYSTEMS, { ...reference, count: 100, minPerSystem: 5, maxPerUtterance: 3 });
    const per = new Map<string, number>();
    for (const it of items) per.set(it.utteranceId, (per.get(it.utteranceId) ?? 0) + 1);
    expect(Math.max(...per.values())).toBeLessThanOrEqual(3);
    const keys = items.map((i) => [i.utteranceId, ...[i.systemA, i.systemB].sort()].join('|'));
    expect(new Set(keys).size).toBe(items.length);
  });

  it('is deterministic for a seed and varies with it', () => {
    const a = sampleItems(pool(300), SYSTEMS, reference);
    const b = sampleItems(pool(300), SYSTEMS, reference);
    const c = sampleItems(pool(300), SYSTEMS, { ...reference, seed: 2 });
    expect(b).toEqual(a);
    expect(c.items).not.toEqual(a.items);
  });

  it('leaves unscored pairs out when stratifying, keeps them without a judge', () => {
    const captions = pool(30).map((c) => (c.system === 'sys00' ? { ...c, score: null } : c));
    expect(() => sampleItems(captions, SYSTEMS, { ...reference, count: 20, minPerSystem: 1 })).toThrow(/system sys00 can appear in at most 0 items/);
    const { summary } = sampleItems(captions, SYSTEMS, { ...reference, count: 20, minPerSystem: 1, stratify: false });
    expect(summary.perSystem.sys00).toBeGreaterThanOrEqual(1);
    expect(summary.buckets).toHaveLength(1);
  });

  it('never pairs two captions that read the same (a VoxReason counterfactual of a neutral clip)', () => {
    const captions = [
      { utteranceId: 'u1', system: 'gold', score: null, text: 'Neutral, to inform.' },
      { utteranceId: 'u1', system: 'cf', score: null, text: 'Neutral, to inform.' },
      { utteranceId: 'u2', system: 'gold', score: null, text: 'Angry, to confront.' },
      { utteranceId: 'u2', system: 'cf', score: null, text: 'Neutral, to confront.' },
    ];
    const options = { ...reference, count: 1, minPerSystem: 1, stratify: false, anchorSystem: 'gold' };
    const { items, summary } = sampleItems(captions, ['gold', 'cf'], options);
    expect(items.map((i) => i.utteranceId)).toEqual(['u2']);
    expect(summary).toMatchObject({ candidates: 1, identical: 1 });
    expect(formatSamplerSummary(summary)).toContain('1 with identical captions left out');
    expect(() => sampleItems(captions, ['gold', 'cf'], { ...options, count: 2 })).toThrow(/only 1 caption pairs exist .*\(1 more pair two captions that read the same\)/);
  });

  it('keeps only pairs with the anchor system when one is set', () => {
    const { items, summary } = sampleItems(pool(60), SYSTEMS, { ...reference, count: 39, minPerSystem: 3, anchorSystem: 'sys00' });
    for (const it of items) expect([it.systemA, it.systemB]).toContain('sys00');
    expect(summary.perSystem.sys00).toBe(39);
    for (const s of SYSTEMS) expect(summary.perSystem[s]).toBeGreaterThanOrEqual(3);
  });

  it('refuses impossible requests with the reason', () => {
    const small = pool(3);
    const total = 3 * ((14 * 13) / 2);
    expect(() => sampleItems(small, SYSTEMS, { ...reference, count: total + 1, minPerSystem: 0, maxPerUtterance: 1000 })).toThrow(
      new RegExp(`asked for ${total + 1} items but only ${total} caption pairs`),
    );
    expect(() => sampleItems(pool(300), SYSTEMS, { ...reference, count: 20, minPerSystem: 3 })).toThrow(/minPerSystem 3 is impossible/);
    expect(() => sampleItems(pool(50), SYSTEMS, { ...reference, count: 60, minPerSystem: 1 })).toThrow(/at most 50 can be drawn from 50 utterances/);
    expect(() => sampleItems(pool(50), SYSTEMS, { ...reference, count: 60, minPerSystem: 1 })).toThrow(SamplingError);
  });

  it('prints a summary per system and bucket', () => {
    const text = formatSamplerSummary(sampleItems(pool(300), SYSTEMS, reference).summary);
    expect(text).toMatch(/sys13 +\d+/);
    expect(text).toMatch(/B1 \[[\d.]+, [\d.]+\] +chosen 33 \(target 33/);
  });
});

describe('apportion', () => {
  it('splits by weight with largest remainders and respects caps', () => {
    expect(apportion(10, [2, 1, 1], [100, 100, 100])).toEqual([5, 3, 2]);
    expect(apportion(10, [2, 1, 1], [1, 100, 100])).toEqual([1, 5, 4]);
    expect(apportion(10, [1, 1], [3, 4])).toEqual([3, 4]);
  });
});

describe('judgeScores', () => {
  const rows = [
    { utteranceId: 'u', system: 's', judge: 'j1', score: 2 },
    { utteranceId: 'u', system: 's', judge: 'j1', score: 4 },
    { utteranceId: 'u', system: 's', judge: 'j2', score: 9 },
  ];
  it('averages all judge×run rows for the ensemble and runs for one judge', () => {
    expect(judgeScores(rows, 'ensemble').get('u\u0000s')).toBe(5);
    expect(judgeScores(rows, 'j1').get('u\u0000s')).toBe(3);
    expect(judgeScores(rows, 'j3').size).toBe(0);
  });
});

describe('sampleItems orientation', () => {
  it('makes each system a in half of its items (±1), anchored designs included', () => {
    for (const options of [reference, { ...reference, anchorSystem: 'sys00', minPerSystem: 5, count: 70 }]) {
      const { items, summary } = sampleItems(pool(300), SYSTEMS, options);
      const asA = new Map<string, number>();
      for (const it of items) asA.set(it.systemA, (asA.get(it.systemA) ?? 0) + 1);
      for (const [system, n] of Object.entries(summary.perSystem)) expect(Math.abs(2 * (asA.get(system) ?? 0) - n), system).toBeLessThanOrEqual(1);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { btPosterior, choosePairItem, comparisonGain, pairKey, type PairCandidate } from './bt-uncertainty';
import { seededRandom } from '../../analysis/random';

const K = 4;
const systems = ['s0', 's1', 's2', 's3'];
/** A table where s0 > s1 > s2 > s3 by wide margins except s1 ≈ s2. */
function wins(): Float64Array {
  const w = new Float64Array(K * K);
  const set = (i: number, j: number, a: number, b: number) => {
    w[i * K + j] = a;
    w[j * K + i] = b;
  };
  set(0, 1, 18, 2);
  set(0, 2, 19, 1);
  set(0, 3, 20, 0);
  set(1, 2, 10, 10);
  set(1, 3, 18, 2);
  set(2, 3, 17, 3);
  return w;
}

const trace = (cov: Float64Array) => Array.from({ length: K }, (_, s) => cov[s * K + s]).reduce((x, y) => x + y, 0);

describe('comparisonGain', () => {
  it('is the drop of Σ Var(θ) that one more comparison brings (Sherman–Morrison against refitting the information)', () => {
    const table = wins();
    const { theta, cov } = btPosterior(table, K, 0.1);
    for (const [i, j] of [[0, 1], [1, 2], [0, 3]] as const) {
      // One more comparison of (i, j) at θ̂: its n grows by one, its p(1 − p) unchanged.
      const info = new Float64Array(K * K);
      for (let a = 0; a < K; a++) {
        for (let b = a + 1; b < K; b++) {
          const n = table[a * K + b] + table[b * K + a] + (a === i && b === j ? 1 : 0);
          const q = 1 / (1 + Math.exp(-(theta[a] - theta[b])));
          const w = n * q * (1 - q);
          info[a * K + b] -= w;
          info[b * K + a] -= w;
          info[a * K + a] += w;
          info[b * K + b] += w;
        }
      }
      for (let a = 0; a < K; a++) info[a * K + a] += 0.1;
      // The same covariance recipe as btPosterior, on the enlarged information.
      const shifted = info.map((x) => x + 1 / K);
      const inverse = invert(shifted, K).map((x) => x - 1 / (K * 1.1));
      expect(comparisonGain(theta, cov, K, i, j)).toBeCloseTo(trace(cov) - trace(inverse), 10);
    }
  });

  it('is largest for the least settled system against its nearest rival, smallest for a foregone pair', () => {
    // s0 (20 comparisons per rival, all far) is the least settled; s1 ≈ s2 have met 20 times already.
    const { theta, cov } = btPosterior(wins(), K, 0.1);
    const gains = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]].map(([i, j]) => comparisonGain(theta, cov, K, i, j));
    expect(gains.indexOf(Math.max(...gains))).toBe(0);
    expect(gains.indexOf(Math.min(...gains))).toBe(2);
  });
});

describe('choosePairItem', () => {
  const candidates: PairCandidate[] = [
    { itemId: 'far', systems: ['s0', 's3'], load: 0 },
    { itemId: 'top-busy', systems: ['s0', 's1'], load: 5 },
    { itemId: 'top-idle', systems: ['s1', 's0'], load: 1 },
    { itemId: 'middle', systems: ['s1', 's2'], load: 0 },
  ];
  const base = { systems, wins: wins(), listenerPairs: new Map<string, number>(), maxPairRepeats: 2, random: seededRandom(1) };

  it('takes the most useful pair, and of its items the least voted', () => {
    expect(choosePairItem({ ...base, candidates })).toBe('top-idle');
  });

  it('never repeats a pair for a listener more than the cap', () => {
    const listenerPairs = new Map([[pairKey('s0', 's1'), 2]]);
    expect(choosePairItem({ ...base, candidates, listenerPairs })).toBe('middle');
  });

  it('returns null when nothing is left', () => {
    expect(choosePairItem({ ...base, candidates: [] })).toBeNull();
  });

  it('starts a study without votes by comparing systems that have none (every system gets connected)', () => {
    const empty = new Float64Array(K * K);
    empty[0 * K + 1] = 5;
    empty[1 * K + 0] = 5;
    const fresh: PairCandidate[] = [
      { itemId: 'known', systems: ['s0', 's1'], load: 0 },
      { itemId: 'new', systems: ['s2', 's3'], load: 0 },
    ];
    expect(choosePairItem({ ...base, wins: empty, candidates: fresh })).toBe('new');
  });
});

/** Gauss–Jordan inverse of a small symmetric positive definite matrix (the test's own, not the module's). */
function invert(a: Float64Array, k: number): Float64Array {
  const m = Array.from({ length: k }, (_, i) => [...Array.from(a.slice(i * k, i * k + k)), ...Array.from({ length: k }, (_, j) => (i === j ? 1 : 0))]);
  for (let c = 0; c < k; c++) {
    const pivot = m[c][c];
    for (let j = 0; j < 2 * k; j++) m[c][j] /= pivot;
    for (let r = 0; r < k; r++) {
      if (r === c) continue;
      const f = m[r][c];
      for (let j = 0; j < 2 * k; j++) m[r][j] -= f * m[c][j];
    }
  }
  return Float64Array.from(m.flatMap((row) => row.slice(k)));
}

describe('pending comparisons', () => {
  it('count as information, so the next listener is sent elsewhere', () => {
    const candidates: PairCandidate[] = [
      { itemId: 'top', systems: ['s0', 's1'], load: 0 },
      { itemId: 'bottom', systems: ['s2', 's3'], load: 0 },
    ];
    const base = { systems, wins: wins(), candidates, listenerPairs: new Map<string, number>(), maxPairRepeats: 2, random: seededRandom(2) };
    expect(choosePairItem(base)).toBe('top');
    const pending = new Float64Array(K * K);
    pending[0 * K + 1] = 30;
    expect(choosePairItem({ ...base, pending })).toBe('bottom');
  });
});

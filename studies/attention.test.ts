import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { describe as describeVoice, generateAttentionChecks, invertInText, orderTrials, salientAttributes } from './attention';
import { keyedRandom } from '../analysis/random';

describe('salientAttributes', () => {
  it('reads RAVDESS, VCTK and MetaSet label shapes', () => {
    expect(salientAttributes({ emotion: 'calm', intensity: 'normal', sex: 'male', actor: 1 })).toEqual({ gender: 'male', emotion: 'calm' });
    expect(salientAttributes({ ID: 'p225', AGE: 23, GENDER: 'F', ACCENTS: 'English', REGION: 'Southern England' })).toEqual({
      gender: 'female',
      accent: 'english',
    });
    expect(
      salientAttributes({ gender: 'female', accent: 'american', speaking_rate: 'measured speed', situational_tags: ['calm', 'passive'] }),
    ).toEqual({ gender: 'female', accent: 'american', rate: 'measured', emotion: 'calm' });
    expect(salientAttributes({ accent: 'unknown', speaking_rate: 'slow speaking rate' })).toEqual({ rate: 'slow' });
  });
});

describe('invertInText', () => {
  const caption = 'A female American voice speaks slowly; her tone is calm.';
  it('inverts one attribute and keeps the rest of the text', () => {
    expect(invertInText(caption, 'gender', 'female')).toBe('A male American voice speaks slowly; his tone is calm.');
    expect(invertInText(caption, 'accent', 'american')).toBe('A female Scottish voice speaks slowly; her tone is calm.');
    expect(invertInText(caption, 'rate', 'slow')).toBe('A female American voice speaks quickly; her tone is calm.');
    expect(invertInText(caption, 'emotion', 'calm')).toBe('A female American voice speaks slowly; her tone is angry.');
  });
  it('returns null when the text does not mention the attribute', () => {
    expect(invertInText('A voice.', 'gender', 'male')).toBeNull();
  });
});

describe('generateAttentionChecks', () => {
  const candidates = [
    { utteranceId: 'ravdess:03-01-05-01-01-01-02', labels: { emotion: 'angry', sex: 'female' }, description: null },
    { utteranceId: 'vctk:p225_001', labels: { GENDER: 'F', ACCENTS: 'English' }, description: null },
    { utteranceId: 'metaset:ears/p026/a.wav', labels: { gender: 'female', speaking_rate: 'fast speaking rate' }, description: 'She talks fast.' },
    { utteranceId: 'demo:x', labels: {}, description: 'no labels' },
  ];

  it('pairs each true description with an inverted copy, using distinct utterances', () => {
    const checks = generateAttentionChecks(candidates, { count: 3, attributes: ['gender', 'emotion', 'accent', 'rate'] }, keyedRandom(1));
    expect(new Set(checks.map((c) => c.utteranceId)).size).toBe(3);
    expect(checks.map((c) => c.utteranceId)).not.toContain('demo:x');
    for (const c of checks) expect(c.wrong).not.toBe(c.correct);
    const ravdess = checks.find((c) => c.utteranceId.startsWith('ravdess'))!;
    if (ravdess.attribute === 'emotion') expect([ravdess.correct, ravdess.wrong]).toEqual(['A female speaker talks in an angry tone.', 'A female speaker talks in a calm tone.']);
    else expect(ravdess.wrong).toBe('A male speaker talks in an angry tone.');
  });

  it('fails clearly when labels run out', () => {
    expect(() => generateAttentionChecks(candidates, { count: 4, attributes: ['gender'] }, keyedRandom(1))).toThrow(/only 3 of 4 attention checks/);
  });

  it('never shows a pair caption: a description the study also pairs is rendered from labels instead', () => {
    const metaset = [candidates[2]];
    const plain = generateAttentionChecks(metaset, { count: 1, attributes: ['gender'] }, keyedRandom(1));
    expect(plain[0]).toMatchObject({ correct: 'She talks fast.', wrong: 'He talks fast.' });
    for (const captions of [new Set(['She talks fast.']), new Set(['He talks fast.'])]) {
      const [check] = generateAttentionChecks(metaset, { count: 1, attributes: ['gender'], captions }, keyedRandom(1));
      expect(check).toMatchObject({ correct: 'A female speaker talks at a fast pace.', wrong: 'A male speaker talks at a fast pace.' });
    }
    // When even the rendered wording is a pair caption, that utterance is not used at all.
    const taken = new Set(['She talks fast.', 'A female speaker talks at a fast pace.']);
    expect(() => generateAttentionChecks(metaset, { count: 1, attributes: ['gender'], captions: taken }, keyedRandom(1))).toThrow(/only 0 of 1/);
  });

  it('renders from labels when the description lacks the attribute', () => {
    expect(describeVoice({ gender: 'male', accent: 'irish', rate: 'slow' })).toBe('A male speaker with an irish accent talks at a slow pace.');
  });
});

describe('orderTrials', () => {
  it('puts practice first and spreads attention checks: not first, not last, never adjacent', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 60 }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 3 }), fc.integer(), (n, m, p, seed) => {
        fc.pre(m <= n - 1);
        const main = Array.from({ length: n }, (_, i) => `i${i}`);
        const attention = Array.from({ length: m }, (_, i) => `A${i}`);
        const practice = Array.from({ length: p }, (_, i) => `p${i}`);
        const order = orderTrials({ practice, main, attention }, keyedRandom(seed));
        expect(order.slice(0, p)).toEqual(practice);
        const rest = order.slice(p);
        expect([...rest].sort()).toEqual([...main, ...attention].sort());
        const isCheck = rest.map((t) => t.startsWith('A'));
        if (m > 0) {
          expect(isCheck[0]).toBe(false);
          expect(isCheck[rest.length - 1]).toBe(false);
        }
        for (let i = 1; i < rest.length; i++) expect(isCheck[i] && isCheck[i - 1]).toBe(false);
      }),
    );
  });

  it('spreads checks over the session (one per stretch)', () => {
    const main = Array.from({ length: 100 }, (_, i) => `i${i}`);
    const attention = Array.from({ length: 8 }, (_, i) => `A${i}`);
    const order = orderTrials({ practice: [], main, attention }, keyedRandom(3));
    const positions = order.flatMap((t, i) => (t.startsWith('A') ? [i] : []));
    positions.forEach((pos, j) => {
      expect(pos).toBeGreaterThanOrEqual(Math.floor((j * 99) / 8) + j);
      expect(pos).toBeLessThanOrEqual(Math.floor(((j + 1) * 99) / 8) + j + 1);
    });
  });

  it('is deterministic per seed and shuffles per listener', () => {
    const parts = { practice: [], main: Array.from({ length: 30 }, (_, i) => i), attention: [100, 101] };
    expect(orderTrials(parts, keyedRandom(1, 'L1'))).toEqual(orderTrials(parts, keyedRandom(1, 'L1')));
    expect(orderTrials(parts, keyedRandom(1, 'L1'))).not.toEqual(orderTrials(parts, keyedRandom(1, 'L2')));
  });

  it('refuses more checks than gaps', () => {
    expect(() => orderTrials({ practice: [], main: ['x', 'y'], attention: ['A', 'B'] }, keyedRandom(1))).toThrow(/need at least 3 other trials/);
  });
});

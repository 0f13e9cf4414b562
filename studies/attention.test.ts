import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateAttentionChecks, orderTrials, salientAttributes, statedValues } from './attention';
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

describe('statedValues', () => {
  it('reads the values a caption states, by whole words', () => {
    expect(statedValues('A woman speaks; her tone is calm.', 'gender')).toEqual(new Set(['female']));
    expect(statedValues('A male voice, speaking quickly.', 'gender')).toEqual(new Set(['male']));
    expect(statedValues('A male voice, speaking quickly.', 'rate')).toEqual(new Set(['fast']));
    expect(statedValues('Angry and forceful, to confront.', 'emotion')).toEqual(new Set(['angry']));
    expect(statedValues('A Scottish accent.', 'accent', new Set(['scottish', 'english']))).toEqual(new Set(['scottish']));
    expect(statedValues('Someone says it.', 'gender')).toEqual(new Set());
  });
});

describe('generateAttentionChecks', () => {
  const clip = (id: string, gender: string, captions: [string, string][]) => ({
    utteranceId: id,
    labels: { gender },
    captions: captions.map(([system, text]) => ({ system, text })),
  });
  const candidates = [
    clip('m:f1', 'female', [['s1', 'A woman speaks softly.'], ['s2', 'A calm female voice.']]),
    clip('m:m1', 'male', [['s1', 'A man speaks loudly.'], ['s2', 'A deep male voice.']]),
    clip('m:f2', 'female', [['s1', 'She talks fast.'], ['s2', 'A male voice, fast.']]),
    clip('m:m2', 'male', [['s1', 'He mutters.'], ['s2', 'A gruff man.']]),
    clip('m:x', 'female', [['s1', 'Someone talks.']]),
  ];

  it('pairs a caption stating the clip\'s label with a real caption stating the other value; every text once', () => {
    const checks = generateAttentionChecks(candidates, { count: 3, attributes: ['gender'] }, keyedRandom(1));
    expect(new Set(checks.map((c) => c.utteranceId)).size).toBe(3);
    const texts = checks.flatMap((c) => [c.correct, c.wrong]);
    expect(new Set(texts).size).toBe(6);
    const all = new Map(candidates.flatMap((c) => c.captions.map((x) => [x.text, c] as const)));
    for (const check of checks) {
      const own = candidates.find((c) => c.utteranceId === check.utteranceId)!;
      expect(statedValues(check.correct!, 'gender')).toEqual(new Set([own.labels.gender]));
      expect(statedValues(check.wrong, 'gender')).not.toContain(own.labels.gender);
      // Both sides are real captions; the wrong one is the donor's.
      expect(all.get(check.correct!)!.utteranceId).toBe(check.utteranceId);
      expect(all.get(check.wrong)!.utteranceId).toBe(check.donorUtteranceId);
    }
    // m:f2's own s2 caption gets its gender wrong: that check reads exactly like an item (one clip, two systems).
    const f2 = checks.find((c) => c.utteranceId === 'm:f2');
    if (f2) expect(f2).toMatchObject({ correct: 'She talks fast.', wrong: 'A male voice, fast.', donorUtteranceId: 'm:f2' });
  });

  it('a one-sided check (rating) needs no correct caption', () => {
    const [check] = generateAttentionChecks(candidates.slice(0, 2), { count: 1, attributes: ['gender'], sides: 1 }, keyedRandom(2));
    expect(check.correct).toBeNull();
    expect(check.donorUtteranceId).not.toBe(check.utteranceId);
  });

  it('never shows a text shown elsewhere, and fails clearly when captions run out', () => {
    expect(() => generateAttentionChecks(candidates, { count: 5, attributes: ['gender'] }, keyedRandom(1))).toThrow(/only [234] of 5 attention checks could be generated/);
    const elsewhere = new Set(['A man speaks loudly.', 'A deep male voice.', 'A male voice, fast.', 'He mutters.', 'A gruff man.']);
    expect(() => generateAttentionChecks(candidates, { count: 1, attributes: ['gender'], elsewhere }, keyedRandom(1))).toThrow(/only 0 of 1/);
  });
});

describe('generateAttentionChecks: an item\'s text first', () => {
  // Four systems; s2 hears the gender wrong on the w-clips. Every other caption is right.
  const clip = (id: string, gender: 'female' | 'male', errs: boolean) => {
    const other = gender === 'female' ? 'male' : 'female';
    return {
      utteranceId: id,
      labels: { gender },
      captions: [
        { system: 's0', text: `A ${gender} voice, clip ${id}.` },
        { system: 's1', text: `The speaker is ${gender}, recording ${id}, in a calm way.` },
        { system: 's2', text: `Sounds ${errs ? other : gender}, take ${id}.` },
      ],
    };
  };
  const corpus = [
    ...['w1', 'w2', 'w3', 'w4', 'w5', 'w6'].map((id, n) => clip(id, n % 2 ? 'male' : 'female', true)),
    ...Array.from({ length: 14 }, (_, n) => clip(`r${n}`, n % 2 ? 'male' : 'female', false)),
  ];

  it('pairs one clip\'s captions that disagree, shown with that clip or with one the erring side is right for, the right side by each system about equally', () => {
    const checks = generateAttentionChecks(corpus, { count: 6, attributes: ['gender'] }, keyedRandom(4));
    expect(checks.every((c) => c.form === 'item')).toBe(true);
    const byText = new Map(corpus.flatMap((c) => c.captions.map((x) => [x.text, { clip: c, system: x.system }] as const)));
    let erringRight = 0;
    for (const check of checks) {
      const [right, wrong] = [byText.get(check.correct!)!, byText.get(check.wrong)!];
      // Both sides are the donor clip's, by two systems: exactly an item's text.
      expect(right.clip.utteranceId).toBe(check.donorUtteranceId);
      expect(wrong.clip.utteranceId).toBe(check.donorUtteranceId);
      expect(right.system).not.toBe(wrong.system);
      const shown = corpus.find((c) => c.utteranceId === check.utteranceId)!;
      expect(statedValues(check.correct!, 'gender')).toEqual(new Set([shown.labels.gender]));
      expect(statedValues(check.wrong, 'gender')).not.toContain(shown.labels.gender);
      if (right.system === 's2') erringRight++;
    }
    // The system that errs is the right side about as often as the wrong one: neither its style nor a
    // "trust the better system" guess names the right side.
    expect(erringRight).toBeGreaterThanOrEqual(2);
    expect(erringRight).toBeLessThanOrEqual(4);
  });

  it('keeps within the clips a sample can spare, or generates none', () => {
    const within = new Set(corpus.map((c) => c.utteranceId));
    for (const seed of [1, 2, 3]) {
      const checks = generateAttentionChecks(corpus, { count: 4, attributes: ['gender'], budget: { within, clips: 4 } }, keyedRandom(seed));
      expect(new Set(checks.flatMap((c) => [c.utteranceId, c.donorUtteranceId])).size).toBeLessThanOrEqual(4);
    }
    expect(() => generateAttentionChecks(corpus, { count: 4, attributes: ['gender'], budget: { within, clips: 3 } }, keyedRandom(1))).toThrow(/only \d of 4 attention checks could be generated/);
  });

  it('falls back to another clip\'s caption, the one likest what that system says of the shown clip', () => {
    const right = corpus.filter((c) => c.utteranceId.startsWith('r'));
    const [check] = generateAttentionChecks(right, { count: 1, attributes: ['gender'] }, keyedRandom(5));
    expect(check.form).toBe('cross');
    const donor = right.find((c) => c.utteranceId === check.donorUtteranceId)!;
    expect(donor.labels.gender).not.toBe(right.find((c) => c.utteranceId === check.utteranceId)!.labels.gender);
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

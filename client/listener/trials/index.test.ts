import { describe, expect, it } from 'vitest';
import type { Trial } from '../../../contract/listener';
import { trialKind } from '.';
import { PairTrial } from '../../../trials/pair/PairTrial';
import { RatingTrial } from '../../../trials/rating/RatingTrial';

const clip = { id: 'c1', audioUrl: '/media/c1', peaksUrl: '/media/c1.peaks', duration: 2 };
const listened = { playCount: 1, secondsListened: 2, heardToEnd: true, hiddenMs: 0, responseMs: 2500 };
const pair = (kind: 'pair' | 'practice'): Trial => ({ position: 0, kind, clip, captions: ['one', 'two'] });
const rating = (practice: boolean): Trial => ({ position: 0, kind: 'rating', practice, clip, caption: null });

describe('the trial kind registry', () => {
  it('gives each kind its component', () => {
    expect(trialKind(pair('pair')).component).toBe(PairTrial);
    expect(trialKind(pair('practice')).component).toBe(PairTrial);
    expect(trialKind(rating(false)).component).toBe(RatingTrial);
  });

  it('knows practice trials: a pair by its kind, a rating by its flag', () => {
    expect([pair('pair'), pair('practice'), rating(false), rating(true)].map((t) => trialKind(t).practice(t))).toEqual([false, true, false, true]);
  });

  it("checks a practice answer as the server does: a pair's caption a/b, a rating's score with the intended one", () => {
    const p = trialKind(pair('practice'));
    expect(p.check({ choice: 1, ...listened }, 'a')).toEqual({ correct: true });
    expect(p.check({ choice: 1, ...listened }, 'b')).toEqual({ correct: false });
    const r = trialKind(rating(true));
    expect(r.check({ score: 4, ...listened }, '4')).toEqual({ correct: true, score: 4 });
    expect(r.check({ score: 2, ...listened }, '5')).toEqual({ correct: false, score: 5 });
  });
});

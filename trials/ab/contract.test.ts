import { describe, expect, it } from 'vitest';
import { AbAnswer, AbSettings, AbStored, AbTrial, StimulusListening } from './contract';

const clip = (id: string) => ({ id, audioUrl: `/c/${id}`, peaksUrl: `/p/${id}`, duration: 1.5 });

describe('A/B shapes (ab-contract.md)', () => {
  it('study.yaml trial: { kind: ab } offers no tie unless asked, and refuses a misspelt key', () => {
    expect(AbSettings.parse({ kind: 'ab' })).toEqual({ kind: 'ab', tie: false });
    expect(AbSettings.parse({ kind: 'ab', tie: true }).tie).toBe(true);
    expect(AbSettings.safeParse({ kind: 'ab', ties: true }).success).toBe(false);
  });

  it('a trial carries exactly two stimuli, A first', () => {
    const trial = { position: 0, kind: 'ab', practice: false, tie: false, stimuli: [clip('x'), clip('y')] };
    expect(AbTrial.parse(trial).stimuli.map((s) => s.id)).toEqual(['x', 'y']);
    expect(AbTrial.safeParse({ ...trial, stimuli: [clip('x')] }).success).toBe(false);
    expect(AbTrial.safeParse({ ...trial, stimuli: [clip('x'), clip('y'), clip('z')] }).success).toBe(false);
  });

  it('a vote says A, B or tie; listening per stimulus is whole plays and non-negative seconds; the stored document is in item terms', () => {
    expect(AbAnswer.safeParse({ preference: 'tie' }).success).toBe(true);
    expect(AbAnswer.safeParse({ preference: 'a' }).success).toBe(false);
    expect(StimulusListening.safeParse({ plays: 1.5, secondsHeard: 1, heardToEnd: true }).success).toBe(false);
    expect(StimulusListening.safeParse({ plays: 1, secondsHeard: -1, heardToEnd: true }).success).toBe(false);
    expect(AbStored.parse({ first: 'b', chosen: 'tie' })).toEqual({ first: 'b', chosen: 'tie' });
    expect(AbStored.safeParse({ first: 'A', chosen: 'a' }).success).toBe(false);
  });
});

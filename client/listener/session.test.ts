import { describe, expect, it } from 'vitest';
import type { SessionState, Trial } from '../../contract/listener';
import { resolvePosition } from './session';

const trial = (position: number): Trial => ({
  position,
  kind: 'pair',
  clip: { id: `c${position}`, audioUrl: '/a', peaksUrl: '/p', duration: 1 },
  captions: ['x', 'y'],
});
const state = (position: number | null, done: number, total = 10): SessionState => ({
  study: 's',
  progress: { done, total },
  trial: position === null ? null : trial(position),
  upcoming: [],
  completion: position === null ? { code: 'C', redirectUrl: null } : null,
  status: 'open',
  left: false,
  stopped: null,
  questionsDue: { before: false, after: false },
  screening: { done: [], usedUp: [], failed: false },
});

describe('resolvePosition', () => {
  it('follows the server forward (another tab answered) but never goes back', () => {
    expect(resolvePosition(2, state(5, 5), [], false)).toBe(5);
    expect(resolvePosition(6, state(5, 5), [], false)).toBe(6);
  });

  it('stays past answers still in the outbox', () => {
    expect(resolvePosition(0, state(3, 3), [3, 4], false)).toBe(5);
  });

  it('goes to the end when the server reports completion', () => {
    expect(resolvePosition(8, state(null, 10), [], false)).toBe(10);
  });

  it('holds a trial answered here that is still on screen (practice feedback)', () => {
    expect(resolvePosition(0, state(1, 1), [], true)).toBe(0);
  });
});

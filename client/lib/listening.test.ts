import { describe, expect, it } from 'vitest';
import { ListeningTracker } from './listening';

function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

function playThrough(tr: ListeningTracker, from: number, to: number, step = 0.25) {
  tr.play(from);
  for (let x = from + step; x < to; x += step) tr.time(x);
  tr.time(to);
}

describe('ListeningTracker', () => {
  it('counts a full play-through as the whole clip, heard to the end', () => {
    const c = clock();
    const tr = new ListeningTracker(3, c.now);
    expect(tr.satisfies({ mode: 'whole' })).toBe(false);
    c.advance(100);
    playThrough(tr, 0, 3);
    tr.ended();
    c.advance(3000);
    expect(tr.satisfies({ mode: 'whole' })).toBe(true);
    expect(tr.record()).toEqual({ playCount: 1, secondsListened: 3, heardToEnd: true, hiddenMs: 0, responseMs: 3000 });
  });

  it('does not count a seek as listening, so jumping to the end does not satisfy "whole"', () => {
    const tr = new ListeningTracker(4, clock().now);
    tr.play(0);
    tr.time(0.5);
    tr.time(3.8); // seek
    tr.ended();
    expect(tr.record().secondsListened).toBeCloseTo(0.7, 6);
    expect(tr.record().heardToEnd).toBe(true);
    expect(tr.satisfies({ mode: 'whole' })).toBe(false);
  });

  it('meets a seconds requirement once that much was heard, across several plays', () => {
    const tr = new ListeningTracker(10, clock().now);
    playThrough(tr, 0, 2);
    tr.pause();
    expect(tr.satisfies({ mode: 'seconds', seconds: 3 })).toBe(false);
    playThrough(tr, 5, 6);
    expect(tr.satisfies({ mode: 'seconds', seconds: 3 })).toBe(true);
    expect(tr.record().playCount).toBe(2);
  });

  it('asks for the whole clip when the seconds requirement is longer than the clip', () => {
    const tr = new ListeningTracker(2, clock().now);
    playThrough(tr, 0, 1.5);
    expect(tr.satisfies({ mode: 'seconds', seconds: 5 })).toBe(false);
    playThrough(tr, 1.5, 2);
    tr.ended();
    expect(tr.satisfies({ mode: 'seconds', seconds: 5 })).toBe(true);
  });

  it('adds up the time the tab was hidden, including a hide still in progress', () => {
    const c = clock();
    const tr = new ListeningTracker(2, c.now);
    tr.visibility(true);
    c.advance(1500);
    tr.visibility(false);
    c.advance(100);
    tr.visibility(true);
    c.advance(400);
    expect(tr.record().hiddenMs).toBe(1900);
    expect(tr.record().responseMs).toBe(0);
  });
});

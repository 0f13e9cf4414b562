import { describe, expect, it } from 'vitest';
import { UsedVoteIds } from '../store/used-vote-ids';

/**
 * The vote writer's memory of the vote ids each listener used (server/store/used-vote-ids.ts):
 * the database is read once per listener instead of once per vote, and what it remembers is only
 * ever a hint that the database confirms before a vote is refused.
 */
function store() {
  const ids = new Map<string, string[]>();
  const reads = { all: 0, one: 0 };
  return {
    ids,
    reads,
    put: (listener: string, id: string) => ids.set(listener, [...(ids.get(listener) ?? []), id]),
    cache: (maxIds?: number) =>
      new UsedVoteIds(
        (listener) => (reads.all++, [...(ids.get(listener) ?? [])]),
        (listener, id) => (reads.one++, (ids.get(listener) ?? []).includes(id)),
        maxIds,
      ),
  };
}

describe('UsedVoteIds', () => {
  it("reads a listener's stored ids once, not once per vote", () => {
    const db = store();
    db.put('l1', 'old');
    const used = db.cache();
    for (let i = 0; i < 100; i++) {
      expect(used.used('l1', `v${i}`)).toBe(false);
      db.put('l1', `v${i}`);
      used.add('l1', `v${i}`);
    }
    expect(db.reads).toEqual({ all: 1, one: 0 });
    // A reused id, stored before the listener was remembered or since, is confirmed and refused.
    expect(used.used('l1', 'old')).toBe(true);
    expect(used.used('l1', 'v42')).toBe(true);
    expect(db.reads).toEqual({ all: 1, one: 2 });
  });

  it('lets an id through again when the vote that used it was rolled back', () => {
    const db = store();
    const used = db.cache();
    expect(used.used('l1', 'v1')).toBe(false);
    used.add('l1', 'v1'); // stored in a transaction that then failed to commit: not in the database
    expect(used.used('l1', 'v1')).toBe(false);
    expect(db.reads.one).toBe(1);
    // Forgotten as a hint: the next question about it does not ask the database again.
    expect(used.used('l1', 'v1')).toBe(false);
    expect(db.reads.one).toBe(1);
  });

  it('forgets the listeners asked about least recently past its size, and reads them again', () => {
    const db = store();
    const used = db.cache(10);
    for (const listener of ['a', 'b', 'c']) {
      for (let i = 0; i < 4; i++) {
        db.put(listener, `${listener}${i}`);
        used.add(listener, `${listener}${i}`);
      }
    }
    expect(db.reads.all).toBe(3);
    // 12 ids > 10: 'a' was forgotten when 'c' came; 'b' and 'c' are still known.
    expect(used.used('c', 'c1')).toBe(true);
    expect(used.used('b', 'b1')).toBe(true);
    expect(db.reads.all).toBe(3);
    expect(used.used('a', 'a1')).toBe(true);
    expect(db.reads.all).toBe(4);
  });
});

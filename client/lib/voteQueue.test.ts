import { describe, expect, it } from 'vitest';
import type { VoteAck, VoteBody } from '../../contract/listener';
import { HttpError } from './api';
import { backoffDelay, classifyFailure, VoteQueue, type QueuedVote, type VoteStore } from './voteQueue';

function memoryStore(): VoteStore & { rejected: Array<{ vote: QueuedVote; reason: string }>; list: QueuedVote[] } {
  const s = {
    list: [] as QueuedVote[],
    rejected: [] as Array<{ vote: QueuedVote; reason: string }>,
    read: () => structuredClone(s.list),
    write: (v: QueuedVote[]) => {
      s.list = structuredClone(v);
    },
    reject: (vote: QueuedVote, reason: string) => {
      s.rejected.push({ vote, reason });
    },
  };
  return s;
}

let n = 0;
function vote(position: number, choice: 1 | 2 = 1, token = 't1'): QueuedVote {
  const body: VoteBody = {
    voteId: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    position,
    choice,
    playCount: 1,
    secondsListened: 2,
    heardToEnd: true,
    hiddenMs: 0,
    responseMs: 900,
    clientTs: new Date().toISOString(),
  };
  return { token, body };
}

function ackFor(v: QueuedVote): VoteAck {
  return { voteId: v.body.voteId, position: v.body.position, serverTs: 'now', feedback: null };
}

const fast = { baseDelayMs: 1, maxDelayMs: 4 };

describe('classifyFailure', () => {
  it('treats already_answered as recorded, client errors as final, the rest as retryable', () => {
    expect(classifyFailure(new HttpError(409, { error: 'already_answered', message: 'x' }))).toBe('recorded');
    expect(classifyFailure(new HttpError(409, { error: 'not_assigned', message: 'x' }))).toBe('rejected');
    expect(classifyFailure(new HttpError(400, { error: 'bad_request', message: 'x', field: 'choice' }))).toBe('rejected');
    expect(classifyFailure(new HttpError(401, null))).toBe('rejected');
    expect(classifyFailure(new HttpError(409, { error: 'screening_required', message: 'x' }))).toBe('retry');
    expect(classifyFailure(new HttpError(409, { error: 'item_complete', message: 'x' }))).toBe('given_back');
    expect(classifyFailure(new HttpError(429, null))).toBe('retry');
    expect(classifyFailure(new HttpError(408, null))).toBe('retry');
    expect(classifyFailure(new HttpError(503, null))).toBe('retry');
    expect(classifyFailure(new TypeError('Failed to fetch'))).toBe('retry');
    expect(classifyFailure(new DOMException('aborted', 'AbortError'))).toBe('retry');
  });
});

describe('backoffDelay', () => {
  it('doubles from the base, stays within the cap and ±25% jitter', () => {
    expect(backoffDelay(1, 500, 15_000, () => 0.5)).toBe(500);
    expect(backoffDelay(3, 500, 15_000, () => 0.5)).toBe(2000);
    expect(backoffDelay(20, 500, 15_000, () => 0.5)).toBe(15_000);
    expect(backoffDelay(2, 500, 15_000, () => 0)).toBe(750);
    expect(backoffDelay(2, 500, 15_000, () => 0.999)).toBeLessThanOrEqual(1250);
  });
});

describe('VoteQueue', () => {
  it('sends votes one at a time in order and empties the outbox only on acknowledgement', async () => {
    const store = memoryStore();
    const sent: number[] = [];
    let inFlight = 0;
    const settled: number[] = [];
    const q = new VoteQueue({
      store,
      ...fast,
      send: async (v) => {
        inFlight++;
        expect(inFlight).toBe(1);
        expect(store.list.map((x) => x.body.voteId)).toContain(v.body.voteId);
        sent.push(v.body.position);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        return ackFor(v);
      },
      onSettled: (v, ack) => {
        expect(ack?.voteId).toBe(v.body.voteId);
        settled.push(v.body.position);
      },
    });
    for (const p of [0, 1, 2]) q.enqueue(vote(p));
    await q.drained();
    expect(sent).toEqual([0, 1, 2]);
    expect(settled).toEqual([0, 1, 2]);
    expect(store.list).toEqual([]);
    expect(q.status().state).toBe('idle');
  });

  it('keeps only the first answer for a trial (double click, second tab)', async () => {
    const store = memoryStore();
    const bodies: VoteBody[] = [];
    const q = new VoteQueue({ store, ...fast, send: async (v) => (bodies.push(v.body), ackFor(v)) });
    const first = vote(4, 1);
    expect(q.enqueue(first)).toBe(true);
    expect(q.enqueue(vote(4, 2))).toBe(false);
    await q.drained();
    expect(bodies.map((b) => [b.position, b.choice, b.voteId])).toEqual([[4, 1, first.body.voteId]]);
  });

  it('retries failures with the same vote id until acknowledged, keeping order', async () => {
    const store = memoryStore();
    const attempts: Array<[number, string]> = [];
    let failuresLeft = 3;
    const states = new Set<string>();
    const q = new VoteQueue({
      store,
      ...fast,
      send: async (v) => {
        attempts.push([v.body.position, v.body.voteId]);
        if (v.body.position === 0 && failuresLeft-- > 0) throw failuresLeft % 2 ? new TypeError('Failed to fetch') : new HttpError(503, null);
        return ackFor(v);
      },
      onStatus: (s) => states.add(s.state),
    });
    const a = vote(0);
    const b = vote(1);
    q.enqueue(a);
    q.enqueue(b);
    await q.drained();
    expect(attempts.map(([p]) => p)).toEqual([0, 0, 0, 0, 1]);
    expect(new Set(attempts.filter(([p]) => p === 0).map(([, id]) => id))).toEqual(new Set([a.body.voteId]));
    expect(states.has('retrying')).toBe(true);
    expect(states.has('idle')).toBe(true);
  });

  it('reports offline while the browser says so', async () => {
    const store = memoryStore();
    let online = false;
    const states: string[] = [];
    const q = new VoteQueue({
      store,
      ...fast,
      isOnline: () => online,
      send: async (v) => {
        if (!online) throw new TypeError('Failed to fetch');
        return ackFor(v);
      },
      onStatus: (s) => states.push(s.state),
    });
    q.enqueue(vote(0));
    await new Promise((r) => setTimeout(r, 20));
    expect(q.status().state).toBe('offline');
    expect(q.status().pending).toBe(1);
    online = true;
    q.retryNow();
    await q.drained();
    expect(states.at(-1)).toBe('idle');
  });

  it('drops a vote the server already holds (409 already_answered) and moves on', async () => {
    const store = memoryStore();
    const settled: Array<[number, boolean]> = [];
    const q = new VoteQueue({
      store,
      ...fast,
      send: async (v) => {
        if (v.body.position === 0) throw new HttpError(409, { error: 'already_answered', message: 'answered' });
        return ackFor(v);
      },
      onSettled: (v, ack) => settled.push([v.body.position, ack !== null]),
    });
    q.enqueue(vote(0));
    q.enqueue(vote(1));
    await q.drained();
    expect(settled).toEqual([
      [0, false],
      [1, true],
    ]);
    expect(store.rejected).toEqual([]);
  });

  it('sets aside a vote the server refuses for good, records why, and continues', async () => {
    const store = memoryStore();
    const q = new VoteQueue({
      store,
      ...fast,
      send: async (v) => {
        if (v.body.position === 0) throw new HttpError(400, { error: 'bad_request', message: 'choice: invalid', field: 'choice' });
        return ackFor(v);
      },
    });
    q.enqueue(vote(0));
    q.enqueue(vote(1));
    await q.drained();
    expect(store.rejected.map((r) => [r.vote.body.position, r.reason])).toEqual([[0, '400 bad_request: choice: invalid']]);
    expect(q.status().rejected).toBe(1);
  });

  it('abandons a request that hangs and retries it', async () => {
    const store = memoryStore();
    let calls = 0;
    const q = new VoteQueue({
      store,
      ...fast,
      timeoutMs: 20,
      send: (v, signal) => {
        calls++;
        if (calls === 1)
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('timeout', 'AbortError'))));
        return Promise.resolve(ackFor(v));
      },
    });
    q.enqueue(vote(0));
    await q.drained();
    expect(calls).toBe(2);
  });

  it('resumes the outbox left by a previous page (reload)', async () => {
    const store = memoryStore();
    const first = new VoteQueue({ store, ...fast, send: () => new Promise(() => {}) });
    first.enqueue(vote(0));
    first.enqueue(vote(1));
    const sent: number[] = [];
    const second = new VoteQueue({ store, ...fast, send: async (v) => (sent.push(v.body.position), ackFor(v)) });
    second.start();
    await second.drained();
    expect(sent).toEqual([0, 1]);
  });

  it('against a flaky server that may lose replies: exactly one recorded vote per trial, equal to the choice', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const server = new Map<number, { voteId: string; choice: number }>();
    const store = memoryStore();
    const q = new VoteQueue({
      store,
      ...fast,
      send: async (v) => {
        const r = random();
        if (r < 0.15) throw new TypeError('Failed to fetch'); // never reached the server
        const held = server.get(v.body.position);
        if (held && held.voteId !== v.body.voteId) throw new HttpError(409, { error: 'already_answered', message: '' });
        if (!held) server.set(v.body.position, { voteId: v.body.voteId, choice: v.body.choice! });
        if (r < 0.3) throw new TypeError('network changed'); // recorded, reply lost
        return ackFor(v);
      },
    });
    const choices: number[] = [];
    for (let p = 0; p < 60; p++) {
      const c = random() < 0.5 ? 1 : 2;
      choices.push(c);
      q.enqueue(vote(p, c as 1 | 2));
      if (p % 7 === 0) q.enqueue(vote(p, c === 1 ? 2 : 1)); // a double submit must not win
    }
    await q.drained();
    expect([...server.keys()].sort((a, b) => a - b)).toEqual(choices.map((_, i) => i));
    expect(choices.map((_, p) => server.get(p)?.choice)).toEqual(choices);
  });
});

import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { voteFor } from '../testing/client';
import { HOLDS_PER_ADDRESS } from '../../studies/design';

/**
 * Empty sessions cannot lock a study, and a participant has one session per study. Requests go
 * out from chosen loopback addresses (127.0.0.x), so "one address" is a real client address.
 */
let server: TestServer;
const INCOMPLETE = { kind: 'incomplete' as const, itemsPerListener: 3, ratingsPerItem: 1, abandonAfterMinutes: 30 };
beforeAll(async () => {
  server = await startTestServer({
    studies: [
      // 6 pair items, 3 per listener, 1 rating each: two answering listeners fill it.
      { study: 'scarce', pairs: 6, attention: 0, practice: 0, design: INCOMPLETE },
      { study: 'prolific', pairs: 4, attention: 0, practice: 1 },
      { study: 'mturk', pairs: 4, attention: 0, practice: 0, linkParameters: ['workerId', 'assignmentId', 'hitId'] },
    ],
  });
});
afterAll(() => server.close());

/** A JSON request sent from `from` (a loopback address) on its own connection. */
function callFrom(from: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> {
  const { port } = new URL(server.url);
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1', port, localAddress: from, path, method: data ? 'POST' : 'GET', agent: false,
        headers: { ...(data ? { 'content-type': 'application/json', 'content-length': String(data.length) } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const count = (sql: string, ...args: unknown[]) => (server.app.db.prepare(sql).get(...args) as { n: number }).n;

/** Answers every trial of a session in order; returns the statuses. */
async function answerAll(from: string, token: string, state: any): Promise<number[]> {
  const statuses: number[] = [];
  for (let trial = state.trial; trial; ) {
    const ack = await callFrom(from, '/api/session/votes', voteFor(trial.position), token);
    statuses.push(ack.status);
    trial = (await callFrom(from, '/api/session', undefined, token)).body.trial;
  }
  return statuses;
}

describe('no lockout by empty sessions', () => {
  it('1,000 sessions started from one address leave a real participant a full session, and the study still fills', async () => {
    const flooder = '127.0.0.2';
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 1000; batch += 25) {
      const replies = await Promise.all(Array.from({ length: 25 }, () => callFrom(flooder, '/api/sessions', { study: 'scarce' })));
      for (const r of replies) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
    // Every empty session is served (none is a 5xx), and only a few of them hold anything.
    expect(Object.fromEntries(statuses)).toEqual({ 201: 1000 });
    expect(count("SELECT count(*) AS n FROM listeners WHERE study_id = 'scarce' AND reserved_at IS NOT NULL")).toBe(HOLDS_PER_ADDRESS);

    // A real participant from another address, and one behind the flooder's own address.
    for (const [from, pid] of [['127.0.0.1', 'real-1'], [flooder, 'real-2']] as const) {
      const start = await callFrom(from, '/api/sessions', { study: 'scarce', external: { PROLIFIC_PID: pid } });
      expect(start.status, JSON.stringify(start.body)).toBe(201);
      expect(start.body.state.progress).toEqual({ done: 0, total: 3 });
      expect(await answerAll(from, start.body.token, start.body.state)).toEqual([200, 200, 200]);
      expect((await callFrom(from, '/api/session', undefined, start.body.token)).body.completion).toMatchObject({ code: 'C0MPL3TE' });
    }
    // Answered ratings fill the study: every item has its one rating, so the next listener is told so.
    const late = await callFrom('127.0.0.3', '/api/sessions', { study: 'scarce', external: { PROLIFIC_PID: 'late' } });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: 'study_full' });
    expect(count("SELECT count(*) AS n FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = 'scarce'")).toBe(6);
    expect(count("SELECT count(*) AS n FROM (SELECT item_id FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = 'scarce' GROUP BY item_id HAVING count(*) > 1)")).toBe(0);
  }, 120_000);
});

describe('one session per participant', () => {
  it('a returning PROLIFIC_PID resumes its session in a new browser, with its own token, never a 5xx', async () => {
    const link = { PROLIFIC_PID: 'pid-return', STUDY_ID: 'st-1' };
    const first = await callFrom('127.0.0.1', '/api/sessions', { study: 'prolific', external: link });
    expect(first.status).toBe(201);
    expect((await callFrom('127.0.0.1', '/api/session/votes', voteFor(0), first.body.token)).status).toBe(200);

    // A new browser (no stored token), even from another network: the same session, where it was left.
    const again = await callFrom('127.0.0.4', '/api/sessions', { study: 'prolific', external: link });
    expect(again.status).toBe(200);
    expect(again.body.token).not.toBe(first.body.token);
    expect(again.body.state.progress).toEqual({ done: 1, total: 5 });
    expect(again.body.state.trial.position).toBe(1);
    expect(count("SELECT count(*) AS n FROM listeners WHERE study_id = 'prolific' AND participant = 'pid-return'")).toBe(1);
    // Both browsers' tokens reach the one session; an answer from either counts once.
    expect((await callFrom('127.0.0.4', '/api/session/votes', voteFor(1), again.body.token)).status).toBe(200);
    expect((await callFrom('127.0.0.1', '/api/session', undefined, first.body.token)).body.progress).toEqual({ done: 2, total: 5 });
    const twice = await callFrom('127.0.0.1', '/api/session/votes', voteFor(1), first.body.token);
    expect(twice.body).toMatchObject({ error: 'already_answered' });

    // Many browsers at once still make one session.
    const burst = await Promise.all(Array.from({ length: 12 }, () => callFrom('127.0.0.1', '/api/sessions', { study: 'prolific', external: { PROLIFIC_PID: 'pid-burst' } })));
    expect(burst.map((r) => r.status).sort()).toEqual([...Array(11).fill(200), 201]);
    expect(count("SELECT count(*) AS n FROM listeners WHERE participant = 'pid-burst'")).toBe(1);
  });

  it('knowing a participant id alone does not take over a session started with more of the link', async () => {
    const link = { PROLIFIC_PID: 'pid-guarded', STUDY_ID: 'st-1' };
    expect((await callFrom('127.0.0.1', '/api/sessions', { study: 'prolific', external: link })).status).toBe(201);
    for (const external of [{ PROLIFIC_PID: 'pid-guarded' }, { PROLIFIC_PID: 'pid-guarded', STUDY_ID: 'st-2' }]) {
      const other = await callFrom('127.0.0.5', '/api/sessions', { study: 'prolific', external });
      expect(other.status).toBe(409);
      expect(other.body).toMatchObject({ error: 'participant_has_session', field: 'external' });
      expect(other.body.token).toBeUndefined();
    }
    expect(count("SELECT count(*) AS n FROM listeners WHERE participant = 'pid-guarded'")).toBe(1);
    expect(count("SELECT count(*) AS n FROM session_tokens t JOIN listeners l ON l.id = t.listener_id WHERE l.participant = 'pid-guarded'")).toBe(0);
  });

  it('an MTurk workerId returning on the same assignment resumes; sessions without a participant id stay separate', async () => {
    const link = { workerId: 'A1WORKER', assignmentId: 'ASG1', hitId: 'HIT1' };
    const first = await callFrom('127.0.0.1', '/api/sessions', { study: 'mturk', external: link });
    expect(first.status).toBe(201);
    const again = await callFrom('127.0.0.6', '/api/sessions', { study: 'mturk', external: link });
    expect(again.status).toBe(200);
    expect(count("SELECT count(*) AS n FROM listeners WHERE participant = 'A1WORKER'")).toBe(1);
    const anonymous = await Promise.all([1, 2].map(() => callFrom('127.0.0.1', '/api/sessions', { study: 'mturk' })));
    expect(anonymous.map((r) => r.status)).toEqual([201, 201]);
    expect(anonymous[0].body.token).not.toBe(anonymous[1].body.token);
  });
});

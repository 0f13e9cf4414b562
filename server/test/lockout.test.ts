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
      { study: 'submissions', pairs: 4, attention: 0, practice: 0, linkParameters: ['PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID'] },
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
    const burst = await Promise.all(Array.from({ length: 12 }, () => callFrom('127.0.0.1', '/api/sessions', { study: 'prolific', external: { PROLIFIC_PID: 'pid-burst', STUDY_ID: 'st-1' } })));
    expect(burst.map((r) => r.status).sort()).toEqual([...Array(11).fill(200), 201]);
    expect(count("SELECT count(*) AS n FROM listeners WHERE participant = 'pid-burst'")).toBe(1);
  });

  it('knowing a participant id alone does not take over a session started with more of the link', async () => {
    const link = { PROLIFIC_PID: 'pid-guarded', STUDY_ID: 'st-1' };
    expect((await callFrom('127.0.0.1', '/api/sessions', { study: 'prolific', external: link })).status).toBe(201);
    for (const external of [{ PROLIFIC_PID: 'pid-guarded' }, { PROLIFIC_PID: 'pid-guarded', STUDY_ID: 'st-2' }]) {
      const other = await callFrom('127.0.0.5', '/api/sessions', { study: 'prolific', external });
      expect(other.status).toBe(201);
      expect(other.body.state.progress.done).toBe(0);
    }
    expect(count("SELECT count(*) AS n FROM listeners WHERE participant = 'pid-guarded'")).toBe(3);
    expect(count("SELECT count(*) AS n FROM session_tokens t JOIN listeners l ON l.id = t.listener_id WHERE l.participant = 'pid-guarded'")).toBe(0);
  });

  // Issue 20.2: the probe's two repros. Today's main answered the first with 200 (the attacker
  // kept a working token to the real participant's session) and the second with 409.
  it('an attacker who starts first with only the participant id neither takes over nor locks out the real participant', async () => {
    const attacker = await callFrom('127.0.0.5', '/api/sessions', { study: 'submissions', external: { PROLIFIC_PID: 'victim-1' } });
    expect(attacker.status).toBe(201);
    const real = { PROLIFIC_PID: 'victim-1', STUDY_ID: 'st-1', SESSION_ID: 'sub-real-1' };
    const first = await callFrom('127.0.0.1', '/api/sessions', { study: 'submissions', external: real });
    expect(first.status).toBe(201);
    expect((await callFrom('127.0.0.1', '/api/session/votes', voteFor(0), first.body.token)).status).toBe(200);
    // The attacker's token reaches only the attacker's own empty session.
    expect((await callFrom('127.0.0.5', '/api/session', undefined, attacker.body.token)).body.progress.done).toBe(0);
    // Trying again with the id alone, or the id and the public STUDY_ID, makes yet another session.
    for (const external of [{ PROLIFIC_PID: 'victim-1' }, { PROLIFIC_PID: 'victim-1', STUDY_ID: 'st-1' }]) {
      const again = await callFrom('127.0.0.5', '/api/sessions', { study: 'submissions', external });
      expect(again.status).toBe(201);
      expect(again.body.state.progress.done).toBe(0);
    }
    // The real participant, in a new browser, is back where they were.
    const resumed = await callFrom('127.0.0.4', '/api/sessions', { study: 'submissions', external: real });
    expect(resumed.status).toBe(200);
    expect(resumed.body.state.progress.done).toBe(1);
    const realIds = server.app.db.prepare("SELECT id FROM listeners WHERE json_extract(external, '$.SESSION_ID') = 'sub-real-1'").pluck().all();
    expect(realIds).toHaveLength(1);
    // Its only other token is the real participant's second browser.
    expect(count('SELECT count(*) AS n FROM session_tokens WHERE listener_id = ?', realIds[0])).toBe(1);
  });

  it('an attacker who starts first with a made-up SESSION_ID neither takes over nor locks out the real participant', async () => {
    const fake = { PROLIFIC_PID: 'victim-2', STUDY_ID: 'st-1', SESSION_ID: 'made-up' };
    const attacker = await callFrom('127.0.0.5', '/api/sessions', { study: 'submissions', external: fake });
    expect(attacker.status).toBe(201);
    const real = { ...fake, SESSION_ID: 'sub-real-2' };
    const first = await callFrom('127.0.0.1', '/api/sessions', { study: 'submissions', external: real });
    expect(first.status).toBe(201);
    expect(first.body.state.progress).toEqual({ done: 0, total: 4 });
    expect((await callFrom('127.0.0.1', '/api/session/votes', voteFor(0), first.body.token)).status).toBe(200);
    // The attacker's link resumes the attacker's session, never the real one.
    const back = await callFrom('127.0.0.5', '/api/sessions', { study: 'submissions', external: fake });
    expect(back.status).toBe(200);
    expect(back.body.state.progress.done).toBe(0);
    expect((await callFrom('127.0.0.4', '/api/sessions', { study: 'submissions', external: real })).body.state.progress.done).toBe(1);
    // A placeholder left unsubstituted is no submission id: such a start is never resumed.
    const placeholder = { ...fake, SESSION_ID: '{{%SESSION_ID%}}' };
    const p1 = await callFrom('127.0.0.5', '/api/sessions', { study: 'submissions', external: placeholder });
    const p2 = await callFrom('127.0.0.5', '/api/sessions', { study: 'submissions', external: placeholder });
    expect([p1.status, p2.status]).toEqual([201, 201]);
  });

  it('a participant who returns the study and takes it again (a new SESSION_ID) gets a new session; each submission link resumes its own', async () => {
    const first = { PROLIFIC_PID: 'retaker', STUDY_ID: 'st-1', SESSION_ID: 'sub-a' };
    const a = await callFrom('127.0.0.1', '/api/sessions', { study: 'submissions', external: first });
    expect(a.status).toBe(201);
    expect((await callFrom('127.0.0.1', '/api/session/votes', voteFor(0), a.body.token)).status).toBe(200);
    const b = await callFrom('127.0.0.1', '/api/sessions', { study: 'submissions', external: { ...first, SESSION_ID: 'sub-b' } });
    expect(b.status).toBe(201);
    expect(b.body.state.progress.done).toBe(0);
    expect((await callFrom('127.0.0.4', '/api/sessions', { study: 'submissions', external: first })).body.state.progress.done).toBe(1);
    expect((await callFrom('127.0.0.4', '/api/sessions', { study: 'submissions', external: { ...first, SESSION_ID: 'sub-b' } })).status).toBe(200);
    expect(count("SELECT count(*) AS n FROM listeners WHERE participant = 'retaker'")).toBe(2);
  });

  it('12 concurrent starts: the real link makes one session, each attacker start its own', async () => {
    const real = { PROLIFIC_PID: 'victim-3', STUDY_ID: 'st-1', SESSION_ID: 'sub-real-3' };
    const starts = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0 ? real : i % 4 === 1 ? { PROLIFIC_PID: 'victim-3' } : { ...real, SESSION_ID: `fake-${i}` },
    );
    const replies = await Promise.all(starts.map((external, i) => callFrom(i % 2 ? '127.0.0.5' : '127.0.0.1', '/api/sessions', { study: 'submissions', external })));
    const realReplies = replies.filter((_, i) => i % 2 === 0);
    expect(realReplies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(replies.filter((_, i) => i % 2 === 1).map((r) => r.status)).toEqual(Array(6).fill(201));
    // Six real browsers, one session: an answer in one shows in all.
    expect((await callFrom('127.0.0.1', '/api/session/votes', voteFor(0), realReplies[3].body.token)).status).toBe(200);
    for (const r of realReplies) expect((await callFrom('127.0.0.1', '/api/session', undefined, r.body.token)).body.progress.done).toBe(1);
    expect(count("SELECT count(*) AS n FROM listeners WHERE participant = 'victim-3'")).toBe(7);
  });

  it('an MTurk workerId returning on the same assignment resumes; sessions without a participant id stay separate', async () => {
    const link = { workerId: 'A1WORKER', assignmentId: 'ASG1', hitId: 'HIT1' };
    const first = await callFrom('127.0.0.1', '/api/sessions', { study: 'mturk', external: link });
    expect(first.status).toBe(201);
    const again = await callFrom('127.0.0.6', '/api/sessions', { study: 'mturk', external: link });
    expect(again.status).toBe(200);
    // A HIT's preview (no assignment yet) and another assignment of the same worker are sessions of their own.
    for (const assignmentId of ['ASSIGNMENT_ID_NOT_AVAILABLE', 'ASSIGNMENT_ID_NOT_AVAILABLE', 'ASG2']) {
      expect((await callFrom('127.0.0.6', '/api/sessions', { study: 'mturk', external: { ...link, assignmentId } })).status).toBe(201);
    }
    expect(count("SELECT count(*) AS n FROM listeners WHERE participant = 'A1WORKER'")).toBe(4);
    const anonymous = await Promise.all([1, 2].map(() => callFrom('127.0.0.1', '/api/sessions', { study: 'mturk' })));
    expect(anonymous.map((r) => r.status)).toEqual([201, 201]);
    expect(anonymous[0].body.token).not.toBe(anonymous[1].body.token);
  });
});

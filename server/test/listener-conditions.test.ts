import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';
import { setStudyStatus } from '../../studies/build';
import { hashSessionToken } from '../store/sessions';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'skips' }, { study: 'pausing' }, { study: 'closing' }] });
});
afterAll(() => server.close());

const count = (sql: string, ...args: unknown[]) => (server.app.db.prepare(sql).get(...args) as { n: number }).n;
const start = async (study: string) => {
  const res = await call(`${server.url}/api/sessions`, { body: { study } });
  expect(res.status).toBe(201);
  return res.body as { token: string; state: any };
};
const problem = (position: number, p: 'load_failed' | 'play_failed' = 'load_failed') => ({
  position,
  problem: p,
  detail: 'MEDIA_ERR_NETWORK',
  clientTs: new Date().toISOString(),
});

describe('a clip that will not play', () => {
  it('is skipped as a reported problem: done for progress and completion, never a vote', async () => {
    const { token, state } = await start('skips');
    const total = state.progress.total;
    const skipped = await call(`${server.url}/api/session/problems`, { token, body: problem(0) });
    expect(skipped.status).toBe(200);
    expect(skipped.body.progress).toEqual({ done: 1, total });
    expect(skipped.body.trial.position).toBe(1);
    // A retried report changes nothing; a vote for the skipped trial is refused and stored nowhere.
    expect((await call(`${server.url}/api/session/problems`, { token, body: problem(0) })).body.progress.done).toBe(1);
    const late = await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('trial_skipped');
    expect(count('SELECT count(*) AS n FROM votes')).toBe(0);
    expect(count("SELECT count(*) AS n FROM trial_problems WHERE position = 0 AND problem = 'load_failed'")).toBe(1);

    for (let p = 1; p < total - 1; p++) expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(p) })).status).toBe(200);
    // An answered trial cannot be reported afterwards, and an unknown position is not the listener's.
    expect((await call(`${server.url}/api/session/problems`, { token, body: problem(1) })).body.error).toBe('already_answered');
    expect((await call(`${server.url}/api/session/problems`, { token, body: problem(999) })).status).toBe(403);
    // The last trial skipped still finishes the session with the completion code.
    const last = await call(`${server.url}/api/session/problems`, { token, body: problem(total - 1, 'play_failed') });
    expect(last.body.completion).toEqual({ code: 'C0MPL3TE', redirectUrl: 'https://example.org/complete?cc=C0MPL3TE' });
    expect(count('SELECT count(*) AS n FROM listeners WHERE completed_at IS NOT NULL')).toBe(1);
    expect(count('SELECT count(*) AS n FROM votes')).toBe(total - 2);
  });

  it('completes the session at its last open trial, whatever order the trials were answered in', async () => {
    const { token, state } = await start('skips');
    const total = state.progress.total;
    const completedAt = () => (server.app.db.prepare('SELECT completed_at FROM listeners WHERE token_hash = ?').pluck().get(hashSessionToken(token)));
    // Last trial first, one in the middle skipped, the rest backwards: only the very last answer completes it.
    const order = [total - 1, ...Array.from({ length: total - 1 }, (_, k) => total - 2 - k)];
    const middle = order[Math.floor(total / 2)];
    for (const [i, position] of order.entries()) {
      expect(completedAt()).toBeNull();
      const res = position === middle
        ? await call(`${server.url}/api/session/problems`, { token, body: problem(position) })
        : await call(`${server.url}/api/session/votes`, { token, body: voteFor(position) });
      expect(res.status).toBe(200);
      if (i < order.length - 1) expect(completedAt()).toBeNull();
    }
    expect(completedAt()).not.toBeNull();
    expect((await call(`${server.url}/api/session`, { token })).body.completion).toMatchObject({ code: 'C0MPL3TE' });
  });

  it('refuses malformed reports with the field named', async () => {
    const { token } = await start('skips');
    const bad = await call(`${server.url}/api/session/problems`, { token, body: { ...problem(0), problem: 'boring' } });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('problem');
    expect((await call(`${server.url}/api/session/problems`, { body: problem(0) })).status).toBe(401);
  });
});

describe('a paused or closed study (one rule)', () => {
  for (const status of ['paused', 'closed'] as const) {
    it(`when ${status}: no new sessions, votes or reports; acknowledged votes kept; the state says so and offers the way out`, async () => {
      const study = status === 'paused' ? 'pausing' : 'closing';
      const { token } = await start(study);
      const { token: idle } = await start(study);
      expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) })).status).toBe(200);
      setStudyStatus(server.app.db, study, status);

      const refused = await call(`${server.url}/api/session/votes`, { token, body: voteFor(1) });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe(`study_${status}`);
      expect((await call(`${server.url}/api/session/problems`, { token, body: problem(1) })).body.error).toBe(`study_${status}`);
      expect((await call(`${server.url}/api/sessions`, { body: { study } })).body.error).toBe('study_not_open');

      const state = (await call(`${server.url}/api/session`, { token })).body;
      expect(state).toMatchObject({ status, trial: null, upcoming: [], completion: null, progress: { done: 1 } });
      // Stopped part-way, a listener does not get the finisher's code: unless the study says so, they return the study.
      expect(state.stopped).toEqual({ code: null, redirectUrl: null });
      const setWhenStopped = (rule: unknown) =>
        server.app.db.prepare("UPDATE studies SET definition = json_set(definition, '$.completion.whenStopped', json(?)) WHERE id = ?").run(JSON.stringify(rule), study);
      setWhenStopped('finisher');
      // With `whenStopped: finisher`, a listener with saved answers gets the researcher's completion path; one without gets none.
      expect((await call(`${server.url}/api/session`, { token })).body.stopped).toEqual({ code: 'C0MPL3TE', redirectUrl: 'https://example.org/complete?cc=C0MPL3TE' });
      expect((await call(`${server.url}/api/session`, { token: idle })).body.stopped).toEqual({ code: null, redirectUrl: null });
      // Or a code of its own (a platform's partial-completion code).
      setWhenStopped({ code: 'PARTIAL-7' });
      expect((await call(`${server.url}/api/session`, { token })).body.stopped).toEqual({ code: 'PARTIAL-7', redirectUrl: null });
      expect(count("SELECT count(*) AS n FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ?", study)).toBe(1);

      if (status === 'paused') {
        setStudyStatus(server.app.db, study, 'open');
        const resumed = (await call(`${server.url}/api/session`, { token })).body;
        expect(resumed).toMatchObject({ status: 'open', stopped: null, trial: { position: 1 } });
        expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(1) })).status).toBe(200);
      }
    });
  }
});

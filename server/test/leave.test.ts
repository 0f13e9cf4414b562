/**
 * "Leave the study" (POST /api/session/leave): a listener may stop at any time. Their saved
 * answers stay, the session takes no more, and its unanswered trials go to the next listener at
 * once instead of after abandonAfterMinutes. A real server on loopback, real SQLite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';
import { hashSessionToken } from '../store/sessions';

let server: TestServer;
let researcher: string;
beforeAll(async () => {
  server = await startTestServer({
    studies: [{ study: 'leave', pairs: 8, attention: 1, practice: 0, design: { kind: 'incomplete', itemsPerListener: 4, ratingsPerItem: 1 } }],
  });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
});
afterAll(() => server.close());

/** The scored items a session holds and has not answered. */
const openItems = (token: string) =>
  server.app.db
    .prepare<[string], string>(
      `SELECT a.item_id FROM assignments a JOIN items i ON i.id = a.item_id JOIN listeners l ON l.id = a.listener_id
        WHERE l.token_hash = ? AND i.kind = i.trial_kind
          AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.position = a.position)
        ORDER BY a.item_id`,
    )
    .pluck()
    .all(hashSessionToken(token));

const start = (pid: string) => call(`${server.url}/api/sessions`, { body: { study: 'leave', external: { PROLIFIC_PID: pid, STUDY_ID: 'leave' } } });

describe('leaving the study from its page', () => {
  it('keeps the saved answers, takes no more, and gives the unanswered trials to the next listener at once', async () => {
    const a = await start('pa');
    const b = await start('pb');
    const first = voteFor(a.body.state.trial.position);
    expect((await call(`${server.url}/api/session/votes`, { token: a.body.token, body: first })).status).toBe(200);
    expect((await call(`${server.url}/api/session/votes`, { token: b.body.token, body: voteFor(b.body.state.trial.position) })).status).toBe(200);
    // Every item has a vote or is held by a listener who answered: nobody else gets in.
    expect((await start('pc')).body.error).toBe('study_full');
    const given = openItems(a.body.token);
    expect(given.length).toBeGreaterThanOrEqual(3);

    const left = await call(`${server.url}/api/session/leave`, { token: a.body.token, body: {} });
    expect(left.status).toBe(200);
    expect(left.body).toMatchObject({ left: true, trial: null, upcoming: [], completion: null, status: 'open', stopped: { code: null, redirectUrl: null } });
    expect((await call(`${server.url}/api/session`, { token: a.body.token })).body.left).toBe(true);
    // Leaving again changes nothing.
    expect((await call(`${server.url}/api/session/leave`, { token: a.body.token, body: {} })).body).toEqual(left.body);

    // The next listener gets exactly the left session's unanswered items, without waiting.
    const c = await start('pc');
    expect(c.status).toBe(201);
    expect(openItems(c.body.token)).toEqual(given);

    // The left session takes no new answer and no skipped clip; its saved vote, sent again, is still acknowledged.
    const next = a.body.state.upcoming[0].position;
    const refused = await call(`${server.url}/api/session/votes`, { token: a.body.token, body: voteFor(next) });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('session_left');
    const skipped = await call(`${server.url}/api/session/problems`, { token: a.body.token, body: { position: next, problem: 'load_failed', detail: 'x', clientTs: new Date().toISOString() } });
    expect(skipped.body.error).toBe('session_left');
    expect((await call(`${server.url}/api/session/votes`, { token: a.body.token, body: first })).status).toBe(200);
    expect(server.app.db.prepare("SELECT count(*) FROM votes v JOIN listeners l ON l.id = v.listener_id WHERE l.study_id = 'leave'").pluck().get()).toBe(2);

    // The studio lists them as left, to be returned on the platform, never rejected.
    const table = (await call(`${server.url}/api/studio/studies/leave/participants`, { token: researcher })).body;
    const row = table.participants.find((p: { participant: string }) => p.participant === 'pa');
    expect(row).toMatchObject({ status: 'left', decision: 'RETURN', progress: { done: 1 } });
    expect(row.reason).toMatch(/^left the study from its page after 1 of \d+ trials; ask them to return the study/);
    // A session that never answered can leave too; the one who finished is unchanged.
    const d = await call(`${server.url}/api/session/leave`, { token: c.body.token, body: {} });
    expect(d.body).toMatchObject({ left: true, stopped: { code: null, redirectUrl: null } });
    expect((await start('pe')).status).toBe(201);
  });
});

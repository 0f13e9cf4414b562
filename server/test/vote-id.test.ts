import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';
import { voteRepository } from '../store/votes';

/**
 * Issue 20.7: a vote id names one answer. Today's main stored the same id sent for another trial
 * as that trial's answer, so the export held one vote_id twice.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'ids', practice: 0 }] });
});
afterAll(() => server.close());

describe('vote ids', () => {
  it('are unique per listener: the same id for another trial is refused, and the export has no vote_id twice', async () => {
    const { token } = (await call(`${server.url}/api/sessions`, { body: { study: 'ids' } })).body;
    const voteId = randomUUID();
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 1, { voteId }) })).status).toBe(200);
    const again = await call(`${server.url}/api/session/votes`, { token, body: voteFor(1, 1, { voteId }) });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'vote_id_reused', field: 'voteId' });
    // The retry at its own trial still gets its first acknowledgement, and trial 1 is still open.
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 1, { voteId }) })).status).toBe(200);
    expect((await call(`${server.url}/api/session`, { token })).body.trial.position).toBe(1);
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(1) })).status).toBe(200);

    const researcher = (await server.app.store.accessTokens.create('researcher')).token;
    const exported = await call(`${server.url}/api/studio/studies/ids/export`, { token: researcher });
    const [header, ...rows] = (exported.body['votes.csv'] as string).trim().split('\r\n');
    const column = header.split(',').indexOf('vote_id');
    expect(column).toBeGreaterThanOrEqual(0);
    const ids = rows.map((r) => r.split(',')[column]);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('are free again when the vote that used one was not committed, and used once it is', async () => {
    // The vote writer remembers the ids it stored (server/store/used-vote-ids.ts); a batch that
    // fails to commit stored nothing, so its ids must not be refused when the listener sends them again.
    const { token } = (await call(`${server.url}/api/sessions`, { body: { study: 'ids' } })).body;
    const listener = server.app.store.sessions.sessionListener(token)!;
    const study = server.app.store.studies.get('ids')!;
    const votes = voteRepository(server.app.db);
    const voteId = randomUUID();
    const failedCommit = server.app.db.transaction(() => {
      votes.record({ listener, vote: voteFor(0, 1, { voteId }) }, study);
      throw new Error('the commit failed');
    });
    expect(failedCommit).toThrow('the commit failed');
    expect(votes.record({ listener, vote: voteFor(1, 1, { voteId }) }, study).position).toBe(1);
    expect(() => votes.record({ listener, vote: voteFor(0, 1, { voteId }) }, study)).toThrow(expect.objectContaining({ code: 'vote_id_reused' }));
    expect(votes.record({ listener, vote: voteFor(0) }, study).position).toBe(0);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, takeScreening, voteFor } from '../testing/client';
import { databaseFile, openDatabase } from '../../db/open';
import { setStudyStatus } from '../../studies/build';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    studies: [
      { study: 'flow' },
      { study: 'shut', status: 'closed' },
      { study: 'hidden', status: 'draft' },
      { study: 'screened', screeningRequired: true },
      { study: 'part', design: { kind: 'incomplete', itemsPerListener: 3, ratingsPerItem: 3 }, screening: 'both' },
    ],
  });
});
afterAll(() => server.close());

const count = (sql: string, ...args: unknown[]) => (server.app.db.prepare(sql).get(...args) as { n: number }).n;
const start = async (study = 'flow', external: Record<string, string> = {}) => {
  const res = await call(`${server.url}/api/sessions`, { body: { study, external } });
  expect(res.status).toBe(201);
  return res.body as { token: string; state: any };
};

describe('listener flow', () => {
  it('tells the listener how many trials and about how long, from the clips a session holds', async () => {
    const clipSeconds = (study: string, kind: string) =>
      (server.app.db.prepare('SELECT avg(c.duration) AS s FROM items i JOIN clips c ON c.id = i.clip_id WHERE i.study_id = ? AND i.kind = ?')
        .get(study, kind) as { s: number }).s;
    // 1 practice, 6 pairs, 2 attention checks; each clip heard 1.5 times, 8 s per trial, 90 s per headphone check.
    const flow = (await call(`${server.url}/api/studies/flow/intro`)).body;
    const estimate = (study: string, counts: number[], checks: number) =>
      Math.round(counts.reduce((t, n, i) => t + n * (clipSeconds(study, ['practice', 'pair', 'attention'][i]) * 1.5 + 8), 0) + checks * 90);
    expect(flow).toMatchObject({ language: 'en', breakEvery: null, estimate: { trials: 9, seconds: estimate('flow', [1, 6, 2], 1) } });
    // An incomplete design: itemsPerListener pairs, not all of them; two headphone checks.
    const part = (await call(`${server.url}/api/studies/part/intro`)).body;
    expect(part.estimate).toEqual({ trials: 6, seconds: estimate('part', [1, 3, 2], 2) });
    // And a session of it holds exactly that many trials.
    expect((await start('part')).state.progress).toEqual({ done: 0, total: 6 });
  });

  it('serves the intro of an open study and refuses unknown, draft and malformed ids', async () => {
    const intro = await call(`${server.url}/api/studies/flow/intro`);
    expect(intro.status).toBe(200);
    expect(intro.body).toMatchObject({ study: 'flow', status: 'open', linkParameters: ['PROLIFIC_PID', 'STUDY_ID'] });
    expect((await call(`${server.url}/api/studies/nope/intro`)).body).toMatchObject({ error: 'unknown_study' });
    expect((await call(`${server.url}/api/studies/hidden/intro`)).status).toBe(404);
    const bad = await call(`${server.url}/api/studies/BAD_ID/intro`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_request', field: 'study' });
  });

  it('runs a whole session: trials in order, votes stored as a|b, completion code at the end', async () => {
    const { token, state } = await start('flow', { PROLIFIC_PID: 'p-123', OTHER: 'dropped' });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(state.progress).toEqual({ done: 0, total: 9 });
    expect(state.trial).toMatchObject({ position: 0, kind: 'practice' });
    // The next five unanswered trials after the current one, in order, each a plain Trial.
    expect(state.upcoming.map((t: any) => t.position)).toEqual([1, 2, 3, 4, 5]);
    expect(state.upcoming[0]).toMatchObject({ position: 1, kind: 'pair' });
    for (const t of state.upcoming) expect(Object.keys(t).sort()).toEqual(['captions', 'clip', 'kind', 'position']);
    const listener = server.app.db.prepare('SELECT id, external, token_hash FROM listeners WHERE study_id = ?').get('flow') as any;
    expect(JSON.parse(listener.external)).toEqual({ PROLIFIC_PID: 'p-123' });
    expect(listener.token_hash).not.toContain(token);

    let current = state;
    for (let i = 0; i < 9; i++) {
      const choice = (i % 2 ? 1 : 2) as 1 | 2;
      const ack = await call(`${server.url}/api/session/votes`, { token, body: voteFor(current.trial.position, choice) });
      expect(ack.status).toBe(200);
      expect(Object.keys(ack.body).sort()).toEqual(['feedback', 'position', 'serverTs', 'voteId']);
      expect(ack.body.feedback === null).toBe(i !== 0);
      const row = server.app.db
        .prepare('SELECT first, chosen FROM votes WHERE id = ?')
        .get(ack.body.voteId) as { first: string; chosen: string };
      expect(row.chosen).toBe(choice === 1 ? row.first : row.first === 'a' ? 'b' : 'a');
      // The caption the listener clicked is the one stored: compare by text.
      const shown = current.trial.captions[choice - 1];
      const item = server.app.db
        .prepare('SELECT caption_a, caption_b FROM items i JOIN votes v ON v.item_id = i.id WHERE v.id = ?')
        .get(ack.body.voteId) as { caption_a: string; caption_b: string };
      expect(row.chosen === 'a' ? item.caption_a : item.caption_b).toBe(shown);
      current = (await call(`${server.url}/api/session`, { token })).body;
      expect(current.upcoming.map((t: any) => t.position)).toEqual(
        Array.from({ length: Math.min(5, Math.max(0, 9 - (i + 2))) }, (_, k) => i + 2 + k),
      );
    }
    expect(current.trial).toBeNull();
    expect(current.completion).toEqual({ code: 'C0MPL3TE', redirectUrl: 'https://example.org/complete?cc=C0MPL3TE' });
    expect(count('SELECT count(*) AS n FROM listeners WHERE completed_at IS NOT NULL')).toBe(1);
  });

  it('returns the same acknowledgement for a repeated vote id and stores one row', async () => {
    const { token } = await start();
    const vote = voteFor(0);
    const first = await call(`${server.url}/api/session/votes`, { token, body: vote });
    await call(`${server.url}/api/session/votes`, { token, body: voteFor(1) });
    const again = await call(`${server.url}/api/session/votes`, { token, body: vote });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(count('SELECT count(*) AS n FROM votes WHERE id = ?', vote.voteId)).toBe(1);
  });

  it('refuses a different answer for an answered trial (409) and keeps the first', async () => {
    const { token } = await start();
    const first = await call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 1) });
    const second = await call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 2) });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ error: 'already_answered', field: 'position' });
    const stored = server.app.db.prepare('SELECT id FROM votes WHERE listener_id = (SELECT listener_id FROM votes WHERE id = ?) AND position = 0').all(first.body.voteId);
    expect(stored).toEqual([{ id: first.body.voteId }]);
    // The same id with another answer on the same trial is a broken retry, refused by the id.
    const reused = await call(`${server.url}/api/session/votes`, { token, body: { ...voteFor(0, 2), voteId: first.body.voteId } });
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({ error: 'vote_id_reused', field: 'voteId' });
  });

  it('recognises a vote id at its trial, and refuses the same id for the next trial (a vote id names one answer)', async () => {
    // Issue 20.7: the same id for another trial used to answer that trial, so the export held the id twice.
    const { token } = await start();
    const first = await call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 1) });
    const next = await call(`${server.url}/api/session/votes`, { token, body: { ...voteFor(1, 2), voteId: first.body.voteId } });
    expect(next.status).toBe(409);
    expect(next.body).toMatchObject({ error: 'vote_id_reused', field: 'voteId' });
    // A retry is replayed at its own trial.
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 1, { voteId: first.body.voteId }) })).body).toEqual(first.body);
    expect(count('SELECT count(*) AS n FROM votes WHERE id = ?', first.body.voteId)).toBe(1);
  });

  it('two tabs voting on the same trial at once: one vote stored, the other gets 409', async () => {
    const { token } = await start();
    const results = await Promise.all([
      call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 1) }),
      call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 2) }),
      call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 1) }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const winner = results.find((r) => r.status === 200)!.body.voteId;
    const listener = server.app.db.prepare('SELECT listener_id AS l FROM votes WHERE id = ?').get(winner) as { l: string };
    expect(count('SELECT count(*) AS n FROM votes WHERE listener_id = ?', listener.l)).toBe(1);
  });

  it('refuses positions outside the session, malformed votes and missing tokens', async () => {
    const { token } = await start();
    const outside = await call(`${server.url}/api/session/votes`, { token, body: voteFor(99) });
    expect(outside.status).toBe(409);
    expect(outside.body).toMatchObject({ error: 'not_assigned', field: 'position' });
    const badChoice = await call(`${server.url}/api/session/votes`, { token, body: { ...voteFor(1), choice: 3 } });
    expect(badChoice.status).toBe(400);
    expect(badChoice.body).toMatchObject({ error: 'invalid_request', field: 'choice' });
    const extra = await call(`${server.url}/api/session/votes`, { token, body: { ...voteFor(1), system: 'x' } });
    expect(extra.body).toMatchObject({ error: 'invalid_request', field: 'system' });
    const noToken = await call(`${server.url}/api/session/votes`, { body: voteFor(1) });
    expect(noToken.status).toBe(401);
    expect((await call(`${server.url}/api/session`, { token: 'forged' })).status).toBe(401);
  });

  it('starts sessions only for open studies', async () => {
    const closed = await call(`${server.url}/api/sessions`, { body: { study: 'shut' } });
    expect(closed.status).toBe(409);
    expect(closed.body).toMatchObject({ error: 'study_not_open', field: 'study' });
    expect((await call(`${server.url}/api/sessions`, { body: { study: 'hidden' } })).status).toBe(404);
    expect((await call(`${server.url}/api/sessions`, { body: { study: 'missing' } })).status).toBe(404);
  });

  it('asks for the headphone check first when the study requires it', async () => {
    const { token } = await start('screened');
    const early = await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) });
    expect(early.status).toBe(409);
    expect(early.body.error).toBe('screening_required');
    const wrongKind = await takeScreening(server.url, token, 'huggins', true);
    expect(wrongKind.status).toBe(409);
    const ok = await takeScreening(server.url, token, 'antiphase', true);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ outcome: 'passed', state: { progress: { done: 0 }, screening: { done: ['antiphase'], failed: false } } });
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) })).status).toBe(200);
  });

  it('sees a study change made through another connection on the next request', async () => {
    // As `npm run study -- pause` does from its own process, while the server keeps serving.
    const other = openDatabase(databaseFile({ dataDir: server.dataDir }));
    try {
      const { token } = await start('flow');
      setStudyStatus(other, 'flow', 'paused');
      expect((await call(`${server.url}/api/sessions`, { body: { study: 'flow' } })).body.error).toBe('study_not_open');
      setStudyStatus(other, 'flow', 'open');
      await start('flow');
      // Even an edit that leaves updated_at as it was is picked up.
      const require = (on: boolean) =>
        other.prepare("UPDATE studies SET definition = json_set(definition, '$.screening.required', json(?)) WHERE id = 'flow'").run(String(on));
      require(true);
      expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) })).body.error).toBe('screening_required');
      require(false);
      expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) })).status).toBe(200);
    } finally {
      other.close();
    }
  });
});

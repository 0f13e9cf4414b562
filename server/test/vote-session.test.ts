import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, takeScreening, voteFor } from '../testing/client';
import { databaseFile, openDatabase, type Db } from '../../db/open';
import { setStudyStatus } from '../../studies/build';
import { hashSessionToken } from '../store/sessions';

// The vote route remembers which listener a token names (server/store/sessions.ts sessionListener);
// everything that can change is read by the vote writer inside the vote's transaction. These
// tests warm that memory with a first vote, then change the study from another connection, as
// `npm run study` does from its own process.
let server: TestServer;
let other: Db;
beforeAll(async () => {
  server = await startTestServer({
    studies: [{ study: 'small', pairs: 3 }, { study: 'large', pairs: 8 }, { study: 'later', pairs: 4 }, { study: 'many', pairs: 18 }],
  });
  other = openDatabase(databaseFile({ dataDir: server.dataDir }));
});
afterAll(async () => {
  other.close();
  await server.close();
});

const start = async (study: string) => {
  const res = await call(`${server.url}/api/sessions`, { body: { study } });
  expect(res.status).toBe(201);
  return res.body as { token: string; state: { progress: { total: number } } };
};
const vote = (token: string, position: number) => call(`${server.url}/api/session/votes`, { token, body: voteFor(position) });
const listenerOf = (token: string) =>
  (server.app.db.prepare('SELECT id, study_id FROM listeners WHERE token_hash = ?').get(hashSessionToken(token)) as { id: string; study_id: string });

describe('votes with a remembered session token', () => {
  it('refuses the first vote after a pause or close, and takes votes again once reopened', async () => {
    const { token } = await start('small');
    expect((await vote(token, 0)).status).toBe(200);
    setStudyStatus(other, 'small', 'paused');
    const paused = await vote(token, 1);
    expect(paused.status).toBe(409);
    expect(paused.body.error).toBe('study_paused');
    setStudyStatus(other, 'small', 'open');
    expect((await vote(token, 1)).status).toBe(200);
    setStudyStatus(other, 'small', 'closed');
    expect((await vote(token, 2)).body.error).toBe('study_closed');
    const stored = server.app.db.prepare('SELECT position FROM votes WHERE listener_id = ? ORDER BY position').pluck().all(listenerOf(token).id);
    expect(stored).toEqual([0, 1]);
  });

  it('answers every token with its own listener and study, however the votes interleave', async () => {
    const large = [await start('large'), await start('large')];
    const later = await start('later');
    expect(large[0].state.progress.total).not.toBe(later.state.progress.total);
    for (let position = 0; position < 3; position++) {
      for (const session of [large[0], later, large[1]]) {
        const ack = await vote(session.token, position);
        expect(ack.status).toBe(200);
        expect(ack.body.position).toBe(position);
        expect((await call(`${server.url}/api/session`, { token: session.token })).body.progress).toEqual({ done: position + 1, total: session.state.progress.total });
      }
    }
    for (const session of [...large, later]) {
      const listener = listenerOf(session.token);
      const rows = server.app.db
        .prepare('SELECT v.listener_id, i.study_id FROM votes v JOIN items i ON i.id = v.item_id WHERE v.listener_id = ?')
        .all(listener.id) as { listener_id: string; study_id: string }[];
      expect(rows).toHaveLength(3);
      for (const row of rows) expect(row.study_id).toBe(listener.study_id);
    }
    // A position only the larger study has is not a trial of the smaller study's session.
    const beyond = later.state.progress.total;
    expect((await vote(large[0].token, beyond)).status).toBe(200);
    expect((await vote(later.token, beyond)).body.error).toBe('not_assigned');
  });

  it('asks for the headphone check once the study starts requiring it, and not after it was done', async () => {
    const { token } = await start('later');
    expect((await vote(token, 0)).status).toBe(200);
    const require = (on: boolean) =>
      other.prepare("UPDATE studies SET definition = json_set(definition, '$.screening', json(?)) WHERE id = 'later'")
        .run(JSON.stringify({ kind: 'antiphase', required: on }));
    require(true);
    try {
      expect((await vote(token, 1)).body.error).toBe('screening_required');
      // Once a vote is stored the check can no longer be recorded: the stored vote keeps its place.
      expect((await takeScreening(server.url, token, 'antiphase', true)).body.error).toBe('screening_recorded');
      const fresh = await start('later');
      expect((await vote(fresh.token, 0)).body.error).toBe('screening_required');
      expect((await takeScreening(server.url, fresh.token, 'antiphase', true)).status).toBe(200);
      expect((await vote(fresh.token, 0)).status).toBe(200);
    } finally {
      require(false);
    }
    expect((await vote(token, 1)).status).toBe(200);
  });

  it('refuses a token it does not know every time, next to one it remembers', async () => {
    const { token } = await start('large');
    expect((await vote(token, 0)).status).toBe(200);
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (let i = 0; i < 2; i++) {
      const refused = await vote(forged, 1);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe('invalid_session');
    }
    expect((await vote(token, 1)).status).toBe(200);
  });
});

describe('the vote writer’s checkpoints', () => {
  it('copies votes into the database file itself (SQLite’s own autocheckpoint is off on its connection)', async () => {
    // Sessions first, then every page they wrote copied into the file, so that afterwards only the
    // writer commits, and only a checkpoint of its own can grow the database file.
    const sessions = await Promise.all(Array.from({ length: 120 }, () => start('many')));
    other.pragma('wal_checkpoint(TRUNCATE)');
    const file = databaseFile({ dataDir: server.dataDir });
    const before = statSync(file).size;
    const trials = sessions[0].state.progress.total;
    for (let position = 0; position < trials; position++) {
      const acks = await Promise.all(sessions.map(({ token }) => vote(token, position)));
      expect(acks.every((a) => a.status === 200)).toBe(true);
    }
    expect(sessions.length * trials).toBeGreaterThanOrEqual(2 * 750); // two checkpoint intervals
    expect(statSync(file).size).toBeGreaterThan(before);
  });
});

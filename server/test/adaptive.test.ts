import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, ratingFor, voteFor } from '../testing/client';

/**
 * The adaptive design through the listener API: a trial looks exactly as under the incomplete
 * design, no item comes twice, and once the vote budget is spent a late listener is told plainly.
 */
let server: TestServer;
let researcher: string;
beforeAll(async () => {
  server = await startTestServer({
    studies: [
      { study: 'adaptive', pairs: 12, attention: 1, practice: 1, design: { kind: 'adaptive', itemsPerListener: 4, stop: { votes: 8 } } },
      { study: 'incomplete', pairs: 12, attention: 1, practice: 1, design: { kind: 'incomplete', itemsPerListener: 4, ratingsPerItem: 5 } },
      { study: 'mos', pairs: 12, attention: 1, practice: 1, rating: {}, design: { kind: 'adaptive', itemsPerListener: 3, stop: { votes: 100 } } },
      { study: 'mos-incomplete', pairs: 12, attention: 1, practice: 1, rating: {}, design: { kind: 'incomplete', itemsPerListener: 3, ratingsPerItem: 5 } },
    ],
  });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
});
afterAll(() => server.close());

/** Every key of a JSON value, with its path (array elements as []), sorted. */
function shape(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return [...new Set(value.flatMap((v) => shape(v, `${path}[]`)))].sort();
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [`${path}.${k}`, ...shape(v, `${path}.${k}`)]).sort();
  return [];
}

async function answerAll(token: string, rating = false): Promise<{ states: any[]; positions: number[] }> {
  const states: any[] = [];
  const positions: number[] = [];
  for (let state = (await call(`${server.url}/api/session`, { token })).body; state.trial; state = (await call(`${server.url}/api/session`, { token })).body) {
    states.push(state);
    positions.push(state.trial.position);
    expect((await call(`${server.url}/api/session/votes`, { body: rating ? ratingFor(state.trial.position, 3) : voteFor(state.trial.position), token })).status).toBe(200);
  }
  return { states, positions };
}

describe('adaptive design over the listener API', () => {
  it('serves trials of the same shape as the incomplete design, each item once, then refuses a late listener', async () => {
    const a = await call(`${server.url}/api/sessions`, { body: { study: 'adaptive', external: { PROLIFIC_PID: 'p1', STUDY_ID: 'st' } } });
    const i = await call(`${server.url}/api/sessions`, { body: { study: 'incomplete', external: { PROLIFIC_PID: 'p1' } } });
    expect(a.status).toBe(201);
    expect(a.body.state.progress).toEqual({ done: 0, total: 6 });
    expect(shape(a.body.state.trial)).toEqual(shape(i.body.state.trial));
    expect(shape(a.body.state.upcoming[0])).toEqual(shape(i.body.state.upcoming[0]));
    const first = await answerAll(a.body.token);
    expect(first.positions).toEqual([0, 1, 2, 3, 4, 5]);
    // The upcoming trial a page prefetched is the trial it then gets.
    first.states.slice(0, -1).forEach((s, n) => expect(first.states[n + 1].trial).toEqual(s.upcoming[0]));
    for (const s of first.states.slice(1)) expect(shape(s.trial)).toEqual(shape(i.body.state.trial));

    const second = await call(`${server.url}/api/sessions`, { body: { study: 'adaptive', external: { PROLIFIC_PID: 'p2' } } });
    expect(second.status).toBe(201);
    await answerAll(second.body.token);
    const items = server.app.db
      .prepare("SELECT l.id, count(*) AS n, count(DISTINCT a.item_id) AS distinct_items FROM assignments a JOIN listeners l ON l.id = a.listener_id WHERE l.study_id = 'adaptive' GROUP BY l.id")
      .all() as { n: number; distinct_items: number }[];
    expect(items.map((r) => r.n)).toEqual([6, 6]);
    expect(items.every((r) => r.distinct_items === r.n)).toBe(true);

    // The export names the rule and its settings, and when each vote's item was given.
    const files = (await call(`${server.url}/api/studio/studies/adaptive/export`, { token: researcher })).body as Record<string, string>;
    expect(JSON.parse(files['study.json']).design).toEqual({ kind: 'adaptive', rule: 'bt-uncertainty', itemsPerListener: 4, maxPairRepeats: 2, stop: { votes: 8 }, abandonAfterMinutes: 30 });
    const [header, ...rows] = files['votes.csv'].trim().split('\r\n').map((l) => l.split(','));
    const at = header.indexOf('assigned_at');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row[at]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // 8 scored votes: the budget is spent.
    const late = await call(`${server.url}/api/sessions`, { body: { study: 'adaptive', external: { PROLIFIC_PID: 'p3' } } });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: 'study_complete' });
    // The participant who already has a session still resumes it.
    expect((await call(`${server.url}/api/sessions`, { body: { study: 'adaptive', external: { PROLIFIC_PID: 'p1', STUDY_ID: 'st' } } })).status).toBe(200);
  });

  it('a rating study: the widest-CI rule spreads the first listeners over the systems, trials shaped as under incomplete', async () => {
    const reference = await call(`${server.url}/api/sessions`, { body: { study: 'mos-incomplete' } });
    const systems: string[] = [];
    const system = server.app.db.prepare<[string, number], string>("SELECT i.system_a FROM assignments a JOIN items i ON i.id = a.item_id JOIN listeners l ON l.id = a.listener_id WHERE l.id = ? AND a.position = ?").pluck();
    for (let n = 0; n < 3; n++) {
      const started = await call(`${server.url}/api/sessions`, { body: { study: 'mos' } });
      expect(started.status).toBe(201);
      expect(shape(started.body.state.trial)).toEqual(shape(reference.body.state.trial));
      const listener = server.app.store.sessions.byToken(started.body.token)!;
      const { states } = await answerAll(started.body.token, true);
      for (const s of states) if (!s.trial.practice) systems.push(system.get(listener.id, s.trial.position)!);
    }
    // 3 listeners × 3 scored ratings (+ 1 attention check each): every one of the 3 systems is rated before any has many.
    const counts = ['sysalpha-7b', 'sysbeta-audio', 'sysgamma-large'].map((s) => systems.filter((x) => x === s).length);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(3);
    const files = (await call(`${server.url}/api/studio/studies/mos/export`, { token: researcher })).body as Record<string, string>;
    expect(JSON.parse(files['study.json']).design).toMatchObject({ kind: 'adaptive', rule: 'widest-ci' });
  });
});

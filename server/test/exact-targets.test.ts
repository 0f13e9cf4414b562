/**
 * Exact vote targets (issue 25): under the incomplete design every scored item ends with exactly
 * ratingsPerItem votes, however many listeners abandon, time out and come back. A real server on
 * loopback, real SQLite; abandonment is real waiting (abandonAfterMinutes 0.01 = 0.6 s).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';
import { seededRandom } from '../../analysis/random';
import { hashSessionToken } from '../store/sessions';
import { dashboard } from '../live-report';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Votes per scored item of the study. */
const itemVotes = (s: TestServer, study: string) =>
  s.app.db
    .prepare(
      `SELECT i.id, (SELECT count(*) FROM votes v WHERE v.item_id = i.id) AS n FROM items i
        WHERE i.study_id = ? AND i.kind = i.trial_kind ORDER BY i.seq`,
    )
    .all(study) as { id: string; n: number }[];

/** The listener's scored positions still open. */
const openScored = (s: TestServer, token: string) =>
  (
    s.app.db
      .prepare(
        `SELECT a.position FROM assignments a JOIN items i ON i.id = a.item_id JOIN listeners l ON l.id = a.listener_id
          WHERE l.token_hash = ? AND i.kind = i.trial_kind
            AND NOT EXISTS (SELECT 1 FROM votes v WHERE v.listener_id = a.listener_id AND v.position = a.position)
          ORDER BY a.position`,
      )
      .all(hashSessionToken(token)) as { position: number }[]
  ).map((r) => r.position);

describe('exact vote targets', () => {
  it('50 listeners, 15 of whom abandon at random: every item ends exactly at its target', async () => {
    const ratingsPerItem = 5;
    server = await startTestServer({
      studies: [{ study: 'exact', pairs: 24, attention: 2, practice: 1, design: { kind: 'incomplete', itemsPerListener: 4, ratingsPerItem, abandonAfterMinutes: 0.01 } }],
    });
    const s = server;
    const random = seededRandom(25);
    const abandoning = new Set<number>();
    while (abandoning.size < 15) abandoning.add(Math.floor(random() * 50));
    const refusals: string[] = [];
    let full = 0;
    let completed = 0;

    /** One listener: answers every trial the server offers, or stops for good after `stopAfter` votes. */
    const listen = async (n: number, stopAfter: number) => {
      const start = await call(`${s.url}/api/sessions`, { body: { study: 'exact', external: { PROLIFIC_PID: `p${n}`, STUDY_ID: 'exact' } } });
      if (start.status === 409 && start.body.error === 'study_full') return void full++;
      expect(start.status).toBe(201);
      const token = start.body.token as string;
      for (let votes = 0; votes < stopAfter; votes++) {
        const state = await call(`${s.url}/api/session`, { token });
        if (state.body.completion) return void completed++;
        const trial = state.body.trial;
        if (!trial) return;
        const vote = await call(`${s.url}/api/session/votes`, { token, body: voteFor(trial.position, random() < 0.5 ? 1 : 2) });
        if (vote.status !== 200) refusals.push(vote.body.error);
        await sleep(5);
      }
      const end = await call(`${s.url}/api/session`, { token });
      if (end.body.completion) completed++;
    };

    // Five at a time, as a crowd arrives; an abandoning listener stops after 0–6 of its 7 trials.
    for (let n = 0; n < 50; n += 5) {
      await Promise.all(Array.from({ length: 5 }, (_, k) => listen(n + k, abandoning.has(n + k) ? Math.floor(random() * 7) : Infinity)));
    }
    // Items the abandoners held come back once they have gone quiet; late listeners take them.
    let late = 0;
    while (itemVotes(s, 'exact').some((i) => i.n < ratingsPerItem) && late < 40) {
      await sleep(700);
      await listen(100 + late++, Infinity);
    }

    const votes = itemVotes(s, 'exact');
    expect(votes).toHaveLength(24);
    expect(votes.filter((i) => i.n !== ratingsPerItem)).toEqual([]);
    // The only refusal a listener may meet is a clip that others completed meanwhile.
    expect(refusals.filter((r) => r !== 'item_complete')).toEqual([]);
    expect(completed).toBeGreaterThanOrEqual(24);
    // The dashboard's progress against target says the same.
    expect(dashboard(s.app.db, 'exact', 'open').votes.progress).toEqual({ target: ratingsPerItem, complete: 24, started: 0, waiting: 0 });
    // Once every item is at its target the study takes no one new.
    const after = await call(`${s.url}/api/sessions`, { body: { study: 'exact', external: { PROLIFIC_PID: 'after', STUDY_ID: 'exact' } } });
    expect(after.status).toBe(409);
    expect(after.body.error).toBe('study_full');
  }, 120_000);

  it('a listener who timed out and came back after others filled their items: the vote is refused, the trials given back, the session finishes', async () => {
    server = await startTestServer({
      studies: [{ study: 'back', pairs: 2, attention: 1, practice: 0, design: { kind: 'incomplete', itemsPerListener: 2, ratingsPerItem: 1, abandonAfterMinutes: 0.01 } }],
    });
    const s = server;
    const start = async (pid: string) => (await call(`${s.url}/api/sessions`, { body: { study: 'back', external: { PROLIFIC_PID: pid, STUDY_ID: 'back' } } })).body.token as string;
    const away = await start('away');
    const [first] = openScored(s, away);
    await sleep(700); // `away` goes quiet past the time limit: its items are free again
    const other = await start('other');
    for (;;) {
      const state = await call(`${s.url}/api/session`, { token: other });
      if (!state.body.trial) break;
      expect((await call(`${s.url}/api/session/votes`, { token: other, body: voteFor(state.body.trial.position) })).status).toBe(200);
    }
    expect(itemVotes(s, 'back').map((i) => i.n)).toEqual([1, 1]);

    // Back again, answering the trial it still had on screen.
    const refused = await call(`${s.url}/api/session/votes`, { token: away, body: voteFor(first) });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('item_complete');
    const state = await call(`${s.url}/api/session`, { token: away });
    expect(openScored(s, away)).toEqual([]);
    expect(state.body.progress.total).toBe(1); // the attention check is all that is left
    expect((await call(`${s.url}/api/session/votes`, { token: away, body: voteFor(state.body.trial.position) })).status).toBe(200);
    const end = await call(`${s.url}/api/session`, { token: away });
    expect(end.body.completion).not.toBeNull();
    expect(itemVotes(s, 'back').map((i) => i.n)).toEqual([1, 1]);
  }, 30_000);
});

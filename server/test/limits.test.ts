import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';
import { RateWindows } from '../plugins/security';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    studies: [{ study: 'limited', pairs: 12 }],
    app: { rateLimits: { sessionsPerIp: 3, votesPerIp: 1000, votesPerSession: 4 } },
  });
});
afterAll(() => server.close());

describe('rate limits', () => {
  it('limits session starts per address and votes per session, with a JSON 429', async () => {
    const starts = [];
    for (let i = 0; i < 4; i++) starts.push(await call(`${server.url}/api/sessions`, { body: { study: 'limited' } }));
    expect(starts.map((s) => s.status)).toEqual([201, 201, 201, 429]);
    expect(starts[3].body).toMatchObject({ error: 'rate_limited', message: expect.any(String) });
    expect(Number(starts[3].headers.get('retry-after'))).toBeGreaterThan(0);

    const [one, two] = [starts[0].body.token, starts[1].body.token];
    const votes = [];
    for (let p = 0; p < 5; p++) votes.push((await call(`${server.url}/api/session/votes`, { token: one, body: voteFor(p) })).status);
    expect(votes).toEqual([200, 200, 200, 200, 429]);
    // Another listener behind the same address is not held back by the first one's limit.
    expect((await call(`${server.url}/api/session/votes`, { token: two, body: voteFor(0) })).status).toBe(200);
  });
});

describe('RateWindows', () => {
  it('counts per key in one-minute windows and says how long to wait', () => {
    const windows = new RateWindows();
    const t = 1_000_000;
    expect([1, 2, 3].map(() => windows.hit('a', 2, t))).toEqual([0, 0, 60]);
    expect(windows.hit('b', 2, t)).toBe(0);
    expect(windows.hit('a', 2, t + 59_500)).toBe(1);
    // The window restarts a minute after its first request.
    expect(windows.hit('a', 2, t + 60_000)).toBe(0);
  });

  it('drops the oldest windows when made-up keys flood it, and never refuses a key it forgot', () => {
    const windows = new RateWindows(100);
    const t = 5_000_000;
    expect(windows.hit('real', 1, t)).toBe(0);
    expect(windows.hit('real', 1, t)).toBeGreaterThan(0);
    for (let i = 0; i < 1000; i++) expect(windows.hit(`made-up-${i}`, 1, t + 1)).toBe(0);
    // Forgotten: counted afresh, so allowed again (a weaker limit under a flood, never a wrong refusal).
    expect(windows.hit('real', 1, t + 2)).toBe(0);
    // The latest keys are still counted.
    expect(windows.hit('made-up-999', 1, t + 2)).toBeGreaterThan(0);
  });
});

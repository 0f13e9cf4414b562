import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';

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

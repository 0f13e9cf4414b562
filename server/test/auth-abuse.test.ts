import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call } from '../testing/client';

/** Staff authentication under abuse: failure limits before key derivation, even timing, the sign-in cookie. */
let server: TestServer;
let researcher = '';
let revoked = '';
let verifications = 0;
beforeAll(async () => {
  server = await startTestServer({
    studies: [{ study: 'guarded' }],
    app: { rateLimits: { sessionsPerIp: 1000, votesPerIp: 1000, votesPerSession: 1000, authFailuresPerIp: 5, authFailuresPerToken: 5 } },
  });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
  const old = await server.app.store.accessTokens.create('researcher');
  server.app.store.accessTokens.revoke(old.id);
  revoked = old.token;
  // Counts key derivations: every verify() runs exactly one.
  const verify = server.app.store.accessTokens.verify;
  server.app.store.accessTokens.verify = (token: string) => {
    verifications += 1;
    return verify(token);
  };
});
afterAll(() => server.close());

function getFrom(from: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, localAddress: from, path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const wrongSecret = (token: string) => `${token.split('.')[0]}.${'x'.repeat(43)}`;

describe('failed staff authentications', () => {
  it('are limited per address before any key derivation; other addresses and a valid token still pass', async () => {
    const from = '127.0.0.7';
    const before = verifications;
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await getFrom(from, '/api/studio/studies', bearer(`feed${i}.nope`))).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    // Only the five counted failures ran scrypt; the 35 refused after them cost none.
    expect(verifications - before).toBe(5);
    const limited = await getFrom(from, '/api/studio/studies', bearer(`feed-more.nope`));
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Issue 20.5: a valid token is not blocked by the failures of its address (today's main: 429).
    expect((await getFrom(from, '/api/studio/studies', bearer(researcher))).status).toBe(200);
    expect((await getFrom('127.0.0.8', '/api/studio/studies', bearer(researcher))).status).toBe(200);
  });

  it('are limited per token id across addresses', async () => {
    const victim = (await server.app.store.accessTokens.create('analyst')).token;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await getFrom(`127.0.1.${i + 1}`, '/api/studio/studies', bearer(wrongSecret(victim)))).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const before = verifications;
    expect((await getFrom('127.0.1.20', '/api/studio/studies', bearer(wrongSecret(victim)))).status).toBe(429);
    expect(verifications).toBe(before);
  });

  it('take as long for unknown, malformed and revoked ids as for a wrong secret', async () => {
    const tokens = server.app.store.accessTokens;
    const kinds = {
      wrong: wrongSecret(researcher),
      unknown: `0123456789ab.${'y'.repeat(43)}`,
      malformed: 'no-dot-at-all',
      revoked,
    };
    // Round-robin, so a load spike on the machine hits every kind alike.
    const times = Object.fromEntries(Object.keys(kinds).map((k) => [k, [] as number[]]));
    for (let i = 0; i < 15; i++) {
      for (const [kind, token] of Object.entries(kinds)) {
        const t0 = performance.now();
        expect(await tokens.verify(token)).toBeNull();
        times[kind].push(performance.now() - t0);
      }
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[7];
    const wrong = median(times.wrong);
    const others = { unknown: median(times.unknown), malformed: median(times.malformed), revoked: median(times.revoked) };
    console.log(`verify medians (ms): wrong secret ${wrong.toFixed(1)}, ${Object.entries(others).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}`);
    for (const [kind, ms] of Object.entries(others)) {
      expect(ms / wrong, kind).toBeGreaterThan(0.5);
      expect(ms / wrong, kind).toBeLessThan(2);
    }
  });
});

describe('studio sign-in cookie', () => {
  it('is HttpOnly and SameSite=Strict, works without a bearer header, and signs out', async () => {
    const from = '127.0.0.9';
    const bad = await call(`${server.url}/api/studio/session`, { body: { token: wrongSecret(researcher) }, headers: {} });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();

    const signIn = await call(`${server.url}/api/studio/session`, { body: { token: researcher } });
    expect(signIn.status).toBe(200);
    expect(signIn.body).toEqual({ role: 'researcher' });
    const cookie = signIn.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^earmark_staff=[^;]+; Path=\/api; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    const pair = cookie.split(';')[0];

    expect((await getFrom(from, '/api/studio/session', { cookie: pair })).body).toEqual({ role: 'researcher' });
    expect((await getFrom(from, '/api/studio/studies', { cookie: `theme=dark; ${pair}` })).status).toBe(200);
    // The bearer header still works for the CLI and scripts.
    expect((await getFrom(from, '/api/studio/studies', bearer(researcher))).status).toBe(200);
    expect((await getFrom(from, '/api/studio/session', {})).status).toBe(401);

    const out = await call(`${server.url}/api/studio/session`, { method: 'DELETE', headers: { 'x-earmark-request': '1' } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^earmark_staff=; Path=\/api; HttpOnly; SameSite=Strict; Max-Age=0$/);
  });

  it('is Secure over HTTPS (a trusted proxy saying so), and a revoked token behind a cookie stops working', async () => {
    const behind = await startTestServer({ studies: [{ study: 'p' }], trustProxy: '127.0.0.1' });
    try {
      const token = await behind.app.store.accessTokens.create('researcher');
      const https = await call(`${behind.url}/api/studio/session`, { body: { token: token.token }, headers: { 'x-forwarded-proto': 'https' } });
      expect(https.headers.get('set-cookie')).toMatch(/; Secure$/);
      const pair = https.headers.get('set-cookie')!.split(';')[0];
      expect((await call(`${behind.url}/api/studio/studies`, { headers: { cookie: pair } })).status).toBe(200);
      behind.app.store.accessTokens.revoke(token.id);
      expect((await call(`${behind.url}/api/studio/studies`, { headers: { cookie: pair } })).status).toBe(401);
    } finally {
      await behind.close();
    }
  });
});

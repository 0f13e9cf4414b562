import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, takeScreening, voteFor } from '../testing/client';
import { parseStudyYaml, StudyDefinitionError } from '../../studies/parse';
import { hashSessionToken } from '../store/sessions';

/** The small holes of the second trust round, the request log and slow connections. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    studies: [{ study: 'holes' }, { study: 'both-checks', screening: 'both' }],
    app: { connectionLimits: { bodyGraceMs: 1000, headersTimeoutMs: 2000, minBodyBytesPerSecond: 1024 } },
  });
});
afterAll(() => server.close());

const start = async (study = 'holes') => (await call(`${server.url}/api/sessions`, { body: { study } })).body.token as string;
const storedScreening = (token: string) =>
  JSON.parse((server.app.db.prepare('SELECT screening FROM listeners WHERE token_hash = ?').get(hashSessionToken(token)) as { screening: string }).screening);

describe('small holes', () => {
  it('records the headphone result once: no overwrite after a pass or fail, none after the first vote', async () => {
    const token = await start();
    expect((await takeScreening(server.url, token, 'antiphase', false)).status).toBe(200);
    const again = await takeScreening(server.url, token, 'antiphase', true);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'screening_recorded', field: 'kind' });
    expect(storedScreening(token)).toMatchObject({ kind: 'antiphase', passed: false });

    // A study asking for both checks keeps both, failed if either failed; nothing after the first vote.
    const both = await start('both-checks');
    expect((await takeScreening(server.url, both, 'antiphase', true)).status).toBe(200);
    expect((await takeScreening(server.url, both, 'huggins', false)).status).toBe(200);
    expect(storedScreening(both)).toMatchObject({ kind: 'both', passed: false, results: [{ kind: 'antiphase', passed: true }, { kind: 'huggins', passed: false }] });
    expect((await takeScreening(server.url, both, 'huggins', true)).status).toBe(409);

    const voted = await start('both-checks');
    expect((await call(`${server.url}/api/session/votes`, { token: voted, body: voteFor(0) })).status).toBe(200);
    const late = await takeScreening(server.url, voted, 'antiphase', true);
    expect(late.body).toMatchObject({ error: 'screening_recorded' });
  });

  it('refuses the nil and max UUIDs as vote ids', async () => {
    const token = await start();
    for (const voteId of ['00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF']) {
      const res = await call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 1, { voteId }) });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_request', field: 'voteId' });
    }
    expect((server.app.db.prepare("SELECT count(*) AS n FROM votes WHERE id LIKE '00000000%' OR id LIKE 'ffffffff%'").get() as { n: number }).n).toBe(0);
  });

  it('accepts only an http(s) completion.redirectUrl, naming the line and field otherwise', () => {
    const template = readFileSync(fileURLToPath(new URL('../../studies/templates/metaset-caption-preference.yaml', import.meta.url)), 'utf8');
    const line = template.split('\n').findIndex((l) => l.includes('redirectUrl:')) + 1;
    expect(() => parseStudyYaml(template)).not.toThrow();
    for (const url of ['javascript:alert(document.cookie)', 'data:text/html,<script>x</script>', 'ftp://example.org/done', '//example.org/done']) {
      const yaml = template.replace(/redirectUrl: .*/, `redirectUrl: "${url}"`);
      let problems: StudyDefinitionError['problems'] = [];
      try {
        parseStudyYaml(yaml);
      } catch (error) {
        problems = (error as StudyDefinitionError).problems;
      }
      expect(problems, url).toEqual([expect.objectContaining({ line, field: 'completion.redirectUrl', message: expect.stringMatching(/http:\/\/ or https:\/\//) })]);
    }
  });

  it('says forbidden in every 403 and answers a position outside the session with 409 not_assigned', async () => {
    const analyst = (await server.app.store.accessTokens.create('analyst')).token;
    const denied = await call(`${server.url}/api/studio/studies/holes/open`, { method: 'POST', token: analyst });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('forbidden');
    const outside = await call(`${server.url}/api/session/votes`, { token: await start(), body: voteFor(500) });
    expect(outside.status).toBe(409);
    expect(outside.body).toMatchObject({ error: 'not_assigned', field: 'position' });
  });

  it('sends HSTS only over HTTPS, as a trusted proxy reports it', async () => {
    const plain = await call(`${server.url}/api/studies/holes/intro`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(plain.headers.get('strict-transport-security')).toBeNull();
    const behind = await startTestServer({ studies: [{ study: 'p' }], trustProxy: '127.0.0.1' });
    try {
      expect((await call(`${behind.url}/api/studies/p/intro`)).headers.get('strict-transport-security')).toBeNull();
      const https = await call(`${behind.url}/api/studies/p/intro`, { headers: { 'x-forwarded-proto': 'https' } });
      expect(https.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
    } finally {
      await behind.close();
    }
  });
});

describe('request log', () => {
  it('is off by default, and when on never holds a token, a report ticket or a sign-in body', async () => {
    const quiet: string[] = [];
    const loud: string[] = [];
    const run = async (requestLog: boolean, lines: string[]) => {
      const s = await startTestServer({ studies: [{ study: 'logged' }], requestLog, app: { logStream: { write: (l: string) => void lines.push(l) } } });
      try {
        const { token } = await s.app.store.accessTokens.create('researcher');
        await call(`${s.url}/api/studio/session`, { body: { token } });
        await call(`${s.url}/api/studio/studies`, { token });
        const { url } = (await call(`${s.url}/api/reports/logged/html-link`, { method: 'POST', token })).body;
        expect((await fetch(`${s.url}${url}`)).status).toBe(200);
        return { token, ticket: new URL(url, s.url).searchParams.get('ticket')! };
      } finally {
        await s.close();
      }
    };
    await run(false, quiet);
    expect(quiet.filter((l) => /incoming request|request completed/.test(l))).toEqual([]);
    const secrets = await run(true, loud);
    const log = loud.join('');
    expect(log).toMatch(/incoming request/);
    expect(log).toContain('ticket=[redacted]');
    expect(log).not.toContain(secrets.ticket);
    expect(log).not.toContain(secrets.token);
    expect(log).not.toContain(secrets.token.split('.')[1]);
  });
});

describe('slow connections', () => {
  it('cuts connections that trickle headers or a body, while listeners keep getting answers', async () => {
    const { port } = new URL(server.url);
    const slow: { socket: Socket; closed: Promise<string> }[] = [];
    const open = (first: string) => {
      const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.10' });
      let received = '';
      socket.on('data', (d) => (received += d));
      socket.on('error', () => undefined);
      const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
      socket.write(first);
      slow.push({ socket, closed });
    };
    for (let i = 0; i < 20; i++) open(`POST /api/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{`);
    for (let i = 0; i < 20; i++) open('GET /api/studies/holes/intro HTTP/1.1\r\nHost: x\r\n');
    // Refused at once (no session token) while the body still trickles in behind the answer.
    for (let i = 0; i < 5; i++) open(`POST /api/session/votes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{`);
    // One byte every 300 ms on each: a second header line never ends, a body never completes.
    const drip = setInterval(() => {
      for (const { socket } of slow) if (!socket.destroyed) socket.write(' ');
    }, 300);
    try {
      const t0 = Date.now();
      const answered: number[] = [];
      const token = await start();
      while (Date.now() - t0 < 2500) {
        const a = Date.now();
        expect((await call(`${server.url}/api/studies/holes/intro`)).status).toBe(200);
        answered.push(Date.now() - a);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) })).status).toBe(200);
      const outcomes = await Promise.race([
        Promise.all(slow.map((s) => s.closed)),
        new Promise<null>((r) => setTimeout(() => r(null), 6000)),
      ]);
      expect(outcomes, 'every slow connection closed by the server').not.toBeNull();
      const bodies = outcomes!.slice(0, 20);
      for (const text of bodies) expect(text).toMatch(/^HTTP\/1\.1 408/);
      expect(Math.max(...answered)).toBeLessThan(1000);
      console.log(`slow connections: ${slow.length} cut after ${Date.now() - t0} ms; ${answered.length} listener requests meanwhile, slowest ${Math.max(...answered)} ms`);
    } finally {
      clearInterval(drip);
      for (const { socket } of slow) socket.destroy();
    }
  }, 20_000);

  it('caps connections per address', async () => {
    const capped = await startTestServer({ studies: [{ study: 'c' }], app: { connectionLimits: { connectionsPerAddress: 10 } } });
    const { port } = new URL(capped.url);
    const sockets: Socket[] = [];
    try {
      const closed = await Promise.all(
        Array.from({ length: 15 }, () => {
          const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.11' });
          sockets.push(socket);
          socket.on('error', () => undefined);
          return new Promise<boolean>((resolve) => {
            socket.on('close', () => resolve(true));
            setTimeout(() => resolve(false), 1500);
          });
        }),
      );
      expect(closed.filter(Boolean)).toHaveLength(5);
      expect((await call(`${capped.url}/api/studies/c/intro`)).status).toBe(200);
    } finally {
      for (const s of sockets) s.destroy();
      await capped.close();
    }
  });
});

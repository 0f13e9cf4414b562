import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Polls `url` until `done(status)` or `withinMs` pass; returns the time it took and the last answer. */
async function until(url: string, done: (status: number) => boolean, withinMs: number) {
  const started = performance.now();
  for (;;) {
    const answer = await call(url);
    if (done(answer.status) || performance.now() - started > withinMs) return { ms: performance.now() - started, answer };
    await new Promise((r) => setTimeout(r, 20));
  }
}

const staffToken = async (s: TestServer) => (await s.app.store.accessTokens.create('analyst', 'ops test')).token;

describe('health and readiness', () => {
  it('/healthz answers while the process runs; /readyz is ready with a live vote writer', async () => {
    server = await startTestServer();
    expect(await call(`${server.url}/healthz`)).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await call(`${server.url}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready', problems: [] } });
  });

  it('goes unready within 2 s when the vote writer thread dies, refuses votes with 503 meanwhile, and is ready again once the thread is restarted', async () => {
    const fatal: Error[] = [];
    server = await startTestServer({ studies: [{ study: 'ops', pairs: 6 }], app: { voteWriter: { restartDelayMs: 1500 }, onFatal: (e) => fatal.push(e) } });
    const { token } = (await call(`${server.url}/api/sessions`, { body: { study: 'ops' } })).body;
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) })).status).toBe(200);

    await server.app.voteWriter.thread!.terminate();
    const down = await until(`${server.url}/readyz`, (s) => s === 503, 2000);
    expect(down.answer.status).toBe(503);
    expect(down.ms).toBeLessThan(2000);
    expect(down.answer.body.problems[0]).toMatch(/vote writer thread is not running/);
    const refused = await call(`${server.url}/api/session/votes`, { token, body: voteFor(1) });
    expect(refused.status).toBe(503);

    const up = await until(`${server.url}/readyz`, (s) => s === 200, 10_000);
    expect(up.answer.status).toBe(200);
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(1) })).status).toBe(200);
    expect(server.app.db.prepare('SELECT count(*) FROM votes').pluck().get()).toBe(2);
    expect(fatal).toEqual([]);
    const metrics = (await call(`${server.url}/metrics`)).text;
    expect(metrics).toMatch(/^earmark_vote_writer_restarts_total 1$/m);
    expect(metrics).toMatch(/^earmark_votes_refused_total\{reason="writer_down"\} 1$/m);
  });

  it('gives up when the writer keeps dying: onFatal is called (main.ts exits for the service manager) and /readyz stays unready', async () => {
    const fatal: Error[] = [];
    server = await startTestServer({ app: { voteWriter: { maxRestarts: 0 }, onFatal: (e) => fatal.push(e) } });
    await server.app.voteWriter.thread!.terminate();
    const down = await until(`${server.url}/readyz`, (s) => s === 503, 2000);
    expect(down.answer.status).toBe(503);
    expect(fatal).toHaveLength(1);
    expect(fatal[0].message).toMatch(/vote writer stopped/);
    await new Promise((r) => setTimeout(r, 300));
    expect((await call(`${server.url}/readyz`)).status).toBe(503);
  });
});

describe('/metrics', () => {
  it('serves Prometheus text to loopback: request latency by route, votes acknowledged and refused by reason, batches, commit time, WAL, event loop, live reports', async () => {
    server = await startTestServer({ studies: [{ study: 'm', pairs: 6 }] });
    const { token } = (await call(`${server.url}/api/sessions`, { body: { study: 'm' } })).body;
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) })).status).toBe(200);
    // The same vote at another position: refused by the writer (not an answer to that trial or a duplicate).
    const again = await call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 2) });
    expect(again.status).toBeGreaterThanOrEqual(400);
    const analyst = await staffToken(server);
    expect((await call(`${server.url}/api/reports/m`, { token: analyst })).status).toBe(200);

    const scrape = await call(`${server.url}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = scrape.text;
    expect(text).toMatch(/^earmark_http_request_duration_seconds_count\{method="POST",route="\/api\/session\/votes",status="200"\} 1$/m);
    expect(text).toMatch(/^earmark_http_request_duration_seconds_bucket\{method="POST",route="\/api\/sessions",status="201",le="\+Inf"\} 1$/m);
    expect(text).toMatch(/^earmark_votes_acknowledged_total 1$/m);
    expect(text).toMatch(new RegExp(`^earmark_votes_refused_total\\{reason="${again.body.error}"\\} 1$`, 'm'));
    expect(text).toMatch(/^earmark_vote_batch_votes_count 2$/m);
    expect(text).toMatch(/^earmark_vote_commit_duration_seconds_count 2$/m);
    expect(text).toMatch(/^earmark_wal_bytes [1-9]\d*$/m);
    expect(text).toMatch(/^earmark_event_loop_delay_seconds\{quantile="0.99"\} [\d.e+-]+$/m);
    expect(text).toMatch(/^earmark_live_report_duration_seconds_count\{figure="report"\} 1$/m);
    expect(text).toMatch(/^earmark_vote_writer_up 1$/m);
    // Every sample line is `name{labels} value`, every family has HELP and TYPE.
    for (const line of text.trim().split('\n')) expect(line).toMatch(/^(# (HELP|TYPE) \w+ .+|\w+(\{[^}]*\})? -?[\d.e+-]+|\w+(\{[^}]*\})? (NaN|\+Inf))$/);
  });

  it('through a proxy (X-Forwarded-For) or from another address it needs a staff token', async () => {
    server = await startTestServer();
    const proxied = await call(`${server.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(proxied.status).toBe(401);
    expect(proxied.text).not.toMatch(/earmark_/);
    const remote = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9' });
    expect(remote.statusCode).toBe(401);
    const analyst = await staffToken(server);
    expect((await call(`${server.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' }, token: analyst })).status).toBe(200);
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../config';
import { startTestServer, type TestServer } from '../testing/server';
import { call } from '../testing/client';

/**
 * Behind a reverse proxy (docs/deploy.md) every request comes from the proxy's address. With
 * --trust-proxy the forwarded headers of that proxy are believed: rate limits count listeners,
 * not the proxy, and the studio's links carry the public https origin. Without it, nothing a
 * client sends in those headers is believed.
 */
const FORWARDED = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'study.example.org' };
let proxied: TestServer;
let direct: TestServer;

const start = (server: TestServer, forwardedFor: string) =>
  call(`${server.url}/api/sessions`, { body: { study: 'seeded', external: {} }, headers: { 'x-forwarded-for': forwardedFor } });

beforeAll(async () => {
  const app = { rateLimits: { sessionsPerIp: 2, votesPerIp: 1000, votesPerSession: 1000 } };
  proxied = await startTestServer({ studies: [{ study: 'seeded' }], app, trustProxy: '127.0.0.1' });
  direct = await startTestServer({ studies: [{ study: 'seeded' }], app });
});
afterAll(async () => {
  await proxied.close();
  await direct.close();
});

describe('behind a reverse proxy', () => {
  it('counts session starts per forwarded listener address when the proxy is trusted, per connection otherwise', async () => {
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.1']) expect((await start(proxied, ip)).status, ip).toBe(201);
    expect((await start(proxied, '203.0.113.1')).status).toBe(429);

    // Untrusted, a forged X-Forwarded-For buys nothing: the loopback connection is the key.
    expect((await start(direct, '203.0.113.1')).status).toBe(201);
    expect((await start(direct, '203.0.113.2')).status).toBe(201);
    expect((await start(direct, '203.0.113.3')).status).toBe(429);
  });

  it('gives the researcher https links on the public host only through the trusted proxy', async () => {
    for (const [server, origin] of [[proxied, 'https://study.example.org'], [direct, direct.url]] as const) {
      const researcher = (await server.app.store.accessTokens.create('researcher')).token;
      const detail = await call(`${server.url}/api/studio/studies/seeded`, { token: researcher, headers: FORWARDED });
      expect(detail.status, detail.text).toBe(200);
      expect(detail.body.links.plain).toBe(`${origin}/s/seeded`);
    }
  });

  it('reads the proxy from --trust-proxy or EARMARK_TRUST_PROXY; unset believes no one', () => {
    expect(configFromEnv({ 'trust-proxy': '127.0.0.1,::1' }, {}).trustProxy).toBe('127.0.0.1,::1');
    expect(configFromEnv({}, { EARMARK_TRUST_PROXY: '10.0.0.2' }).trustProxy).toBe('10.0.0.2');
    expect(configFromEnv({}, { EARMARK_TRUST_PROXY: '' }).trustProxy).toBe(false);
    expect(configFromEnv({}, {}).trustProxy).toBe(false);
  });
});

describe('the files docs/deploy.md installs', () => {
  const file = (name: string) => readFileSync(fileURLToPath(new URL(`../../docs/deploy/${name}`, import.meta.url)), 'utf8');
  const unitValues = (text: string, key: string) => [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]);

  it('configure a loopback server that trusts only the local proxy, on the port Caddy forwards to', () => {
    const unit = file('earmark.service');
    const env = Object.fromEntries(unitValues(unit, 'Environment').map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
    const config = configFromEnv({}, env);
    expect(config).toMatchObject({ dataDir: '/srv/earmark/data', host: '127.0.0.1', trustProxy: '127.0.0.1', demo: false, synchronous: 'FULL' });
    expect(file('Caddyfile')).toContain(`reverse_proxy 127.0.0.1:${config.port}`);
    expect(unitValues(unit, 'ExecStart')).toEqual(['/usr/bin/node /opt/earmark/bin/earmark.mjs start']);
  });

  it('back up the same data directory with the backup command into a folder, hourly', () => {
    const unit = file('earmark-backup.service');
    expect(unitValues(unit, 'Environment')).toContain('EARMARK_DATA=/srv/earmark/data');
    const [backup] = unitValues(unit, 'ExecStart');
    expect(backup).toBe('/usr/bin/node /opt/earmark/bin/earmark.mjs backup /srv/earmark-backups/');
    expect(existsSync(fileURLToPath(new URL('../../bin/earmark.mjs', import.meta.url)))).toBe(true);
    expect(unitValues(file('earmark-backup.timer'), 'OnCalendar')).toEqual(['hourly']);
  });
});

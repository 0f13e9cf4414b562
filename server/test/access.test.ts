import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';

let server: TestServer;
let researcher: string;
let analyst: string;
const cli = (script: string, ...args: string[]) =>
  execFileSync(process.execPath, ['--import', 'tsx', join('server', 'cli', script), ...args, '--data', server.dataDir], {
    encoding: 'utf8',
  });

beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'access' }] });
  // Tokens come from the real CLI, against the live server's database.
  researcher = cli('admin.ts', 'token', 'create', '--role', 'researcher', '--label', 'lab').trim().split('\n').at(-1)!;
  analyst = cli('admin.ts', 'token', 'create', '--role', 'analyst').trim().split('\n').at(-1)!;
});
afterAll(() => server.close());

describe('researcher and analyst access', () => {
  it('stores only salted scrypt hashes', () => {
    const rows = server.app.db.prepare('SELECT id, salt, hash FROM access_tokens').all() as any[];
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.salt).toMatch(/^[0-9a-f]{32}$/);
      expect(researcher).not.toContain(row.hash);
    }
  });

  it('refuses without a valid token (401) and with the wrong role (403)', async () => {
    const list = `${server.url}/api/studio/studies`;
    expect((await call(list)).status).toBe(401);
    expect((await call(list, { token: 'nothing' })).status).toBe(401);
    expect((await call(list, { token: `${researcher.split('.')[0]}.wrongsecret` })).status).toBe(401);
    expect((await call(list, { headers: { authorization: `Basic ${researcher}` } })).status).toBe(401);
    const denied = await call(`${server.url}/api/studio/studies/access/pause`, { token: analyst, body: {} });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'forbidden', message: expect.any(String) });
    // A listener's session token is not an access token.
    const session = await call(`${server.url}/api/sessions`, { body: { study: 'access' } });
    expect((await call(list, { token: session.body.token })).status).toBe(401);
  });

  it('lists studies, changes status and exports the bundle', async () => {
    const session = await call(`${server.url}/api/sessions`, { body: { study: 'access' } });
    await call(`${server.url}/api/session/votes`, { token: session.body.token, body: voteFor(0) });
    await call(`${server.url}/api/session/votes`, { token: session.body.token, body: voteFor(1) });
    const list = await call(`${server.url}/api/studio/studies`, { token: analyst });
    // Scored items only (6 pairs; the 2 attention checks and 1 practice trial apart), as validate counts them.
    expect(list.body.studies[0]).toMatchObject({ id: 'access', status: 'open', items: 6, votes: 2 });

    const paused = await call(`${server.url}/api/studio/studies/access/pause`, { token: researcher, body: {} });
    expect(paused.body.status).toBe('paused');
    expect((await call(`${server.url}/api/sessions`, { body: { study: 'access' } })).status).toBe(409);
    // open, pause and close are the only actions; draft is never a target
    const toDraft = await call(`${server.url}/api/studio/studies/access/draft`, { token: researcher, body: {} });
    expect(toDraft.body).toMatchObject({ error: 'invalid_request', field: 'action' });
    expect((await call(`${server.url}/api/studio/studies/nope/open`, { token: researcher, body: {} })).status).toBe(404);
    // The route keeps the study's status rules: closed is final.
    const closed = await call(`${server.url}/api/studio/studies/access/close`, { token: researcher, body: {} });
    expect(closed.body.status).toBe('closed');
    const reopen = await call(`${server.url}/api/studio/studies/access/open`, { token: researcher, body: {} });
    expect(reopen.status).toBe(409);
    expect(reopen.body.message).toMatch(/closed study stays closed/);
    expect((await call(`${server.url}/api/studio/studies`, { token: analyst })).body.studies[0].status).toBe('closed');

    const exported = await call(`${server.url}/api/studio/studies/access/export`, { token: analyst });
    expect(exported.status).toBe(200);
    const items = exported.body['items.csv'].trim().split('\r\n');
    expect(items[0]).toBe('item_id,utterance_id,system_a,system_b,attention,expected,kind');
    expect(items).toHaveLength(1 + 8); // practice trials are not data
    const votes = exported.body['votes.csv'].trim().split('\r\n');
    expect(votes[0].startsWith('item_id,listener_id,first,chosen,')).toBe(true);
    expect(exported.body['judge_scores.csv'].split('\r\n')[0]).toBe('utterance_id,system,judge,run,score');

    // The CLI writes the same files.
    const dir = mkdtempSync(join(tmpdir(), 'earmark-export-'));
    cli('export.ts', 'access', dir);
    for (const name of ['items.csv', 'votes.csv', 'judge_scores.csv']) {
      expect(readFileSync(join(dir, name), 'utf8')).toBe(exported.body[name]);
    }
  });

  it('revoked tokens stop working', async () => {
    const id = analyst.split('.')[0];
    expect(cli('admin.ts', 'token', 'list')).toContain(id);
    cli('admin.ts', 'token', 'revoke', id);
    expect((await call(`${server.url}/api/studio/studies`, { token: analyst })).status).toBe(401);
  });
});

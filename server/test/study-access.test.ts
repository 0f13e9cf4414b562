import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call } from '../testing/client';

/**
 * Issue 21.11: a researcher or analyst token limited to named studies (`npm run admin -- token
 * create --study a --study b`) reaches those studies only, on every staff route; the studio lists
 * only them. Tokens come from the real CLI against the live server's database.
 */
let server: TestServer;
const tokens: Record<'researcher' | 'analyst' | 'limitedResearcher' | 'limitedAnalyst', string> = {} as never;
const cli = (...args: string[]) =>
  execFileSync(process.execPath, ['--import', 'tsx', join('server', 'cli', 'admin.ts'), ...args, '--data', server.dataDir], { encoding: 'utf8' });
const created = (out: string) => out.trim().split('\n').at(-1)!;

beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'alpha' }, { study: 'beta' }, { study: 'gamma' }] });
  tokens.researcher = created(cli('token', 'create', '--role', 'researcher'));
  tokens.analyst = created(cli('token', 'create', '--role', 'analyst'));
  tokens.limitedResearcher = created(cli('token', 'create', '--role', 'researcher', '--study', 'alpha', '--study', 'fresh'));
  tokens.limitedAnalyst = created(cli('token', 'create', '--role', 'analyst', '--study', 'alpha', '--study', 'gamma'));
});
afterAll(() => server.close());

/** Every route the server has, as [method, path], read from Fastify's own route tree. */
function routes(): [string, string][] {
  const stack: string[] = [];
  const out: [string, string][] = [];
  for (const line of server.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + m[2];
    stack.push(path);
    for (const method of (m[3] ?? '').split(', ').filter((x) => x && x !== 'HEAD')) out.push([method, path]);
  }
  return out;
}

const request = (method: string, path: string, token: string) =>
  call(`${server.url}${path}`, { method, token, ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) });

describe('tokens limited to named studies', () => {
  it('every staff route naming a study answers a study out of reach as one that does not exist, and a study in reach as for an unlimited token', async () => {
    const staff = routes().filter(([, path]) => /^\/api\/(studio|reports)\//.test(path) && path.includes(':study'));
    // The route tree is read, not listed by hand: a new route is covered as soon as it exists.
    expect(staff.length).toBeGreaterThanOrEqual(18);
    for (const [method, template] of staff) {
      const path = (study: string) => template.replace(':study', study).replace(':action', 'pause');
      // Researcher-only routes answer an analyst 403 whatever the study; the others are checked with both roles.
      for (const [limited, full] of [['limitedResearcher', 'researcher'], ['limitedAnalyst', 'analyst']] as const) {
        const denied = await request(method, path('beta'), tokens[limited]);
        const fullReply = await request(method, path('beta'), tokens[full]);
        if (fullReply.status === 403) {
          expect(denied.status, `${method} ${template} as ${limited}`).toBe(403);
          continue;
        }
        expect(denied.status, `${method} ${template} as ${limited}`).toBe(404);
        expect(denied.body, `${method} ${template} as ${limited}`).toEqual({ error: 'unknown_study', message: 'no such study' });
        expect(fullReply.body?.error, `${method} ${template} as ${full}`).not.toBe('unknown_study');
      }
      // In reach, the limited token is answered as the unlimited one is.
      if (method === 'GET') {
        const limited = await request(method, path('alpha'), tokens.limitedResearcher);
        const full = await request(method, path('alpha'), tokens.researcher);
        expect(limited.status, `${method} ${template} in reach`).toBe(full.status);
      }
    }
  }, 120_000);

  it('lists only the studies in reach, and makes only studies of those names', async () => {
    const ids = async (token: string) => ((await call(`${server.url}/api/studio/studies`, { token })).body.studies as { id: string }[]).map((s) => s.id).sort();
    expect(await ids(tokens.researcher)).toEqual(['alpha', 'beta', 'gamma']);
    expect(await ids(tokens.limitedResearcher)).toEqual(['alpha']);
    expect(await ids(tokens.limitedAnalyst)).toEqual(['alpha', 'gamma']);

    const refused = await call(`${server.url}/api/studio/studies`, { token: tokens.limitedResearcher, body: { name: 'other', template: 'metaset-caption-preference' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'forbidden', field: 'name' });
    const made = await call(`${server.url}/api/studio/studies`, { token: tokens.limitedResearcher, body: { name: 'fresh', template: 'metaset-caption-preference' } });
    expect(made.status, made.text).toBe(201);
    expect(await ids(tokens.limitedResearcher)).toEqual(['alpha', 'fresh']);
    // A clone is a new study too: only to a name in reach.
    const clone = await call(`${server.url}/api/studio/studies/fresh/clone`, { token: tokens.limitedResearcher, body: { name: 'fresh-copy' } });
    expect(clone.status).toBe(403);
  });

  it('an HTML report link is given only for a study in reach', async () => {
    const link = await call(`${server.url}/api/reports/alpha/html-link`, { token: tokens.limitedAnalyst, body: {} });
    expect(link.status).toBe(200);
    const page = await call(`${server.url}${link.body.url}`);
    expect(page.status).toBe(200);
    expect((await call(`${server.url}/api/reports/beta/html-link`, { token: tokens.limitedAnalyst, body: {} })).status).toBe(404);
    // A ticket is for its own study only.
    const other = await call(`${server.url}/api/reports/alpha/html-link`, { token: tokens.limitedAnalyst, body: {} });
    expect((await call(`${server.url}${other.body.url.replace('/alpha/', '/beta/')}`)).status).toBe(401);
  });

  it('the CLI says what a token reaches and refuses a malformed study id', () => {
    const listed = cli('token', 'list');
    expect(listed).toMatch(/analyst\t\S+\tactive\tstudies alpha,gamma/);
    expect(listed).toMatch(/researcher\t\S+\tactive\tevery study/);
    let status = 0;
    try {
      cli('token', 'create', '--role', 'analyst', '--study', 'Not A Study');
    } catch (error) {
      status = (error as { status: number }).status;
    }
    expect(status).toBe(2);
  });
});

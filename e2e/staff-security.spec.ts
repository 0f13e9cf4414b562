import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { researcherToken, startServer, type E2eServer } from './support/server';

/**
 * The studio against another origin of the same site (issue 20.4), and a studio tab whose token
 * is revoked (issue 20.5). A page on another port of the same host is same-site: the browser
 * sends the SameSite=Strict sign-in cookie with what it posts. Real Chromium, real server.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
let server: E2eServer;
let other: Server | undefined;
test.afterEach(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => (other ? other.close(() => resolve()) : resolve()));
  other = undefined;
});

const status = () => server.sql<{ status: string }>('SELECT status FROM studies WHERE id = ?', server.study)[0].status;

async function signIn(page: Page): Promise<string> {
  const token = researcherToken(server);
  await page.goto(`${server.url}/studio`);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('study-list')).toBeVisible();
  return token;
}

/** Serves `html` on another port of 127.0.0.1: another origin, the same site. */
async function otherOrigin(html: string): Promise<string> {
  other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((resolve) => other!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;
}

test('a page on another port of the same host cannot change anything through a signed-in studio', async ({ page }) => {
  server = await startServer({ screening: 'none' });
  await signIn(page);
  expect(status()).toBe('open');
  const pause = `${server.url}/api/studio/studies/${server.study}/pause`;
  // Every kind of request a form can send, and fetch() in no-cors mode, all with the cookie.
  const url = await otherOrigin(`<!doctype html><meta charset="utf-8"><body>
    <iframe name="sink"></iframe>
    <form id="plain" method="post" action="${pause}" enctype="text/plain" target="sink"><input name='{"a":"' value='1"}'></form>
    <form id="urlencoded" method="post" action="${pause}" target="sink"><input name="a" value="1"></form>
    <form id="multipart" method="post" action="${pause}" enctype="multipart/form-data" target="sink"><input name="a" value="1"></form>
    <script>
      window.results = [];
      window.send = async () => {
        for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']) {
          // The answer is never readable here (no-cors, and Cross-Origin-Resource-Policy blocks it); the request is sent.
          await fetch(${JSON.stringify(pause)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': type }, body: '{}' }).catch(() => null);
          window.results.push(type);
        }
      };
    </script>`);
  await page.goto(url);
  const answers: number[] = [];
  page.on('response', (res) => {
    if (res.url() === pause) answers.push(res.status());
  });
  for (const form of ['plain', 'urlencoded', 'multipart']) {
    await page.evaluate((id) => (document.getElementById(id) as HTMLFormElement).submit(), form);
    await expect.poll(() => answers.length).toBeGreaterThanOrEqual(['plain', 'urlencoded', 'multipart'].indexOf(form) + 1);
  }
  expect(answers).toEqual([403, 403, 403]);
  await page.evaluate(() => (window as unknown as { send(): Promise<void> }).send());
  expect(await page.evaluate(() => (window as unknown as { results: string[] }).results)).toHaveLength(3);
  expect(status()).toBe('open');

  // The studio itself still pauses it (a bodyless POST with its header) and uploads files (JSON).
  await page.goto(`${server.url}/studio/${server.study}`);
  const fromStudio = await page.evaluate(async (study) => {
    const res = await fetch(`/api/studio/studies/${study}/pause`, { method: 'POST', headers: { 'x-earmark-request': '1' } });
    return res.status;
  }, server.study);
  expect(fromStudio).toBe(200);
  expect(status()).toBe('paused');
});

test('the studio uploads a caption file from its own page', async ({ page }) => {
  server = await startServer({ screening: 'none' });
  await signIn(page);
  const made = await page.evaluate(async () => {
    const headers = { 'content-type': 'application/json', 'x-earmark-request': '1' };
    const create = await fetch('/api/studio/studies', { method: 'POST', headers, body: JSON.stringify({ name: 'upload-check', template: 'metaset-caption-preference' }) });
    const upload = await fetch('/api/studio/studies/upload-check/files', {
      method: 'POST', headers, body: JSON.stringify({ kind: 'captions', name: 'sys.jsonl', content: '{"id":"u1","caption":"calm"}\n' }),
    });
    return [create.status, upload.status, await upload.text()];
  });
  expect(made[0]).toBe(201);
  // Answered for its content, never refused for where it came from.
  expect(made[1], String(made[2])).not.toBe(403);
});

test('a studio tab whose token is revoked stops polling at the first 401 and asks to sign in again', async ({ page }) => {
  server = await startServer({ screening: 'none' });
  const token = await signIn(page);
  const polls: number[] = [];
  page.on('response', (res) => {
    if (res.url().endsWith('/dashboard')) polls.push(res.status());
  });
  await page.goto(`${server.url}/studio/${server.study}`);
  await expect.poll(() => polls.filter((s) => s === 200).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
  execFileSync(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', 'token', 'revoke', token.split('.')[0], '--data', server.dataDir], { cwd: root });
  await expect.poll(() => polls.filter((s) => s === 401).length, { timeout: 15_000 }).toBe(1);
  await expect(page.getByLabel('Access token')).toBeVisible();
  await expect(page.getByRole('alert')).toContainText('sign-in has ended');
  // Three poll intervals later, still the one 401.
  await page.waitForTimeout(10_000);
  expect(polls.filter((s) => s === 401)).toHaveLength(1);
});

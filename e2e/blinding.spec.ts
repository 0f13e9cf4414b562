import { expect, test } from '@playwright/test';
import { answerByKeyboard, startByKeyboard } from './support/listener';
import { startServer, type E2eServer } from './support/server';

let server: E2eServer;
test.afterEach(async () => server?.stop());

/** Every key a listener-facing JSON reply may contain (server/contract.ts). */
const ALLOWED_KEYS = new Set([
  // StudyIntro
  'study', 'title', 'status', 'consentMarkdown', 'instructionsMarkdown', 'questionMarkdown', 'listening', 'mode', 'seconds',
  'screening', 'kind', 'required', 'linkParameters',
  // sessions, trials, votes
  'token', 'state', 'progress', 'done', 'total', 'trial', 'next', 'completion', 'code', 'redirectUrl', 'position', 'clip',
  'id', 'audioUrl', 'peaksUrl', 'duration', 'captions', 'voteId', 'serverTs', 'feedback', 'correct',
  // peaks
  'resolution', 'data',
  // errors
  'error', 'message', 'field',
]);

function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  return out;
}

test('nothing a listener receives reveals systems, attention checks, judge scores or corpus labels', async ({ page }) => {
  server = await startServer({ screening: 'none' });
  await page.route(/example\.org/, (r) => r.abort());
  const received: Array<{ url: string; headers: string; body: string; type: string }> = [];
  const pending: Promise<void>[] = [];
  page.on('response', (response) => {
    pending.push(
      (async () => {
        const type = response.headers()['content-type'] ?? '';
        let body = '';
        try {
          body = (await response.body()).toString(type.startsWith('audio/') ? 'latin1' : 'utf8');
        } catch {
          // Media range requests may be cancelled by the element; URL and headers still count.
        }
        received.push({ url: response.url(), headers: JSON.stringify(await response.allHeaders()), body, type });
      })(),
    );
  });

  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p1`);
  for (let n = 0; n < 9; n++) await answerByKeyboard(page, n % 2 ? 1 : 2);
  await expect(page.getByTestId('completion-code')).toBeVisible();
  await Promise.all(pending);

  const kinds = new Set(received.map((r) => r.type.split(';')[0]));
  for (const needed of ['text/html', 'application/json', 'javascript', 'text/css']) expect([...kinds].some((k) => k.includes(needed)), needed).toBe(true);
  expect(received.some((r) => /\/media\/clips\/[^/]+\/audio$/.test(r.url))).toBe(true);
  expect(received.some((r) => /\/media\/clips\/[^/]+\/peaks$/.test(r.url))).toBe(true);

  // Secret strings: system ids, file names and paths, utterance ids, labels, judge scores.
  const secrets = server.secrets.filter((s) => s.length >= 3);
  expect(secrets.length).toBeGreaterThan(20);
  const numeric = secrets.filter((s) => /^\d+(\.\d+)?$/.test(s));
  for (const r of received) {
    const everything = `${r.url}\n${r.headers}\n${r.body}`;
    for (const s of secrets.filter((x) => !numeric.includes(x))) expect(everything.includes(s), `"${s}" in ${r.url}`).toBe(false);
    if (r.type.startsWith('application/json'))
      for (const s of numeric) expect(new RegExp(`(?<![\\d.])${s.replace('.', '\\.')}(?![\\d])`).test(r.body), `${s} in ${r.url}`).toBe(false);
  }

  const api = received.filter((r) => r.type.startsWith('application/json'));
  for (const r of api) {
    const unexpected = [...keysOf(JSON.parse(r.body))].filter((k) => !ALLOWED_KEYS.has(k));
    expect(unexpected, r.url).toEqual([]);
  }
  // Attention checks travel as plain pair trials.
  const trialKinds = new Set(api.flatMap((r) => [...r.body.matchAll(/"kind":"(\w+)"/g)].map((m) => m[1])));
  expect([...trialKinds].filter((k) => !['pair', 'practice', 'none', 'antiphase', 'huggins', 'both'].includes(k))).toEqual([]);
  // Media is addressed by opaque clip id only.
  for (const r of received.filter((x) => x.url.includes('/media/'))) {
    const id = /\/media\/clips\/([^/]+)\//.exec(r.url)?.[1];
    expect(server.clipIds).toContain(decodeURIComponent(id ?? ''));
  }
});

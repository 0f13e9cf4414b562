import { expect, test } from '@playwright/test';
import { captureResponses, expectBlinded } from './support/blinding';
import { answerByKeyboard, startByKeyboard } from './support/listener';
import { startServer, type E2eServer } from './support/server';

let server: E2eServer;
test.afterEach(async () => server?.stop());

// The seeded study names its clips the RAVDESS way (emotion and actor in the file name) and
// carries labels, judge scores and a completion redirect: the worst case for leaks.
test('nothing a listener receives reveals systems, attention checks, judge scores or corpus labels', async ({ page }) => {
  server = await startServer({ screening: 'none' });
  await page.route(/example\.org/, (r) => r.abort());
  const capture = captureResponses(page);
  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p1`);
  for (let n = 0; n < 9; n++) await answerByKeyboard(page, n % 2 ? 1 : 2);
  await expect(page.getByTestId('completion-code')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Return to the study platform' })).toHaveAttribute('href', /example\.org/);
  await capture.settled();
  expectBlinded(capture.received, server);

  // The audio is the study's copy: a bare 16-bit WAV (the seeded corpus files carry LIST/INFO
  // metadata naming the file, actor and emotion), with validators keyed by the installation.
  const audio = capture.received.filter((r) => r.type.startsWith('audio/') && r.body.length > 0);
  expect(audio.length).toBeGreaterThan(0);
  for (const r of audio) {
    for (const marker of ['LIST', 'INFO', 'INAM', 'IART']) expect(r.body.includes(marker), `${marker} in ${r.url}`).toBe(false);
    if (r.body.startsWith('RIFF')) expect([r.body.slice(8, 16), r.body.slice(36, 40)]).toEqual(['WAVEfmt ', 'data']);
    expect(JSON.parse(r.headers).etag ?? '"x"', r.url).toMatch(/^"[0-9a-f]{32}"$/);
  }
});

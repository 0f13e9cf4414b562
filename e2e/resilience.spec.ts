import { expect, test } from '@playwright/test';
import { answerByKeyboard, currentTrial, expectVotesEqualChoices, startByKeyboard, type Choice } from './support/listener';
import { startServer, type E2eServer } from './support/server';

let server: E2eServer;
test.afterEach(async () => server?.stop());

function seeded(seed: number) {
  return () => (seed = (seed * 16807) % 2147483647) / 2147483647;
}

function expectNoDuplicates(votes: Array<{ id: string; item_id: string }>) {
  expect(new Set(votes.map((v) => v.id)).size).toBe(votes.length);
  expect(new Set(votes.map((v) => v.item_id)).size).toBe(votes.length);
}

test('offline for 30 s mid-session: the listener keeps going, votes drain in order on reconnect', async ({ page, context }) => {
  server = await startServer({ pairs: 9 });
  await startByKeyboard(page, `${server.url}/s/${server.study}`);
  const choices: Choice[] = [];
  for (let n = 0; n < 3; n++) choices.push(await answerByKeyboard(page, 1));
  await expect(page.locator('.save-status')).toHaveAttribute('data-pending', '0');
  // The upcoming trials' clips and peaks (up to five after the current one) were prefetched while online.
  await expect.poll(() => page.evaluate(() => performance.getEntriesByType('resource').some((e) => e.name.includes('/peaks')))).toBe(true);

  await context.setOffline(true);
  const offlineAt = Date.now();
  choices.push(await answerByKeyboard(page, 2));
  await expect(page.locator('.save-status')).toHaveAttribute('data-state', 'offline');
  await expect(page.locator('.save-status')).toContainText('Offline');
  // The current trial and the five upcoming ones can all be answered offline.
  for (let n = 1; n < 6; n++) choices.push(await answerByKeyboard(page, n % 2 ? 1 : 2));
  await expect(page.locator('.waiting')).toBeVisible();
  await expect(page.locator('.save-status')).toHaveAttribute('data-pending', '6');
  expect(server.votes()).toHaveLength(3);

  await page.waitForTimeout(Math.max(0, 30_000 - (Date.now() - offlineAt)));
  await context.setOffline(false);
  expect(await currentTrial(page)).toBe(9);
  await expect(page.locator('.save-status')).toHaveAttribute('data-pending', '0');
  expect(server.votes().map((v) => v.position)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  // Drained in order: stored (rowid order) as answered.
  expect(server.sql<{ position: number }>('SELECT position FROM votes ORDER BY rowid').map((v) => v.position)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);

  while (choices.length < 12) choices.push(await answerByKeyboard(page, choices.length % 2 ? 2 : 1));
  await expect(page.getByTestId('completion-code')).toBeVisible();
  const votes = server.votes();
  expectNoDuplicates(votes);
  expectVotesEqualChoices(votes, choices);
});

test('30% of vote requests fail or time out: every choice is recorded exactly once', async ({ page }) => {
  test.setTimeout(180_000);
  server = await startServer({ pairs: 9 });
  const random = seeded(42);
  const injected = { beforeServer: 0, replyLost: 0, hung: 0, unavailable: 0 };
  let requests = 0;
  await page.route('**/api/session/votes', async (route) => {
    requests++;
    if (requests === 3) {
      injected.hung++;
      await new Promise((resolve) => setTimeout(resolve, 11_000)); // past the client's 10 s timeout
      return route.abort('timedout').catch(() => {});
    }
    const r = random();
    if (r < 0.12) {
      injected.beforeServer++;
      return route.abort('failed');
    }
    if (r < 0.24) {
      injected.replyLost++;
      await route.fetch(); // the server records the vote…
      return route.abort('connectionreset'); // …and the reply never arrives
    }
    if (r < 0.3) {
      injected.unavailable++;
      return route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"unavailable","message":"injected"}' });
    }
    return route.continue();
  });

  await startByKeyboard(page, `${server.url}/s/${server.study}`);
  const choices: Choice[] = [];
  while (choices.length < 12) choices.push(await answerByKeyboard(page, random() < 0.5 ? 1 : 2));
  await expect(page.getByTestId('completion-code')).toBeVisible({ timeout: 60_000 });
  console.log(`vote requests: ${requests}; injected: ${JSON.stringify(injected)}`);
  expect(injected.beforeServer + injected.replyLost + injected.hung + injected.unavailable).toBeGreaterThanOrEqual(0.25 * requests);
  expect(injected.replyLost).toBeGreaterThanOrEqual(1);
  expect(injected.beforeServer).toBeGreaterThanOrEqual(1);
  const votes = server.votes();
  expectNoDuplicates(votes);
  expectVotesEqualChoices(votes, choices);
});

test('a double confirm and a second tab still give exactly one vote per trial', async ({ context }) => {
  server = await startServer({ pairs: 6 });
  const a = await context.newPage();
  await startByKeyboard(a, `${server.url}/s/${server.study}`);
  const choices: Choice[] = [await answerByKeyboard(a, 1)];

  // Double submit: Enter and two clicks on Confirm in quick succession.
  const p = await currentTrial(a);
  await a.keyboard.press('Space');
  await expect(a.locator(`section.trial[data-position="${p}"]`)).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
  await a.keyboard.press('2');
  const confirm = a.getByRole('button', { name: 'Confirm choice' });
  await Promise.all([a.keyboard.press('Enter'), confirm.dblclick({ force: true }).catch(() => {})]);
  choices.push({ position: p, choice: 2 });
  expect(await currentTrial(a)).toBe(p + 1);

  // A second tab of the same listener, on the same trial as the first.
  const b = await context.newPage();
  await b.goto(`${server.url}/s/${server.study}`);
  await expect(b.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
  await b.keyboard.press('Enter');
  expect(await currentTrial(b)).toBe(p + 1);
  choices.push(await answerByKeyboard(a, 1));
  await expect(a.locator('.save-status')).toHaveAttribute('data-pending', '0');
  await b.bringToFront();
  await answerByKeyboard(b, 2); // conflicts with the first tab's answer: 409, dropped, moves on
  await expect(b.locator('.save-status')).toHaveAttribute('data-pending', '0');
  expect(await currentTrial(b)).toBe(p + 2);

  await a.bringToFront();
  while (choices.length < 9) choices.push(await answerByKeyboard(a, 1));
  await expect(a.getByTestId('completion-code')).toBeVisible();
  const votes = server.votes();
  expectNoDuplicates(votes);
  expectVotesEqualChoices(votes, choices);
  const rejected = await b.evaluate((s) => localStorage.getItem(`earmark:rejected:${s}`), server.study);
  expect(rejected).toBeNull();
});

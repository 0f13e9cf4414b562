/**
 * The planner box in the studio (issue 25, item 3), in Chromium on a real server: a researcher opens
 * a study not yet opened, picks the pilot study whose listeners voted (over the listener API, with a
 * known truth), and reads how many listeners to pay for — the plan the API gives — then asks for a
 * rating target on a pair pilot and is told why not. axe finds nothing serious on the page.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { startTestServer, type TestServer } from '../server/testing/server';
import { call } from '../server/testing/client';
import { answerPilot } from '../server/testing/pilot';
import { audit, withAxe } from './support/axe';
import { researcherToken, type E2eServer } from './support/server';

const root = fileURLToPath(new URL('..', import.meta.url));
const PILOT = 'pilot-run';
const PLANNED = 'main-run';

let server: TestServer;
test.beforeAll(async () => {
  server = await startTestServer({
    studies: [
      { study: PILOT, pairs: 9, attention: 3, practice: 0, status: 'open' },
      { study: PLANNED, pairs: 9, attention: 3, practice: 0, status: 'draft' },
    ],
    app: { clientDir: join(root, 'dist', 'client') },
  });
  await answerPilot(server, PILOT, 30, [0.8, 0, -0.8]);
});
test.afterAll(() => server?.close());

test('a researcher plans the number of listeners from a pilot study before opening', async ({ page }) => {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await withAxe(page.context());
  const token = researcherToken({ dataDir: server.dataDir } as E2eServer);
  await page.goto(`${server.url}/studio/${PLANNED}`);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();

  const box = page.getByRole('region', { name: 'Plan the number of listeners' });
  await expect(box).toBeVisible({ timeout: 15_000 });
  await expect(box.getByLabel('pilot study')).toHaveValue(PILOT);
  await box.getByLabel('target half-width').fill('0.3');
  await box.getByRole('button', { name: 'Plan' }).click();
  const result = box.getByTestId('plan-result');
  await expect(result).toBeVisible({ timeout: 30_000 });

  const api = await call(`${server.url}/api/studio/studies/${PLANNED}/plan`, { token, body: { pilot: PILOT, target: 'bt-ci=0.3' }, headers: { 'x-earmark-request': '1' } });
  expect(api.status, api.text).toBe(200);
  await expect(result).toContainText(`${api.body.listeners} listeners, ${api.body.votes} votes (9 per listener, plus 3 attention checks each)`);
  await expect(result).toContainText(`Predicted mean half-width ${api.body.predictedWidth.toFixed(3)}`);
  await expect(result).toContainText('3 systems');
  const counts: string[] = [];
  await audit(page, 'studio plan', counts);

  // A rating target on a pair pilot: refused with the planner's reason.
  await box.getByLabel('target statistic').selectOption('mos-ci');
  await box.getByLabel('target half-width').fill('0.1');
  await box.getByRole('button', { name: 'Plan' }).click();
  await expect(box.getByRole('alert')).toHaveText(`pilot ${PILOT}: mos-ci is a rating-study target; this pilot is a pair / A/B study: use bt-ci`);
  expect(problems).toEqual([]);
});

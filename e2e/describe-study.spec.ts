import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser, type BrowserContextOptions, type Page } from '@playwright/test';
import { audit, withAxe } from './support/axe';
import { currentTrial, sessionFinished, startByKeyboard, startByTouch } from './support/listener';
import { startMain, type E2eServer } from './support/server';
import { analyzeBundle, exportBundle, signInToStudio } from './support/studio';

/**
 * A describe study end to end (analysis-spec §5.6): a researcher starts from the describe-style
 * template in the studio, builds and opens it on the demo clips. A listener on a phone (touch) and
 * one on a laptop (keys only) describe every clip through the real page, axe clean: the box is
 * locked until the clip is heard, the count is live and Send stays off below the minimum length;
 * the exported zip, read by `npm run analyze`, reports §5.6's section.
 */
const STUDY = 'describe-e2e';
const STUDY_YAML = `title: How is this said?
consent: You agree that your answers are recorded.
instructions: Listen to each clip to the end, then write how the person speaks.
question: How is this said?
trial:
  kind: describe
  instruction: Describe how the speaker says this, not what they say.
  minLength: 20
  system: human
items:
  mode: explicit
  list: [{ utterance: "metaset:demo/demo-01.wav" }, { utterance: "metaset:demo/demo-02.wav" }]
design: { kind: crossed }
listening: { mode: whole }
screening: { kind: none, required: false }
targetListeners: 2
completion: { code: DESCRIBE-DONE }
linkParameters: [PROLIFIC_PID]
seed: 5
`;

let server: E2eServer;
let outputs = '';
test.afterEach(async () => {
  await server?.stop();
  if (outputs) rmSync(outputs, { recursive: true, force: true });
});

const TEXT = 'A calm, slow voice, low in pitch and warm.';

async function answer(page: Page, n: number, touch: boolean, counts: string[]): Promise<void> {
  const position = await currentTrial(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  const box = trial.getByLabel('Your description');
  await expect(box).toBeDisabled();
  await expect(trial.getByText('Describe how the speaker says this, not what they say.')).toBeVisible();
  if (touch) await trial.getByRole('button', { name: /Play/ }).tap();
  else {
    await expect(trial).toBeFocused();
    await page.keyboard.press('Space');
  }
  await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
  const send = trial.getByRole('button', { name: 'Send description' });
  if (touch) await box.tap();
  else for (let i = 0; i < 12 && !(await box.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(box).toBeFocused();
  await page.keyboard.type('Too short');
  await expect(trial.locator('.describe-count')).toContainText('9 characters');
  await expect(trial.locator('.describe-count')).toContainText('Write 11 more characters.');
  await expect(send).toBeDisabled();
  await box.fill(`${TEXT} (${n})`);
  await expect(send).toBeEnabled();
  if (n === 0) await audit(page, `describe trial (${touch ? 'phone' : 'laptop'})`, counts);
  if (touch) await send.tap();
  else await page.keyboard.press('Control+Enter');
  await expect(trial).toBeHidden({ timeout: 20_000 });
}

async function session(browser: Browser, device: BrowserContextOptions, url: string, touch: boolean, counts: string[], problems: string[]): Promise<number> {
  const context = await browser.newContext(device);
  await withAxe(context);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(e.message));
  await (touch ? startByTouch : startByKeyboard)(page, url);
  let n = 0;
  do await answer(page, n++, touch, counts);
  while (!(await sessionFinished(page)));
  await expect(page.getByTestId('completion-code')).toHaveText('DESCRIBE-DONE');
  await context.close();
  return n;
}

test('a describe study of the demo clips: built in the studio, described on a phone and a laptop, exported and analysed', async ({ page, browser }) => {
  test.setTimeout(240_000);
  server = await startMain();
  outputs = mkdtempSync(join(tmpdir(), 'earmark-e2e-describe-'));
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInToStudio(page, server);
  await page.getByLabel('Study name').fill(STUDY);
  await page.getByLabel('Start from a template').selectOption('describe-style');
  await page.getByRole('button', { name: 'Create study' }).click();
  await page.waitForURL(`**/studio/${STUDY}`);
  await page.getByLabel('study.yaml').fill(STUDY_YAML);
  await page.getByRole('button', { name: 'Build' }).click();
  await expect(page.getByTestId('build-summary')).toContainText('Build: created', { timeout: 30_000 });
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('study-status')).toHaveText('open');
  const link = (await page.getByTestId('link-plain').textContent())!;

  const counts: string[] = [];
  const problems: string[] = [];
  const phone = await session(browser, { viewport: { width: 360, height: 640 }, hasTouch: true, isMobile: true }, `${link}?PROLIFIC_PID=phone`, true, counts, problems);
  const laptop = await session(browser, { viewport: { width: 1280, height: 720 } }, `${link}?PROLIFIC_PID=laptop`, false, counts, problems);
  console.log(counts.join('\n'));
  expect([phone, laptop]).toEqual([2, 2]);
  expect(problems).toEqual([]);

  const zip = await exportBundle(page, outputs);
  const out = join(outputs, 'report.json');
  analyzeBundle(zip, 'json', out);
  const report = JSON.parse(readFileSync(out, 'utf8')) as { describe: { texts: number; listeners: number; items: number; words: { mean: number; median: number } } };
  // Every text is TEXT (9 words) and its number: 10 words.
  expect(report.describe).toMatchObject({ texts: 4, listeners: 2, items: 2, words: { mean: 10, median: 10 } });
});

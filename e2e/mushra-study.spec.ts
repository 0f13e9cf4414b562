import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { expect, test, type Browser, type BrowserContextOptions, type Page } from '@playwright/test';
import { audit, withAxe } from './support/axe';
import { currentTrial, sessionFinished, startByKeyboard, startByTouch } from './support/listener';
import { startMain, type E2eServer } from './support/server';
import { signInToStudio } from './support/studio';

/**
 * A MUSHRA study end to end (ITU-R BS.1534-3, analysis-spec §5.3): the demo's three espeak-ng
 * "systems" imported with `npm run manifest -- renditions` (which makes each rendition's anchors), a
 * MUSHRA study written and built in the studio, and two listeners: one on a phone (390×844, touch:
 * tap each version, drag its slider, Next) and one on a laptop (keys only: 1…5 play a version, ↑
 * moves its slider, Enter goes on). Next stays disabled until every version is heard and scored, only
 * the selected version's slider moves, axe finds nothing serious on the page, and the stored votes
 * hold one score per stimulus.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const STUDY = 'tts-mushra-e2e';
const STUDY_YAML = `title: How good is each version?
consent: You agree that your scores are recorded.
instructions: Play every version and score it against the reference.
question: Score each version against the **reference**.
trial: { kind: mushra, reference: espeak-en-slow, anchors: [anchor35, anchor70], systems: [espeak-en-fast, espeak-de-accent] }
items:
  mode: explicit
  list: [{ utterance: "metaset:demo/demo-01.wav" }, { utterance: "metaset:demo/demo-02.wav" }]
practice: [{ utterance: "metaset:demo/demo-16.wav" }]
design: { kind: crossed }
listening: { mode: seconds, seconds: 0.5 }
screening: { kind: none, required: false }
targetListeners: 2
completion: { code: MUSHRA-DONE }
linkParameters: [PROLIFIC_PID]
seed: 5
`;

let server: E2eServer;
test.afterEach(async () => server?.stop());

function manifest(...args: string[]): string {
  const run = spawnSync('npm', ['run', '--silent', 'manifest', '--', ...args, '--data', server.dataDir], { cwd: root, encoding: 'utf8' });
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  return `${run.stdout}\n${run.stderr}`;
}

/** One page: every version played (touch or keys) until heard, its slider set, then Next. */
async function answerPage(page: Page, n: number, touch: boolean, counts: string[]): Promise<number[]> {
  const position = await currentTrial(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  const rows = trial.locator('li.mushra-stimulus');
  const count = await rows.count();
  expect(count).toBe(5);
  const next = trial.getByRole('button', { name: 'Next' });
  await expect(next).toBeDisabled();
  const scores: number[] = [];
  for (let i = 0; i < count; i++) {
    const row = rows.nth(i);
    const slider = row.getByRole('slider');
    if (i > 0) await expect(slider).toBeDisabled();
    // Switching keeps the position: a short version met near its end stops before it is heard enough, and is played again (from its start).
    for (let attempt = 0; (await row.getAttribute('data-heard')) !== 'true'; attempt++) {
      expect(attempt, `version ${i + 1} never heard`).toBeLessThan(4);
      if (touch) await row.getByRole('button').tap();
      else await page.keyboard.press(String(i + 1));
      await expect(row).toHaveAttribute('data-heard', 'true', { timeout: 4_000 }).catch(() => undefined);
    }
    await expect(slider).toBeEnabled();
    const score = 15 + 20 * i;
    if (touch) await slider.fill(String(score));
    else for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowUp');
    scores.push(touch ? score : 53);
    await expect(row).toHaveAttribute('data-rated', 'true');
    if (i < count - 1) await expect(next).toBeDisabled();
  }
  await expect(next).toBeEnabled();
  if (n === 0) await audit(page, `MUSHRA page (${touch ? 'phone' : 'laptop'})`, counts);
  if (touch) {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await next.tap();
  } else await page.keyboard.press('Enter');
  await expect(trial).toBeHidden({ timeout: 20_000 });
  return scores;
}

async function session(browser: Browser, device: BrowserContextOptions, url: string, touch: boolean, counts: string[], problems: string[]): Promise<number[][]> {
  const context = await browser.newContext(device);
  await withAxe(context);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(e.message));
  await (touch ? startByTouch : startByKeyboard)(page, url);
  const pages: number[][] = [];
  do pages.push(await answerPage(page, pages.length, touch, counts));
  while (!(await sessionFinished(page)));
  await expect(page.getByTestId('completion-code')).toHaveText('MUSHRA-DONE');
  await context.close();
  return pages;
}

test('a MUSHRA study of the demo systems: anchors made at import, built in the studio, scored on a phone and a laptop', async ({ page, browser }) => {
  test.setTimeout(300_000);
  server = await startMain();
  const problems: string[] = [];
  // The server imported the demo's renditions at start; importing them again finds every copy and anchor made.
  const imported = manifest('renditions', join(root, 'studies', 'demo', 'renditions'));
  expect(imported).toMatch(/3 systems, 48 degraded copies, 96 MUSHRA anchors/);

  await page.setViewportSize({ width: 1280, height: 900 });
  await signInToStudio(page, server);
  await page.getByLabel('Study name').fill(STUDY);
  await page.getByLabel('Start from a template').selectOption('demo-mushra');
  await page.getByRole('button', { name: 'Create study' }).click();
  await page.waitForURL(`**/studio/${STUDY}`);
  await page.getByLabel('study.yaml').fill(STUDY_YAML);
  await page.getByRole('button', { name: 'Build' }).click();
  await expect(page.getByTestId('build-summary')).toContainText('Build: created', { timeout: 30_000 });
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('study-status')).toHaveText('open');
  const link = (await page.getByTestId('link-plain').textContent())!;

  const counts: string[] = [];
  const phone = await session(browser, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }, `${link}?PROLIFIC_PID=phone`, true, counts, problems);
  const laptop = await session(browser, { viewport: { width: 1280, height: 720 } }, `${link}?PROLIFIC_PID=laptop`, false, counts, problems);
  console.log(counts.join('\n'));
  expect(phone).toHaveLength(3);
  expect(laptop).toHaveLength(3);

  // Stored: each page's scores by slot in the listener's screen order, every stimulus heard.
  const votes = server.sql<{ pid: string; position: number; answer: string; listening: string }>(
    `SELECT json_extract(l.external, '$.PROLIFIC_PID') AS pid, v.position, v.answer, v.listening FROM votes v JOIN listeners l ON l.id = v.listener_id
     JOIN items i ON i.id = v.item_id WHERE i.study_id = ? ORDER BY pid, v.position`,
    STUDY,
  );
  expect(votes).toHaveLength(6);
  for (const v of votes) {
    const answer = JSON.parse(v.answer) as { order: string[]; scores: Record<string, number> };
    const given = (v.pid === 'phone' ? phone : laptop)[v.position];
    expect(answer.order.map((slot) => answer.scores[slot])).toEqual(given);
    expect([...answer.order].sort()).toEqual(['anchor35', 'anchor70', 'condition-1', 'condition-2', 'reference']);
    expect((JSON.parse(v.listening) as { plays: number }[]).every((l) => l.plays >= 1)).toBe(true);
  }
  expect(problems).toEqual([]);
});

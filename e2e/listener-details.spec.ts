import { expect, test, type Page } from '@playwright/test';
import { currentTrial, startByKeyboard } from './support/listener';
import { researcherToken, startServer, type E2eServer } from './support/server';

/**
 * The listener details the audit found (issue 21.9), each checked in real Chromium at the size
 * where it showed: practice feedback, Confirm in view, the headphone round at 320 px, Enter on the
 * calibration screen, the focus ring's contrast, the Play icon under forced colours, the offline
 * notice beside the counter, and the dashboard's update time.
 */
let server: E2eServer;
test.afterEach(async () => server?.stop());

const PHONE = { width: 360, height: 640 };

/** WCAG relative luminance contrast of two CSS rgb() colours. */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => Number(v) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The element's box lies inside the viewport as it is scrolled now. */
async function inView(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
  });
}

async function unlock(page: Page): Promise<number> {
  const position = await currentTrial(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  await trial.locator('button.play').click();
  await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
  return position;
}

test('practice feedback names the intended answer, marks it, and the clip can be heard again', async ({ browser }) => {
  server = await startServer({ pairs: 1, attention: 0, practice: 1 });
  const page = await (await browser.newContext({ viewport: PHONE })).newPage();
  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p-practice`);
  const position = await unlock(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  await trial.getByRole('radio').first().click();
  await trial.getByRole('button', { name: 'Confirm choice' }).click();
  const feedback = trial.locator('.feedback');
  await expect(feedback).toBeVisible({ timeout: 20_000 });
  const [{ expected, first }] = server.sql<{ expected: string; first: string }>(
    "SELECT i.expected, a.first FROM assignments a JOIN items i ON i.id = a.item_id JOIN listeners l ON l.id = a.listener_id WHERE json_extract(l.external, '$.PROLIFIC_PID') = 'p-practice' AND a.position = ?",
    position,
  );
  // Caption 1 shows the assignment's `first` caption.
  const intended = expected === first ? 1 : 2;
  await expect(feedback.locator('p').first()).toContainText(`caption ${intended} describes the delivery better`);
  await expect(trial.getByRole('radio').nth(intended - 1)).toContainText('Intended answer');
  const play = trial.locator('button.play');
  await expect(play).toBeEnabled();
  await play.click();
  await expect(play).toHaveAccessibleName(/Pause clip|Loading/);
});

test('Confirm stays in view on a rating trial at 360×640', async ({ browser }) => {
  server = await startServer({ pairs: 2, attention: 0, practice: 0, rating: true });
  const page = await (await browser.newContext({ viewport: PHONE })).newPage();
  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p-rating`);
  const position = await unlock(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  await trial.getByRole('radio').last().click();
  await expect(trial.getByRole('button', { name: 'Confirm rating' })).toBeEnabled();
  expect(await inView(page, `section.trial[data-position="${position}"] .actions button.primary`)).toBe(true);
  await page.evaluate(() => window.scrollTo(0, 0));
  expect(await inView(page, `section.trial[data-position="${position}"] .actions button.primary`)).toBe(true);
});

test('Confirm stays in view on a trial with the break reminder at 360×640', async ({ browser }) => {
  // A rating trial (the taller screen) with the reminder above it: with the seeded short captions a pair trial
  // keeps Confirm in view even under the reminder.
  server = await startServer({ pairs: 3, attention: 0, practice: 0, breakEvery: 1, rating: true });
  const page = await (await browser.newContext({ viewport: PHONE })).newPage();
  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p-break`);
  const first = await unlock(page);
  await page.locator(`section.trial[data-position="${first}"]`).getByRole('radio').first().click();
  await page.locator(`section.trial[data-position="${first}"] .actions button.primary`).click();
  await expect(page.locator('.break-reminder')).toBeVisible({ timeout: 20_000 });
  const position = await unlock(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  await trial.getByRole('radio').last().click();
  await page.evaluate(() => window.scrollTo(0, 0));
  expect(await inView(page, `section.trial[data-position="${position}"] .actions button.primary`)).toBe(true);
});

test('the calibration screen: Enter plays the sound first; a headphone round fits 320 px', async ({ browser }) => {
  server = await startServer({ pairs: 1, attention: 0, practice: 0, screening: 'antiphase' });
  const page = await (await browser.newContext({ viewport: { width: 320, height: 640 } })).newPage();
  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p-calibrate`);
  const play = page.getByRole('button', { name: 'Play calibration sound' });
  await expect(play).toBeFocused();
  await page.keyboard.press('Enter');
  // The sound plays; the round has not started.
  await expect(page.getByRole('button', { name: 'Stop sound' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByText('Sound 1 of 6')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Volume is set/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByText('Sound 1 of 6')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
  for (let i = 0; i < 3; i++) expect(await page.locator('.choice3').nth(i).evaluate((el) => el.getBoundingClientRect().right <= 320)).toBe(true);
});

test('the focus ring has 3:1 against the page and the card', async ({ browser }) => {
  server = await startServer({ pairs: 1, attention: 0, practice: 0 });
  const context = await browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  await page.goto(`${server.url}/s/${server.study}`);
  const agree = page.getByRole('button', { name: /I agree/ });
  await expect(agree).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Shift+Tab'); // keyboard focus: :focus-visible
  const { ring, page: behind, card } = await agree.evaluate((el) => ({
    ring: getComputedStyle(el).outlineColor,
    page: getComputedStyle(document.body).backgroundColor === 'rgba(0, 0, 0, 0)' ? getComputedStyle(document.documentElement).backgroundColor : getComputedStyle(document.body).backgroundColor,
    card: getComputedStyle(el.closest('.card')!).backgroundColor,
  }));
  expect(contrast(ring, behind)).toBeGreaterThanOrEqual(3);
  expect(contrast(ring, card)).toBeGreaterThanOrEqual(3);
  await context.close();
});

test('the Play icon stays a triangle under forced colours', async ({ browser }) => {
  server = await startServer({ pairs: 1, attention: 0, practice: 0 });
  const context = await browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  await page.emulateMedia({ forcedColors: 'active' });
  await page.goto(`${server.url}/s/${server.study}`);
  await expect(page.getByRole('button', { name: /I agree/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  const icon = page.locator('button.play .icon-play');
  await expect(icon).toBeVisible({ timeout: 20_000 });
  const sides = await icon.evaluate((el) => {
    const s = getComputedStyle(el);
    const alpha = (c: string) => (c === 'transparent' ? 0 : /rgba\(.*,\s*([\d.]+)\)$/.test(c) ? Number(/,\s*([\d.]+)\)$/.exec(c)![1]) : 1);
    return { top: alpha(s.borderTopColor), bottom: alpha(s.borderBottomColor), right: alpha(s.borderRightColor), left: alpha(s.borderLeftColor), width: el.getBoundingClientRect().width };
  });
  // A triangle: only the left border is painted; top and bottom stay transparent.
  expect(sides).toMatchObject({ top: 0, bottom: 0, left: 1 });
  await context.close();
});

test('the offline notice does not overlap the trial counter at 360×640', async ({ browser }) => {
  server = await startServer({ pairs: 3, attention: 0, practice: 0 });
  const context = await browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p-offline`);
  const position = await unlock(page);
  await context.setOffline(true);
  await page.locator(`section.trial[data-position="${position}"]`).getByRole('radio').first().click();
  await page.locator(`section.trial[data-position="${position}"]`).getByRole('button', { name: 'Confirm choice' }).click();
  await expect(page.locator('.save-status')).toHaveAttribute('data-state', /offline|retrying/, { timeout: 20_000 });
  await expect(page.locator('.save-status')).toHaveAttribute('data-state', 'offline', { timeout: 20_000 });
  const boxes = await page.evaluate(() => [...document.querySelectorAll('.progress-text, .progress progress, .save-status')].map((el) => el.getBoundingClientRect().toJSON()));
  const overlap = (a: DOMRect, b: DOMRect) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const status = boxes.at(-1)!;
  for (const box of boxes.slice(0, -1)) expect(overlap(box, status), JSON.stringify({ box, status })).toBe(false);
  expect(status.right).toBeLessThanOrEqual(360);
  await context.setOffline(false);
  await context.close();
});

test("the dashboard's update time is not a live region", async ({ browser }) => {
  server = await startServer({ pairs: 1, attention: 0, practice: 0 });
  const token = researcherToken(server);
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${server.url}/reports/${server.study}`);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const updated = page.locator('.updated');
  await expect(updated).toBeVisible({ timeout: 20_000 });
  // Neither it nor anything around it announces itself on every poll.
  expect(await updated.evaluate((el) => el.closest('[aria-live]:not([aria-live="off"]), [role="status"], [role="log"], [role="alert"]') === null)).toBe(true);
});

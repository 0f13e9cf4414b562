import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, test, type Page } from '@playwright/test';
import { audit, SIZES, withAxe } from './support/axe';
import { answerByKeyboard, currentTrial, PLAY_SOUNDS, sessionFinished, startByKeyboard } from './support/listener';
import { researcherToken, startServer, type E2eServer } from './support/server';

/**
 * axe-core on every screen a listener, a researcher or an analyst can reach, at a laptop and a
 * phone size: no serious or critical violation. axe is injected by Playwright before any page
 * script (the app's CSP allows no inline script; an init script is not subject to it).
 */
let server: E2eServer;
test.afterEach(async () => server?.stop());

/**
 * A headphone check from its volume step to the end, keys only, always answering "First"; a
 * failed first attempt is retried (audited once as its own screen).
 */
async function headphoneCheck(page: Page, counts: string[] | null, name: string): Promise<void> {
  await expect(page.getByRole('button', { name: 'Play calibration sound' })).toBeFocused();
  if (counts) await audit(page, `headphone check (${name}): volume`, counts);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: /Volume is set/ })).toBeFocused();
  await page.keyboard.press('Enter');
  for (let attempt = 1; ; attempt++) {
    for (let round = 1; round <= 6; round++) {
      await expect(page.getByText(`Sound ${round} of 6`)).toBeVisible();
      await expect(page.getByRole('button', { name: PLAY_SOUNDS })).toBeFocused(); // the round's sound has arrived
      if (counts && attempt === 1 && round === 1) {
        await audit(page, `headphone check (${name}): round`, counts);
        // The audit resizes the page twice: the sound must still be the focused control before Enter plays it.
        await expect(page.getByRole('button', { name: PLAY_SOUNDS })).toBeFocused();
      }
      await page.keyboard.press('Enter');
      await expect(page.getByRole('button', { name: 'First' })).toBeEnabled({ timeout: 15_000 });
      await page.keyboard.press('1');
    }
    const retry = page.getByRole('button', { name: 'Try again' });
    await page.waitForTimeout(300);
    if (!(await retry.isVisible())) return;
    if (counts && !counts.some((c) => c.includes('check: try again'))) await audit(page, `headphone check: try again`, counts);
    await page.keyboard.press('Enter');
  }
}

test('every listener screen passes axe at 1280×720 and 390×844', async ({ browser }) => {
  test.setTimeout(300_000);
  server = await startServer({ pairs: 4, attention: 1, practice: 1, screening: 'both' });
  const counts: string[] = [];
  const context = await browser.newContext({ viewport: SIZES[0] });
  await withAxe(context);
  const page = await context.newPage();
  const link = `${server.url}/s/${server.study}`;

  // A second listener, started before the study closes, sees the stopped screen later.
  const other = await browser.newContext({ viewport: SIZES[0] });
  await withAxe(other);
  const late = await other.newPage();

  await page.goto(link);
  await expect(page.getByRole('button', { name: /I agree/ })).toBeVisible();
  await audit(page, 'consent', counts);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Start' })).toBeVisible();
  await audit(page, 'instructions', counts);
  // One clip (not the practice, not the attention check) will not load: the play-error screen.
  const failing = new Set<string>();
  let failingAt = -1;
  let attention = -1;
  await page.route('**/api/sessions', async (route) => {
    const response = await route.fetch();
    const db = new Database(join(server.dataDir, 'earmark.db'), { readonly: true });
    attention = (db.prepare("SELECT a.position FROM assignments a JOIN items i ON i.id = a.item_id WHERE i.kind = 'attention'").get() as { position: number }).position;
    db.close();
    const pick = (await response.json()).state.upcoming.find((t: { position: number }) => t.position >= 1 && t.position !== attention);
    failing.add(pick.clip.id);
    failingAt = pick.position;
    await route.fulfill({ response });
  });
  await page.route('**/media/clips/*/audio', (route) =>
    failing.has(decodeURIComponent(new URL(route.request().url()).pathname.split('/')[3])) ? route.abort('connectionreset') : route.continue(),
  );
  await page.keyboard.press('Enter');

  await headphoneCheck(page, counts, 'antiphase');
  await expect(page.getByRole('heading', { name: /hidden tone/ })).toBeVisible();
  await headphoneCheck(page, counts, 'Huggins');

  let position = await currentTrial(page);
  const trial = () => page.locator(`section.trial[data-position="${position}"]`);
  await audit(page, 'practice trial, before playing', counts);
  await page.keyboard.press('Space');
  await expect(trial()).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
  await page.keyboard.press('1');
  await page.keyboard.press('Enter');
  await expect(trial().getByRole('button', { name: 'Continue' })).toBeVisible();
  await audit(page, 'practice trial, feedback', counts);
  await page.keyboard.press('Enter');

  const seen = new Set<string>();
  while (!(await sessionFinished(page))) {
    // A trial on screen: ready to play, or failed to load (that one never becomes ready).
    const shown = page.locator('section.trial[data-ready="true"], section.trial[data-failed="true"]');
    await expect(shown).toHaveCount(1, { timeout: 20_000 });
    position = Number(await shown.getAttribute('data-position'));
    if (position === failingAt) {
      await expect(trial()).toHaveAttribute('data-failed', 'true', { timeout: 20_000 });
      await audit(page, 'play error', counts);
      await trial().getByRole('button', { name: 'Try again' }).click();
      await expect(trial().getByRole('button', { name: /Report a problem/ })).toBeVisible({ timeout: 20_000 });
      await audit(page, 'play error after Try again', counts);
      await trial().getByRole('button', { name: /Report a problem/ }).click();
      await expect(trial()).toHaveCount(0);
    } else if (position === attention) {
      await audit(page, 'attention check', counts);
      await answerByKeyboard(page, 1);
    } else if (!seen.has('trial')) {
      seen.add('trial');
      await audit(page, 'trial, before playing', counts);
      await page.keyboard.press('Space');
      await expect(trial()).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
      await page.keyboard.press('2');
      await audit(page, 'trial, after playing (choice made)', counts);
      await page.keyboard.press('Enter');
      await expect(trial()).toHaveCount(0);
    } else if (!seen.has('offline')) {
      seen.add('offline');
      await context.setOffline(true);
      await answerByKeyboard(page, 1);
      await expect(page.locator('.save-status')).toHaveAttribute('data-state', 'offline');
      await audit(page, 'offline', counts);
      await context.setOffline(false);
    } else await answerByKeyboard(page, 2);
  }
  expect([...seen]).toEqual(['trial', 'offline']);
  await audit(page, 'completion', counts);

  // The second listener is mid-trial when the study closes.
  await startByKeyboard(late, link);
  await headphoneCheck(late, null, 'antiphase');
  await expect(late.getByRole('heading', { name: /hidden tone/ })).toBeVisible();
  await headphoneCheck(late, null, 'Huggins');
  await currentTrial(late);
  const rw = new Database(join(server.dataDir, 'earmark.db'));
  rw.prepare("UPDATE studies SET status = 'closed' WHERE id = ?").run(server.study);
  rw.close();
  await answerByKeyboard(late, 1);
  await expect(late.getByTestId('study-stopped')).toBeVisible({ timeout: 20_000 });
  await audit(late, 'study closed mid-session', counts);

  const fresh = await browser.newContext({ viewport: SIZES[0] });
  await withAxe(fresh);
  const visitor = await fresh.newPage();
  await visitor.goto(link);
  await expect(visitor.getByRole('heading', { name: 'This study is closed' })).toBeVisible();
  await audit(visitor, 'closed study (late listener)', counts);
  await visitor.goto(`${server.url}/s/no-such-study`);
  await expect(visitor.getByRole('heading', { name: 'Study not found' })).toBeVisible();
  await audit(visitor, 'unknown study', counts);
  await visitor.route('**/api/studies/*/intro', (route) => route.abort('connectionreset'));
  await visitor.goto(link);
  await expect(visitor.getByRole('heading', { name: 'Could not reach the study' })).toBeVisible();
  await audit(visitor, 'study unreachable', counts);

  console.log(counts.join('\n'));
  await Promise.all([context.close(), other.close(), fresh.close()]);
});

test('a study in German (language: de) speaks German on every listener screen, with <html lang="de">, and passes axe', async ({ browser }) => {
  test.setTimeout(120_000);
  server = await startServer({ pairs: 2, attention: 0, practice: 0, language: 'de', breakEvery: 1 });
  const counts: string[] = [];
  const context = await browser.newContext({ viewport: SIZES[0] });
  await withAxe(context);
  const page = await context.newPage();
  await page.goto(`${server.url}/s/${server.study}`);

  await expect(page.getByRole('button', { name: 'Ich stimme zu — weiter' })).toBeFocused();
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hörstudie');
  await expect(page.getByText('Sie sind einverstanden, zuzuhören.')).toBeVisible();
  await expect(page.getByTestId('expectation')).toHaveText(/^Sie bewerten 2 Clips; das dauert etwa \d+ Minuten?\.$/);
  await audit(page, 'consent (de)', counts);
  await page.keyboard.press('Enter');

  await expect(page.getByRole('button', { name: 'Starten' })).toBeFocused();
  await expect(page.getByText('Wählen Sie die Beschreibung, die zur Sprechweise passt.')).toBeVisible();
  await audit(page, 'instructions (de)', counts);
  await page.keyboard.press('Enter');

  const position = await currentTrial(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  await expect(page.locator('.progress-text')).toHaveText('Durchgang 1 von 2');
  await expect(trial).toHaveAccessibleName('Durchgang 1 von 2');
  await expect(trial.getByRole('button', { name: 'Clip abspielen' })).toBeVisible();
  await expect(trial.getByRole('radiogroup', { name: 'Beschreibungen' })).toBeVisible();
  await expect(trial.getByText('Welche Beschreibung trifft besser, wie es gesagt wird?')).toBeVisible();
  await expect(trial.getByText('Hören Sie den ganzen Clip an, um die Auswahl freizuschalten.')).toBeVisible();
  await expect(trial.getByRole('button', { name: 'Auswahl bestätigen' })).toBeDisabled();
  await expect(page.locator('.break-reminder')).toHaveCount(0);
  await audit(page, 'trial before playing (de)', counts);
  await answerByKeyboard(page, 1);
  // breakEvery: 1 — after the first clip a break is suggested, while the next trial is there to answer.
  await expect(page.locator('.break-reminder')).toHaveText('Sie haben einen Clip bewertet. Machen Sie gern eine kurze Pause — Ihre Antworten sind gespeichert.');
  await expect(page.locator('.progress-text')).toHaveText('Durchgang 2 von 2');
  await audit(page, 'trial with a break reminder (de)', counts);
  await answerByKeyboard(page, 2);

  await expect(page.getByRole('heading', { name: 'Vielen Dank — Sie sind fertig!' })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText('Ihr Abschlusscode:')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Zurück zur Studienplattform' })).toBeVisible();
  await page.getByRole('button', { name: 'Auf dieser Seite bleiben' }).click();
  await audit(page, 'completion (de)', counts);
  // Nothing English is left on the screen but the code itself.
  expect(await page.locator('main').innerText()).not.toMatch(/\b(the|your|you|Trial|Thank)\b/);
  expect(server.votes()).toHaveLength(2);
  console.log(counts.join('\n'));
  await context.close();
});

test('every studio and report screen passes axe at 1280×720 and 390×844, and typing in a studio text field beside a previewed trial is never a shortcut', async ({ browser }) => {
  test.setTimeout(240_000);
  server = await startServer({ screening: 'none' });
  const token = researcherToken(server);
  const counts: string[] = [];
  const context = await browser.newContext({ viewport: SIZES[0] });
  await withAxe(context);
  const page = await context.newPage();

  await page.goto(`${server.url}/studio`);
  await expect(page.getByLabel('Access token')).toBeVisible();
  await audit(page, 'studio sign-in', counts);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('study-list')).toContainText(server.study);
  await audit(page, 'studio study list', counts);

  // A new draft from a template that waits for uploads: the YAML editor, its problems, and the preview of the open study.
  await page.getByLabel('Study name').fill('a11y-draft');
  await page.getByLabel('Start from a template').selectOption('metaset-caption-preference');
  await page.getByRole('button', { name: 'Create study' }).click();
  await page.waitForURL('**/studio/a11y-draft');
  await expect(page.getByLabel('study.yaml')).toBeVisible();
  await audit(page, 'studio draft study (YAML editor)', counts);
  await page.getByRole('button', { name: 'Validate' }).click();
  await expect(page.getByTestId('problems')).toBeVisible();
  await audit(page, 'studio validation problems', counts);

  await page.goto(`${server.url}/studio/${server.study}`);
  await expect(page.getByTestId('study-status')).toHaveText('open');
  await audit(page, 'studio open study with dashboard', counts);
  await page.getByRole('button', { name: 'Preview trials' }).click();
  const preview = page.getByTestId('preview').locator('section.trial[data-ready="true"]');
  await expect(preview).toBeVisible({ timeout: 20_000 });
  await audit(page, 'studio trial preview', counts);

  // Keys typed into a text field while a previewed trial is on the page stay text (the study's
  // YAML is read-only once open; the clone name field sits on the same page).
  const field = page.getByLabel('clone name');
  await field.fill('');
  await field.focus();
  await page.keyboard.type('v2 1 2');
  await expect(field).toHaveValue(/v2 ?1 ?2$/);
  await expect(preview.getByRole('radio', { checked: true })).toHaveCount(0);
  await expect(preview.locator('button.play')).toHaveAccessibleName('Play clip');

  await page.goto(`${server.url}/reports/${server.study}`);
  await expect(page.locator('section.dashboard')).toBeVisible({ timeout: 20_000 });
  await audit(page, 'report (live dashboard)', counts);

  console.log(counts.join('\n'));
  await context.close();
});

test('a study that asks for comments offers the box on completion, without a redirect countdown, and stores what is sent', async ({ browser }) => {
  test.setTimeout(120_000);
  server = await startServer({ pairs: 2, attention: 0, practice: 0, comments: true });
  const counts: string[] = [];
  const context = await browser.newContext({ viewport: SIZES[1] });
  await withAxe(context);
  const page = await context.newPage();
  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p-comments`);
  await answerByKeyboard(page, 1);
  await answerByKeyboard(page, 2);

  await expect(page.getByRole('heading', { name: "Thank you — you're done!" })).toBeVisible({ timeout: 20_000 });
  const box = page.getByLabel('Anything you would like to tell the researchers? (optional)');
  await expect(box).toBeVisible();
  // Someone typing must not be taken away: the way back is a link, with no countdown.
  await expect(page.getByRole('link', { name: 'Return to the study platform' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Stay on this page' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Send comments' })).toBeDisabled();
  await audit(page, 'completion with comments', counts);
  await box.fill('Clip 2 was very quiet.');
  // Typing in the box is text, never a shortcut.
  await box.press('Space');
  await expect(box).toHaveValue('Clip 2 was very quiet. ');
  await page.getByRole('button', { name: 'Send comments' }).click();
  await expect(page.locator('form.comments').getByRole('status')).toHaveText('Thank you — your comments were sent.');
  await audit(page, 'completion, comments sent', counts);
  const db = new Database(join(server.dataDir, 'earmark.db'), { readonly: true });
  try {
    const row = db.prepare("SELECT comments FROM listeners WHERE json_extract(external, '$.PROLIFIC_PID') = 'p-comments'").get() as { comments: string };
    expect(row.comments).toBe('Clip 2 was very quiet.');
  } finally {
    db.close();
  }
  console.log(counts.join('\n'));
  await context.close();
});

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { chromium, expect, test, type Page } from '@playwright/test';
import { chromiumLaunch } from '../playwright.config';
import { answerByKeyboard, currentTrial, expectVotesEqualChoices, PLAY_SOUNDS, sessionFinished, startByKeyboard, startByTouch, type Choice } from './support/listener';
import { startMain, startServer, type E2eServer } from './support/server';
import { audit, withAxe } from './support/axe';

let server: E2eServer;
test.afterEach(async () => server?.stop());

/** The researcher's `npm run study -- close` as another connection to the same file does it. */
/** `whenStopped`: what study.yaml's completion.whenStopped gives a listener stopped part-way. */
function setStatus(s: E2eServer, status: 'open' | 'paused' | 'closed', whenStopped?: 'return' | 'finisher') {
  const db = new Database(join(s.dataDir, 'earmark.db'));
  try {
    db.prepare('UPDATE studies SET status = ? WHERE id = ?').run(status, s.study);
    if (whenStopped) db.prepare("UPDATE studies SET definition = json_set(definition, '$.completion.whenStopped', ?) WHERE id = ?").run(whenStopped, s.study);
  } finally {
    db.close();
  }
}

test('on a 390×844 phone over plain HTTP on a LAN host name, the server\'s headphone check plays, is scored by the server and lets the listener vote', async () => {
  server = await startServer({ pairs: 4, screening: 'antiphase', screeningRequired: true });
  const port = new URL(server.url).port;
  const browser = await chromium.launch({ ...chromiumLaunch, args: [...chromiumLaunch.args, '--host-resolver-rules=MAP earmark.test 127.0.0.1'] });
  try {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await startByKeyboard(page, `http://earmark.test:${port}/s/${server.study}?PROLIFIC_PID=p-phone&STUDY_ID=s-1`);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
    // A careful listener with headphones: each round answered right (the targets read from the server's record).
    await expect(page.getByRole('button', { name: 'Play calibration sound' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: /Volume is set/ })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect.poll(() => server.sql('SELECT rounds FROM screening_attempts').length).toBe(1);
    const [{ rounds }] = server.sql<{ rounds: string }>('SELECT rounds FROM screening_attempts');
    for (const [i, round] of (JSON.parse(rounds) as { target: number }[]).entries()) {
      await expect(page.getByText(`Sound ${i + 1} of 6`)).toBeVisible();
      await expect(page.getByRole('button', { name: PLAY_SOUNDS })).toBeFocused(); // the round's sound has arrived from the server
      await page.keyboard.press('Enter');
      await expect(page.getByRole('button', { name: 'First' })).toBeEnabled({ timeout: 15_000 });
      await page.keyboard.press(String(1 + round.target));
    }
    await currentTrial(page);
    const outcome = JSON.parse(server.sql<{ screening: string }>('SELECT screening FROM listeners')[0].screening);
    expect(outcome).toMatchObject({ kind: 'antiphase', passed: true, correct: 6 });
    await answerByKeyboard(page, 1);
    await expect.poll(() => server.votes().length).toBe(1);
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
});

test('over plain HTTP on a LAN host name (no secure context) sessions and votes work; a reload after finishing shows the code', async () => {
  server = await startServer({ pairs: 6 });
  const port = new URL(server.url).port;
  const browser = await chromium.launch({
    ...chromiumLaunch,
    args: [...chromiumLaunch.args, '--host-resolver-rules=MAP earmark.test 127.0.0.1'],
  });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await startByKeyboard(page, `http://earmark.test:${port}/s/${server.study}`);
    // The context really is insecure: no crypto.randomUUID, no Clipboard API.
    expect(await page.evaluate(() => [window.isSecureContext, typeof crypto.randomUUID, typeof navigator.clipboard])).toEqual([
      false,
      'undefined',
      'undefined',
    ]);
    await currentTrial(page);
    const total = Number(/of (\d+)/.exec((await page.locator('.progress-text').textContent()) ?? '')?.[1]);
    const choices: Choice[] = [];
    for (let n = 0; n < total; n++) choices.push(await answerByKeyboard(page, n % 2 ? 1 : 2));
    await expect(page.getByTestId('completion-code')).toHaveText('C0MPL3TE');
    await expect(page.getByTestId('completion')).toBeFocused();
    expectVotesEqualChoices(server.votes(), choices);
    expect(server.votes()).toHaveLength(total);

    // Copy falls back to selecting the code where the Clipboard API is missing.
    await page.getByRole('button', { name: 'Copy code' }).click();
    expect(await page.evaluate(() => getSelection()?.toString().trim())).toBe('C0MPL3TE');

    await page.reload();
    await expect(page.getByTestId('completion-code')).toHaveText('C0MPL3TE');
    await expect(page.getByText('Welcome back')).toHaveCount(0);
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
});

/** Aborts every audio request for the clips in `failing` (a flaky CDN, a dropped connection). */
async function failAudio(page: Page, failing: Set<string>, requests: Map<string, number>) {
  await page.route('**/media/clips/*/audio', async (route) => {
    const id = decodeURIComponent(new URL(route.request().url()).pathname.split('/')[3]);
    requests.set(id, (requests.get(id) ?? 0) + 1);
    if (failing.has(id)) await route.abort('connectionreset');
    else await route.continue();
  });
}

test('an adaptive study on a 390×844 phone over plain HTTP: answered by touch, each item once and chosen as served; once the budget is spent the next phone is told plainly', async ({ browser }) => {
  server = await startServer({ pairs: 8, attention: 1, practice: 1, screening: 'none', design: { kind: 'adaptive', itemsPerListener: 4, stop: { votes: 4 } } });
  const port = new URL(server.url).port;
  const lan = await chromium.launch({ ...chromiumLaunch, args: [...chromiumLaunch.args, '--host-resolver-rules=MAP earmark.test 127.0.0.1'] });
  const phone = () => lan.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const page = await phone();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await startByTouch(page, `http://earmark.test:${port}/s/${server.study}?PROLIFIC_PID=p-adaptive&STUDY_ID=s-1`);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
    await currentTrial(page);
    expect(await page.locator('.progress-text').textContent()).toMatch(/of 6\b/);
    const choices: Choice[] = [];
    for (let n = 0; n < 6; n++) {
      const position = await currentTrial(page);
      const trial = page.locator(`section.trial[data-position="${position}"]`);
      await trial.locator('button.play').tap();
      await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
      await trial.getByRole('radio').nth(n % 2).tap();
      await trial.getByRole('button', { name: 'Confirm choice' }).tap();
      choices.push({ position, choice: n % 2 ? 2 : 1 });
      const practice = trial.getByRole('button', { name: 'Continue' });
      await expect.poll(async () => (await practice.isVisible()) || !(await trial.isVisible()), { timeout: 20_000 }).toBe(true);
      if (await practice.isVisible()) await practice.tap();
    }
    await expect(page.getByTestId('completion-code')).toBeVisible();
    expectVotesEqualChoices(server.votes(), choices);
    const scored = server.votes().filter((v) => v.kind === 'pair');
    expect(scored).toHaveLength(4);
    expect(new Set(scored.map((v) => v.item_id)).size).toBe(4);
    // Practice and the check are fixed at session start; each scored item is chosen by the rule as it is about
    // to be served, so the last one after the listener's earlier votes.
    const positions = server.sql<{ kind: string; chosen_at: string }>('SELECT i.kind, a.chosen_at FROM assignments a JOIN items i ON i.id = a.item_id ORDER BY a.position');
    const start = positions.filter((p) => p.kind !== 'pair').map((p) => p.chosen_at);
    const chosen = positions.filter((p) => p.kind === 'pair').map((p) => p.chosen_at);
    expect(start).toHaveLength(2);
    expect(new Set(start).size).toBe(1);
    expect(chosen).toHaveLength(4);
    expect(chosen.every((at, n) => at >= start[0] && (n === 0 || at >= chosen[n - 1]))).toBe(true);
    expect(chosen[3] > start[0]).toBe(true);
    expect(errors).toEqual([]);

    const late = await phone();
    await startByTouch(late, `http://earmark.test:${port}/s/${server.study}?PROLIFIC_PID=p-late&STUDY_ID=s-1`);
    await expect(late.getByRole('heading', { name: 'This study has all the answers it needs' })).toBeVisible();
    await expect(late.getByText('No completion code is needed')).toBeVisible();
    expect(server.votes()).toHaveLength(6);
  } finally {
    await lan.close();
  }
});

test('a clip that will not load: "Try again" uses a fresh audio element; then report and skip, stored as a problem, never a vote', async ({ page }) => {
  server = await startServer({ pairs: 6, attention: 0 });
  await page.setViewportSize({ width: 1280, height: 720 });
  const failing = new Set<string>();
  const requests = new Map<string, number>();
  await failAudio(page, failing, requests);
  // The clips of positions 1 and 3 fail from the start (their prefetch too), read off the session reply.
  await page.route('**/api/sessions', async (route) => {
    const response = await route.fetch();
    const state = (await response.json()).state as { trial: { clip: { id: string } }; upcoming: Array<{ position: number; clip: { id: string } }> };
    for (const t of state.upcoming) if (t.position === 1 || t.position === 3) failing.add(t.clip.id);
    await route.fulfill({ response });
  });
  await startByKeyboard(page, `${server.url}/s/${server.study}`);
  const choices: Choice[] = [await answerByKeyboard(page, 1)];
  const [skippedClip, recoveredClip] = [...failing];

  const trial = page.locator('section.trial[data-position="1"]');
  await expect(trial).toHaveAttribute('data-failed', 'true', { timeout: 20_000 });
  const alert = trial.getByRole('alert');
  await expect(alert).toContainText('The clip could not be loaded');
  await expect(trial.getByRole('button', { name: 'Play clip' })).toBeDisabled();
  await expect(trial.getByRole('button', { name: /Report a problem/ })).toHaveCount(0);
  await page.screenshot({ path: 'docs/screenshots/play-error.png' });

  const before = requests.get(skippedClip) ?? 0;
  await trial.getByRole('button', { name: 'Try again' }).click();
  await expect(trial).toHaveAttribute('data-failed', 'true', { timeout: 20_000 });
  expect(requests.get(skippedClip) ?? 0).toBeGreaterThan(before); // a fresh element asked again
  await trial.getByRole('button', { name: 'Report a problem and skip this clip' }).click();
  expect(await currentTrial(page)).toBe(2);
  choices.push(await answerByKeyboard(page, 2));

  // Position 3: the network comes back; "Try again" then plays and the answer counts.
  const third = page.locator('section.trial[data-position="3"]');
  await expect(third).toHaveAttribute('data-failed', 'true', { timeout: 20_000 });
  failing.delete(recoveredClip);
  await third.getByRole('button', { name: 'Try again' }).click();
  choices.push(await answerByKeyboard(page, 1));
  while (!(await sessionFinished(page))) choices.push(await answerByKeyboard(page, 2));

  expectVotesEqualChoices(server.votes(), choices);
  expect(server.votes().map((v) => v.position)).not.toContain(1);
  expect(server.sql('SELECT position, problem, detail IS NOT NULL AS has_detail FROM trial_problems')).toEqual([
    { position: 1, problem: 'load_failed', has_detail: 1 },
  ]);
});

test('closing the study mid-session stops the trials at once, keeps the saved votes and gives the way out; a late listener is told plainly', async ({ page, browser }) => {
  server = await startServer({ pairs: 6 });
  await startByKeyboard(page, `${server.url}/s/${server.study}`);
  const choices: Choice[] = [await answerByKeyboard(page, 1), await answerByKeyboard(page, 2)];
  await expect(page.locator('.save-status')).toHaveAttribute('data-pending', '0');
  // This study gives a listener stopped part-way the finisher's code (the default gives none).
  setStatus(server, 'closed', 'finisher');

  await answerByKeyboard(page, 1); // refused: the study is closed
  const stopped = page.getByTestId('study-stopped');
  await expect(stopped).toBeVisible({ timeout: 20_000 });
  await expect(stopped.getByRole('heading')).toHaveText('This study is closed');
  await expect(stopped).toContainText('Your 2 saved answers are kept.');
  await expect(page.getByTestId('completion-code')).toHaveText('C0MPL3TE');
  await expect(page.locator('section.trial')).toHaveCount(0);
  await expect(page.locator('.save-status')).toContainText('1 answer was not accepted');
  expectVotesEqualChoices(server.votes(), choices);

  await page.reload();
  await expect(page.getByTestId('study-stopped')).toBeVisible();
  await expect(page.locator('section.trial')).toHaveCount(0);

  const late = await browser.newPage();
  await late.goto(`${server.url}/s/${server.study}`);
  await expect(late.getByRole('heading', { name: 'This study is closed' })).toBeVisible();
  await expect(late.getByText('no completion code is needed')).toBeVisible();
  await late.close();
  expect(server.votes()).toHaveLength(2);
});

test('"Leave the study": asked once more, the saved answer kept, the way out shown (again after a reload), and the clips left go to the next listener at once', async ({ browser }) => {
  server = await startServer({ pairs: 6, design: { kind: 'incomplete', itemsPerListener: 3, ratingsPerItem: 1 } });
  const context = await browser.newContext();
  await withAxe(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const axe: string[] = [];
  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p-leaving&STUDY_ID=s-1`);
  const choices: Choice[] = [await answerByKeyboard(page, 1)];
  const trial = page.locator('section.trial');
  await expect(trial).toHaveCount(1);

  await page.getByRole('button', { name: 'Leave the study' }).click();
  const ask = page.getByTestId('leave-study');
  await expect(ask).toContainText('Your saved answers are kept');
  await expect(ask.getByRole('button', { name: 'Carry on' })).toBeFocused();
  await audit(page, 'leave-asked', axe);
  await ask.getByRole('button', { name: 'Carry on' }).click();
  await expect(ask).toHaveCount(0);
  await expect(trial).toHaveCount(1);
  expect(server.sql<{ left_at: string | null }>('SELECT left_at FROM listeners')[0].left_at).toBeNull();

  await page.getByRole('button', { name: 'Leave the study' }).click();
  await page.getByRole('button', { name: 'Yes, leave the study' }).click();
  const stopped = page.getByTestId('study-stopped');
  await expect(stopped.getByRole('heading')).toHaveText('You have left the study');
  await expect(stopped).toContainText('Your 1 saved answer is kept.');
  await expect(stopped).toContainText('no completion code is needed');
  await expect(page.locator('section.trial')).toHaveCount(0);
  await audit(page, 'left', axe);
  expectVotesEqualChoices(server.votes(), choices);
  expect(server.sql<{ left_at: string | null }>('SELECT left_at FROM listeners')[0].left_at).not.toBeNull();

  await page.reload();
  await expect(page.getByTestId('study-stopped').getByRole('heading')).toHaveText('You have left the study');
  await expect(page.locator('section.trial')).toHaveCount(0);

  // 6 items, 3 per listener, 1 vote each: the next two listeners get every clip the first one left
  // unanswered (were they still held, the second would find the study full).
  for (const pid of ['p-next-1', 'p-next-2']) {
    const next = await browser.newPage();
    await startByKeyboard(next, `${server.url}/s/${server.study}?PROLIFIC_PID=${pid}&STUDY_ID=s-1`);
    await currentTrial(next);
    await next.close();
  }
  const covered = server.sql<{ n: number }>(
    `SELECT count(*) AS n FROM items i WHERE i.kind = i.trial_kind
        AND (EXISTS (SELECT 1 FROM votes v WHERE v.item_id = i.id)
             OR EXISTS (SELECT 1 FROM assignments a JOIN listeners l ON l.id = a.listener_id WHERE a.item_id = i.id AND l.left_at IS NULL))`,
  );
  expect(covered[0].n).toBe(6);
  expect(errors).toEqual([]);
  await context.close();
});

for (const size of [
  { width: 390, height: 844 },
  { width: 360, height: 640 },
]) {
  test(`on a ${size.width}×${size.height} phone the play control, both captions and Confirm fit without scrolling; each trial starts at its top`, async ({ browser }) => {
    server = await startMain();
    const context = await browser.newContext({ viewport: size, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const page = await context.newPage();
    await page.goto(`${server.url}/s/${server.study}`);
    await page.getByRole('button', { name: /I agree/ }).tap();
    await expect(page.getByText(/Tap ▶ to listen/)).toBeVisible();
    await expect(page.locator('kbd')).toHaveCount(0);
    await page.getByRole('button', { name: 'Start' }).tap();

    const inView = async (name: string, box: { x: number; y: number; width: number; height: number } | null) => {
      expect(box, name).not.toBeNull();
      expect(box!.y, `${name} top`).toBeGreaterThanOrEqual(0);
      expect(box!.y + box!.height, `${name} bottom`).toBeLessThanOrEqual(size.height);
      expect(box!.x + box!.width, `${name} right`).toBeLessThanOrEqual(size.width);
    };
    for (let n = 0; n < 4; n++) {
      const position = await currentTrial(page);
      const trial = page.locator(`section.trial[data-position="${position}"]`);
      expect(await page.evaluate(() => scrollY), `trial ${position} starts at the top`).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
      await inView('trial counter', await page.locator('.progress-text').boundingBox());
      await inView('play', await trial.locator('button.play').boundingBox());
      const captions = trial.getByRole('radio');
      await inView('caption 1', await captions.nth(0).boundingBox());
      await inView('caption 2', await captions.nth(1).boundingBox());
      await inView('confirm', await trial.getByRole('button', { name: 'Confirm choice' }).boundingBox());
      await expect(trial.getByText(/Tap ▶ to listen/)).toBeVisible();

      await trial.locator('button.play').tap();
      await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
      await captions.nth(n % 2).tap();
      if (n === 1 && size.width === 390) await page.screenshot({ path: 'docs/screenshots/trial-phone.png' });
      // Leave the page scrolled down, as a thumb does on the way to Confirm.
      await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
      await trial.getByRole('button', { name: 'Confirm choice' }).tap();
      const practice = trial.getByRole('button', { name: 'Continue' });
      await expect.poll(async () => (await practice.isVisible()) || !(await trial.isVisible()), { timeout: 20_000 }).toBe(true);
      if (await practice.isVisible()) await practice.tap();
    }
    await context.close();
  });
}

test('keyboard only: focused buttons keep Enter/Space, the captions are one radio group, shortcuts stay inside the trial and can be turned off', async ({ page }) => {
  server = await startServer({ pairs: 6, practice: 0 });
  await startByKeyboard(page, `${server.url}/s/${server.study}`);
  let position = await currentTrial(page);
  let trial = page.locator(`section.trial[data-position="${position}"]`);
  await expect(trial).toBeFocused();
  await expect(trial).toHaveAccessibleName(/^Trial 1 of \d+$/);
  await expect(trial).toHaveAccessibleDescription(/Which caption/);

  // Tab to Play; Enter and Space press it (play, pause, play), they never confirm.
  await page.keyboard.press('Tab');
  const play = trial.locator('button.play');
  await expect(play).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
  await page.keyboard.press('Space');
  await expect(play).toHaveAccessibleName('Pause clip');
  await page.keyboard.press('Space');
  await expect(play).toHaveAccessibleName('Play clip');

  // Tab into the radio group: arrows move focus and the choice; Enter on a radio does not confirm.
  await page.keyboard.press('Tab');
  const radios = trial.getByRole('radio');
  await expect(radios.nth(0)).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(radios.nth(1)).toBeFocused();
  await expect(radios.nth(1)).toHaveAttribute('aria-checked', 'true');
  await page.keyboard.press('ArrowLeft');
  await expect(radios.nth(0)).toBeFocused();
  await expect(radios.nth(0)).toHaveAttribute('aria-checked', 'true');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Shift+Tab');
  await expect(play).toBeFocused();
  await page.keyboard.press('Enter'); // the bug this replaces: Enter on Play confirmed the choice
  await expect(play).toHaveAccessibleName(/Pause clip|Loading clip/);
  await page.waitForTimeout(300);
  expect(server.votes()).toHaveLength(0);
  await expect(trial).toBeVisible();

  // Confirm is reached with Tab and pressed with Enter.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  const confirm = trial.getByRole('button', { name: 'Confirm choice' });
  await expect(confirm).toBeFocused();
  await page.keyboard.press('Enter');
  position = await currentTrial(page);
  expect(position).toBe(1);
  await expect.poll(() => server.votes().length).toBe(1);
  trial = page.locator(`section.trial[data-position="${position}"]`);
  await expect(trial).toHaveAccessibleName(/^Trial 2 of \d+$/);

  // Keys outside the trial do nothing; with shortcuts turned off, keys inside do nothing either.
  await page.locator('header h1').click();
  await page.keyboard.press('Space');
  await page.waitForTimeout(300);
  await expect(trial.locator('button.play')).toHaveAccessibleName('Play clip');
  const toggle = trial.getByRole('checkbox', { name: 'Single-key shortcuts' });
  await toggle.focus();
  await page.keyboard.press('Space');
  await expect(toggle).not.toBeChecked();
  await expect(trial.locator('kbd')).toHaveCount(0);
  await trial.focus();
  await page.keyboard.press('Space');
  await page.waitForTimeout(300);
  await expect(trial.locator('button.play')).toHaveAccessibleName('Play clip');
  await toggle.focus();
  await page.keyboard.press('Space');
  await expect(toggle).toBeChecked();
  await trial.focus();
  await page.keyboard.press('Space');
  await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
  await page.keyboard.press('2');
  await page.keyboard.press('Enter');
  await expect.poll(() => server.votes().length).toBe(2);
});

test('reloading during the headphone check does not give a fresh try: the attempt counts', async ({ page }) => {
  server = await startServer({ pairs: 4, screening: 'antiphase' });
  await startByKeyboard(page, `${server.url}/s/${server.study}`);
  await expect(page.getByRole('button', { name: 'Play calibration sound' })).toBeFocused();
  await page.keyboard.press('Enter'); // the calibration sound
  await expect(page.getByRole('button', { name: /Volume is set/ })).toBeFocused();
  await page.keyboard.press('Enter'); // the only attempt the antiphase check allows begins
  await expect(page.getByText('Sound 1 of 6')).toBeVisible();
  await page.reload();
  await page.getByRole('button', { name: 'Continue' }).click();
  await currentTrial(page); // not asked again; the study does not require a pass
  await expect.poll(() => server.sql<{ screening: string | null }>('SELECT screening FROM listeners')[0].screening).not.toBeNull();
  const outcome = JSON.parse(server.sql<{ screening: string }>('SELECT screening FROM listeners')[0].screening);
  expect(outcome).toMatchObject({ kind: 'antiphase', passed: false, correct: 0, attempts: 1 });
});

test('a participant screened out by a required check is told so plainly in a fresh browser too, and no check or trial is offered', async ({ browser }) => {
  server = await startServer({ pairs: 4, screening: 'antiphase', screeningRequired: true });
  const link = `${server.url}/s/${server.study}?PROLIFIC_PID=p-out&STUDY_ID=s-1`;
  // The first browser: the check, answered one interval off in every round (the server's own rounds, read from its file).
  const first = await browser.newContext();
  const page = await first.newPage();
  await startByKeyboard(page, link);
  await expect(page.getByRole('button', { name: 'Play calibration sound' })).toBeFocused();
  await page.keyboard.press('Enter'); // the calibration sound
  await expect(page.getByRole('button', { name: /Volume is set/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect.poll(() => server.sql('SELECT rounds FROM screening_attempts').length).toBe(1);
  const [{ rounds }] = server.sql<{ rounds: string }>('SELECT rounds FROM screening_attempts');
  for (const [i, round] of (JSON.parse(rounds) as { target: number }[]).entries()) {
    await expect(page.getByText(`Sound ${i + 1} of 6`)).toBeVisible();
    await expect(page.getByRole('button', { name: PLAY_SOUNDS })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: 'First' })).toBeEnabled({ timeout: 15_000 });
    await page.keyboard.press(String(1 + ((round.target + 1) % 3)));
  }
  await expect(page.getByRole('heading', { name: 'Thank you for your time' })).toBeVisible();
  await first.close();

  // A fresh browser with the same link: the server's record, not this browser's storage, decides.
  const fresh = await browser.newContext();
  const again = await fresh.newPage();
  await startByKeyboard(again, link);
  await expect(again.getByRole('heading', { name: 'Thank you for your time' })).toBeVisible();
  await expect(again.getByText('the check did not confirm that')).toBeVisible();
  await expect(again.getByRole('button', { name: /Volume is set/ })).toHaveCount(0);
  await expect(again.locator('section.trial')).toHaveCount(0);
  expect(server.votes()).toHaveLength(0);
  expect(server.sql<{ n: number }>('SELECT count(*) AS n FROM screening_attempts')[0].n).toBe(1);
  await fresh.close();
});

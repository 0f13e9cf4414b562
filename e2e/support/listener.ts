import { expect, type Page } from '@playwright/test';

export interface Choice {
  position: number;
  choice: 1 | 2;
}

/** Steps through welcome, instructions and (when asked) the headphone check with keys only. */
export async function startByKeyboard(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByRole('button', { name: /I agree/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Start' })).toBeFocused();
  await page.keyboard.press('Enter');
}

/** Steps through welcome and instructions by touch, as a listener on a phone. */
export async function startByTouch(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('button', { name: /I agree/ }).tap();
  await page.getByRole('button', { name: 'Start' }).tap();
}

/** The Play button of a headphone-check round (client/listener/messages.ts playSounds). */
export const PLAY_SOUNDS = 'Play the sounds';

/** Answers the six headphone-check rounds with keys (any answer: the seeded study does not require a pass). */
export async function screeningByKeyboard(page: Page): Promise<void> {
  // The calibration sound first (Enter plays it), then the volume is set.
  await expect(page.getByRole('button', { name: 'Play calibration sound' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: /Volume is set/ })).toBeFocused();
  await page.keyboard.press('Enter');
  for (let round = 1; round <= 6; round++) {
    await expect(page.getByText(`Sound ${round} of 6`)).toBeVisible();
    await expect(page.getByRole('button', { name: PLAY_SOUNDS })).toBeFocused(); // the round's sound has arrived from the server
    await page.keyboard.press('Enter'); // play, once
    await expect(page.getByRole('button', { name: 'First' })).toBeEnabled({ timeout: 15_000 });
    await page.keyboard.press(String(1 + (round % 3)));
  }
}

/** The trial on screen, once its clip is playable and its waveform drawn. */
export async function currentTrial(page: Page): Promise<number> {
  const trial = page.locator('section.trial[data-ready="true"]');
  await expect(trial).toBeVisible({ timeout: 20_000 });
  return Number(await trial.getAttribute('data-position'));
}

/** Plays the clip with Space, chooses with 1/2 or ←/→, confirms with Enter; returns what was chosen. */
export async function answerByKeyboard(page: Page, choice: 1 | 2, useArrows = false): Promise<Choice> {
  const position = await currentTrial(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  await page.keyboard.press('Space');
  await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
  await page.keyboard.press(useArrows ? (choice === 1 ? 'ArrowLeft' : 'ArrowRight') : String(choice));
  await expect(trial.getByRole('radio', { checked: true })).toHaveCount(1);
  await page.keyboard.press('Enter');
  const practice = trial.getByRole('button', { name: 'Continue' });
  // Practice trials show feedback first; everything else moves straight on.
  await expect.poll(async () => (await practice.isVisible()) || !(await trial.isVisible()), { timeout: 20_000 }).toBe(true);
  if (await practice.isVisible()) {
    await expect(practice).toBeFocused();
    await page.keyboard.press('Enter');
  }
  return { position, choice };
}

/** Votes in the database must be exactly the choices made: one per trial, same caption. */
export function expectVotesEqualChoices(
  votes: Array<{ position: number; first: 'a' | 'b'; chosen: 'a' | 'b' }>,
  choices: Choice[],
): void {
  const byPosition = new Map(choices.map((c) => [c.position, c.choice]));
  expect(byPosition.size).toBe(choices.length);
  expect(votes.map((v) => v.position).sort((a, b) => a - b)).toEqual([...byPosition.keys()].sort((a, b) => a - b));
  for (const v of votes) {
    const shownFirst = byPosition.get(v.position) === 1;
    expect(v.chosen, `vote at position ${v.position}`).toBe(shownFirst ? v.first : v.first === 'a' ? 'b' : 'a');
  }
}

/**
 * Trial turnaround as the client marks it: from the choice on trial p (`earmark:choice:p`) to
 * trial p+1 being playable with its waveform drawn (`earmark:ready:p+1`), in ms. For the bench.
 */
export async function trialTurnarounds(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const at = new Map(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]));
    const out: number[] = [];
    for (const [name, t] of at) {
      const m = /^earmark:choice:(\d+)$/.exec(name);
      const ready = m && at.get(`earmark:ready:${Number(m[1]) + 1}`);
      if (ready !== undefined && ready !== null) out.push(ready - t);
    }
    return out;
  });
}

/**
 * Waits for what follows an answer: the next trial (ready, or failed to load) or the completion
 * code, which shows only once the outbox has drained; true when the session is finished.
 */
export async function sessionFinished(page: Page): Promise<boolean> {
  const next = page.locator('section.trial[data-ready="true"], section.trial[data-failed="true"], [data-testid="completion-code"]');
  await expect(next.first()).toBeVisible({ timeout: 20_000 });
  return page.getByTestId('completion-code').isVisible();
}

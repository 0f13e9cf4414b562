import { expect, test } from '@playwright/test';
import { audit, withAxe } from './support/axe';
import { currentTrial, startByKeyboard } from './support/listener';
import { startServer, type E2eServer } from './support/server';

/**
 * Questions before and after the trials and the per-trial comment box, in real Chromium on a
 * 360×640 phone, with the keyboard: every question has its label, a required one left blank is
 * named, the answers and the comment reach the database, and axe finds nothing serious.
 */
let server: E2eServer;
test.afterEach(async () => server?.stop());

const QUESTIONS = [
  { id: 'age', kind: 'number', text: 'How old are you?', min: 18, max: 99, integer: true, required: true },
  { id: 'device', kind: 'single', text: 'What are you listening with?', options: ['Headphones', 'Earbuds', 'Speakers'], required: true },
  { id: 'languages', kind: 'multiple', text: 'Languages you speak', options: ['English', 'French'] },
  { id: 'native', kind: 'text', text: 'Your first language' },
  { id: 'ease', kind: 'likert', when: 'after', text: 'The task was easy', points: 5, anchors: { low: 'Strongly disagree', high: 'Strongly agree' }, required: true },
];

test('questions before and after the trials and a comment on a trial, by keyboard at 360×640', async ({ browser }) => {
  test.setTimeout(150_000);
  server = await startServer({ pairs: 2, attention: 0, practice: 0, questions: QUESTIONS, trialComments: true });
  const counts: string[] = [];
  const context = await browser.newContext({ viewport: { width: 360, height: 640 } });
  await withAxe(context);
  const page = await context.newPage();
  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p-questions`);

  await expect(page.getByRole('heading', { name: 'A few questions first' })).toBeFocused();
  await audit(page, 'questions before the trials', counts);
  // A required question left blank is named and gets focus.
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByLabel(/How old are you\?/)).toBeFocused();
  await expect(page.getByRole('alert').first()).toContainText('Please answer the questions marked as required.');
  await page.keyboard.type('34');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('radio', { name: 'Headphones' })).toBeFocused();
  await page.keyboard.press('ArrowDown'); // radios: arrows move and choose
  await expect(page.getByRole('radio', { name: 'Earbuds' })).toBeChecked();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  await expect(page.getByRole('checkbox', { name: 'English' })).toBeChecked();
  await page.getByLabel(/Your first language/).fill('Welsh');
  await page.getByRole('button', { name: 'Continue' }).click();

  // The trials, each with its optional comment box; typing in it is text, never a shortcut.
  for (let n = 0; n < 2; n++) {
    const position = await currentTrial(page);
    const trial = page.locator(`section.trial[data-position="${position}"]`);
    await trial.focus();
    await page.keyboard.press('Space');
    await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
    await page.keyboard.press('1');
    const box = trial.getByLabel('Comment on this clip (optional)');
    await expect(box).toBeVisible();
    if (n === 0) {
      await audit(page, 'trial with a comment box', counts);
      await box.fill('A bit quiet');
      await box.press('2'); // a digit in the box is text, not the second caption
      await expect(box).toHaveValue('A bit quiet2');
      await expect(trial.getByRole('radio').first()).toHaveAttribute('aria-checked', 'true');
    }
    await trial.getByRole('button', { name: 'Confirm choice' }).click();
    await expect(trial).toBeHidden({ timeout: 20_000 });
  }

  await expect(page.getByRole('heading', { name: 'A few questions to finish' })).toBeFocused({ timeout: 20_000 });
  await audit(page, 'questions after the trials', counts);
  await page.getByRole('radio', { name: /4/ }).check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('heading', { name: "Thank you — you're done!" })).toBeVisible({ timeout: 20_000 });

  const answers = server.sql<{ question: string; answer: string }>(
    "SELECT a.question, a.answer FROM questionnaire_answers a JOIN listeners l ON l.id = a.listener_id WHERE json_extract(l.external, '$.PROLIFIC_PID') = 'p-questions' ORDER BY a.question",
  );
  expect(Object.fromEntries(answers.map((a) => [a.question, JSON.parse(a.answer)]))).toEqual({ age: 34, device: 'Earbuds', languages: ['English'], native: 'Welsh', ease: 4 });
  expect(server.sql<{ comment: string | null }>('SELECT comment FROM votes ORDER BY position').map((v) => v.comment)).toEqual(['A bit quiet2', null]);
  console.log(counts.join('\n'));
  await context.close();
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { answerByKeyboard, currentTrial, expectVotesEqualChoices, screeningByKeyboard, startByKeyboard, type Choice } from './support/listener';
import { startServer, type E2eServer } from './support/server';

/** RFC 4180 rows (quoted fields, doubled quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field), rows.push(row), (row = []), (field = '');
    } else field += c;
  }
  if (field || row.length) row.push(field), rows.push(row);
  return rows;
}

let server: E2eServer;
test.afterEach(async () => server?.stop());

test('a listener completes the study with the keyboard only; the database and the export hold exactly those votes', async ({ page }) => {
  server = await startServer({ screening: 'antiphase' });
  await page.setViewportSize({ width: 1200, height: 860 });
  // The completion redirect points outside; the test only checks the button is offered.
  await page.route(/example\.org/, (r) => r.abort());
  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p-123&STUDY_ID=s-9&junk=zzz`);
  await screeningByKeyboard(page);

  const choices: Choice[] = [];
  for (let n = 0; n < 9; n++) {
    if (n === 3) {
      await currentTrial(page);
      await page.keyboard.press('Space');
      await expect(page.locator('section.trial[data-unlocked="true"]')).toBeVisible({ timeout: 15_000 });
      await page.keyboard.press('2');
      await page.screenshot({ path: '/work/notes/trial.png' }).catch(() => page.screenshot({ path: 'test-results/trial.png' }));
      await page.keyboard.press('Enter');
      choices.push({ position: 3, choice: 2 });
      continue;
    }
    choices.push(await answerByKeyboard(page, n % 3 === 0 ? 1 : 2, n % 2 === 1));
  }
  await expect(page.getByTestId('completion-code')).toHaveText('C0MPL3TE', { timeout: 20_000 });
  await expect(page.getByRole('link', { name: 'Return to the study platform' })).toHaveAttribute('href', /example\.org/);
  await expect(page.locator('.save-status')).toHaveAttribute('data-pending', '0');

  const votes = server.votes();
  expect(votes).toHaveLength(9);
  expectVotesEqualChoices(votes, choices);
  for (const v of votes) {
    expect(v.play_count).toBeGreaterThanOrEqual(1);
    expect(v.heard_to_end).toBe(1);
  }

  const out = mkdtempSync(join(tmpdir(), 'earmark-export-'));
  try {
    execFileSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'server/cli/export.ts', server.study, out, '--data', server.dataDir]);
    const [header, ...rows] = parseCsv(readFileSync(join(out, 'votes.csv'), 'utf8')).filter((r) => r.join('') !== '');
    expect(header.slice(0, 4)).toEqual(['item_id', 'listener_id', 'first', 'chosen']);
    const analysed = votes.filter((v) => v.kind !== 'practice');
    expect(rows).toHaveLength(analysed.length);
    expect(rows.map((r) => `${r[0]}:${r[2]}:${r[3]}`).sort()).toEqual(analysed.map((v) => `${v.item_id}:${v.first}:${v.chosen}`).sort());
    const [itemsHeader, ...items] = parseCsv(readFileSync(join(out, 'items.csv'), 'utf8')).filter((r) => r.join('') !== '');
    expect(itemsHeader).toEqual(['item_id', 'utterance_id', 'system_a', 'system_b', 'attention', 'expected']);
    expect(items).toHaveLength(8);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('a reload mid-session resumes at the same trial', async ({ page }) => {
  server = await startServer();
  await startByKeyboard(page, `${server.url}/s/${server.study}`);
  const choices: Choice[] = [];
  for (let n = 0; n < 3; n++) choices.push(await answerByKeyboard(page, 1));
  const before = await currentTrial(page);
  expect(before).toBe(3);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
  await page.keyboard.press('Enter');
  expect(await currentTrial(page)).toBe(before);
  await expect(page.getByText(`Trial ${before + 1} of 9`)).toBeVisible();
  while (choices.length < 9) choices.push(await answerByKeyboard(page, 2));
  await expect(page.getByTestId('completion-code')).toBeVisible();
  expectVotesEqualChoices(server.votes(), choices);
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  answerByKeyboard,
  currentTrial,
  expectVotesEqualChoices,
  screeningByKeyboard,
  startByKeyboard,
  trialTurnarounds,
  type Choice,
} from './support/listener';
import { captureResponses, expectBlinded } from './support/blinding';
import { startMain, startServer, type E2eServer } from './support/server';

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

test('a listener completes the demo study with the keyboard only; the database and the export hold exactly those votes', async ({ page }) => {
  server = await startMain();
  await page.setViewportSize({ width: 1200, height: 860 });
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  const capture = captureResponses(page);
  await startByKeyboard(page, `${server.url}/s/${server.study}?PROLIFIC_PID=p-123&STUDY_ID=s-9&junk=zzz`);
  await currentTrial(page);
  const total = Number(/of (\d+)/.exec((await page.locator('.progress-text').textContent()) ?? '')?.[1]);
  expect(total).toBeGreaterThanOrEqual(12);

  const choices: Choice[] = [];
  for (let n = 0; n < total; n++) {
    if (n === 3) {
      // A screenshot of a trial with its clip heard and a caption chosen, kept with the test results.
      const position = await currentTrial(page);
      await page.keyboard.press('Space');
      await expect(page.locator('section.trial[data-unlocked="true"]')).toBeVisible({ timeout: 15_000 });
      await page.keyboard.press('2');
      await expect(page.getByRole('radio', { checked: true })).toHaveCount(1);
      await page.waitForTimeout(300); // let the selection transition settle
      await page.screenshot({ path: 'test-results/trial.png' });
      await page.keyboard.press('Enter');
      choices.push({ position, choice: 2 });
      continue;
    }
    choices.push(await answerByKeyboard(page, n % 3 === 0 ? 1 : 2, n % 2 === 1));
  }
  await expect(page.getByTestId('completion-code')).toHaveText('DEMO-EARMARK', { timeout: 20_000 });
  await expect(page.locator('.save-status')).toHaveAttribute('data-pending', '0');
  // The strict CSP (no inline script, style only with the page's nonce) blocked nothing.
  expect(problems).toEqual([]);
  const turnaround = await trialTurnarounds(page);
  console.log(`choice → next trial playable and drawn (ms): ${turnaround.map((t) => t.toFixed(0)).join(' ')}`);
  expect(turnaround.length).toBeGreaterThanOrEqual(total - 2);

  const votes = server.votes();
  expect(votes).toHaveLength(total);
  expectVotesEqualChoices(votes, choices);
  for (const v of votes) {
    expect(v.play_count).toBeGreaterThanOrEqual(1);
    expect(v.heard_to_end).toBe(1);
  }
  await capture.settled();
  expectBlinded(capture.received, server);

  const out = mkdtempSync(join(tmpdir(), 'earmark-export-'));
  try {
    execFileSync(process.execPath, ['--import', 'tsx', 'server/cli/export.ts', server.study, out, '--data', server.dataDir]);
    const [header, ...rows] = parseCsv(readFileSync(join(out, 'votes.csv'), 'utf8')).filter((r) => r.join('') !== '');
    expect(header.slice(0, 4)).toEqual(['item_id', 'listener_id', 'first', 'chosen']);
    const analysed = votes.filter((v) => v.kind !== 'practice');
    expect(rows).toHaveLength(analysed.length);
    expect(rows.map((r) => `${r[0]}:${r[2]}:${r[3]}`).sort()).toEqual(analysed.map((v) => `${v.item_id}:${v.first}:${v.chosen}`).sort());
    const [itemsHeader, ...items] = parseCsv(readFileSync(join(out, 'items.csv'), 'utf8')).filter((r) => r.join('') !== '');
    expect(itemsHeader).toEqual(['item_id', 'utterance_id', 'system_a', 'system_b', 'attention', 'expected', 'kind']);
    expect(new Set(items.map((r) => r[0]))).toEqual(new Set(analysed.map((v) => v.item_id)));
    // The link's PROLIFIC_PID sits in listeners.csv beside the listener's votes (same listener_id); junk is not kept.
    const [listenersHeader, ...listeners] = parseCsv(readFileSync(join(out, 'listeners.csv'), 'utf8')).filter((r) => r.join('') !== '');
    expect(listenersHeader.slice(0, 7)).toEqual(['listener_id', 'started_at', 'completed_at', 'screening', 'PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID']);
    expect(listeners).toHaveLength(1);
    expect(listeners[0].slice(4, 7)).toEqual(['p-123', 's-9', '']);
    expect(new Set(rows.map((r) => r[1]))).toEqual(new Set([listeners[0][0]]));
    expect(listeners[0][2]).not.toBe('');
    expect(JSON.parse(readFileSync(join(out, 'study.json'), 'utf8'))).toMatchObject({ study: server.study, minAttention: 0.75 });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('after the headphone check, a reload mid-session resumes at the same trial', async ({ page }) => {
  server = await startServer({ screening: 'antiphase' });
  await startByKeyboard(page, `${server.url}/s/${server.study}`);
  await screeningByKeyboard(page);
  await currentTrial(page); // trials start once the server has the check's outcome
  const [screening] = server.sql<{ screening: string }>('SELECT screening FROM listeners');
  const outcome = JSON.parse(screening.screening);
  expect(outcome).toMatchObject({ kind: 'antiphase', trials: 6, attempts: 1 });
  expect(outcome.passed).toBe(outcome.correct >= 5);
  expect(outcome.audioOutput.sampleRate).toBeGreaterThan(0);
  expect(outcome.userAgent).toContain('Chrome');

  const choices: Choice[] = [];
  for (let n = 0; n < 3; n++) choices.push(await answerByKeyboard(page, 1));
  const before = await currentTrial(page);
  expect(before).toBe(3);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeVisible();
  await page.keyboard.press('Enter');
  expect(await currentTrial(page)).toBe(before); // straight back to the trial, no second headphone check
  await expect(page.getByText(`Trial ${before + 1} of 9`)).toBeVisible();
  while (choices.length < 9) choices.push(await answerByKeyboard(page, 2));
  await expect(page.getByTestId('completion-code')).toBeVisible();
  expectVotesEqualChoices(server.votes(), choices);
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { expect, test, type Download, type Page } from '@playwright/test';
import { answerByKeyboard, currentTrial, screeningByKeyboard, startByKeyboard } from './support/listener';
import { startServer, type E2eServer } from './support/server';

const root = fileURLToPath(new URL('..', import.meta.url));
const DEMO = join(root, 'studies', 'demo');
const STUDY = 'caps-e2e';

let server: E2eServer;
test.afterEach(async () => server?.stop());

/** One number from the server's database (read-only, as the dashboard must agree with it). */
function count(sql: string): number {
  const db = new Database(join(server.dataDir, 'earmark.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(sql).get(STUDY) as { n: number }).n;
  } finally {
    db.close();
  }
}

/**
 * A careful listener: attention checks answered rightly (the test looks the answer up in the
 * database by the listener's PROLIFIC_PID; the page cannot tell), other trials alternately.
 */
async function answer(page: Page, pid: string, n: number): Promise<void> {
  const position = await currentTrial(page);
  const db = new Database(join(server.dataDir, 'earmark.db'), { readonly: true });
  const item = db
    .prepare(
      `SELECT a.first, i.expected FROM assignments a JOIN items i ON i.id = a.item_id JOIN listeners l ON l.id = a.listener_id
       WHERE json_extract(l.external, '$.PROLIFIC_PID') = ? AND a.position = ?`,
    )
    .get(pid, position) as { first: 'a' | 'b'; expected: 'a' | 'b' | null };
  db.close();
  await answerByKeyboard(page, item.expected === null ? (((n % 2) + 1) as 1 | 2) : item.expected === item.first ? 1 : 2);
}

/** A fresh server (no screening) and the studio signed in with a new researcher token; page errors are collected. */
async function signedInStudio(page: Page): Promise<{ problems: string[]; token: string }> {
  server = await startServer({ screening: 'none' });
  const token = execFileSync(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', 'token', 'create', '--role', 'researcher', '--data', server.dataDir], {
    cwd: root,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .at(-1)!;
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${server.url}/studio`);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return { problems, token };
}

/** A listener in their own browser context: welcome, headphone check, then `trials` answers. */
async function listener(page: Page, link: string, pid: string, trials: number): Promise<void> {
  await startByKeyboard(page, `${link}?PROLIFIC_PID=${pid}`);
  await screeningByKeyboard(page);
  for (let n = 0; n < trials; n++) await answer(page, pid, n);
}

test('a researcher builds a MetaSet study from uploaded files, previews, opens and watches it; the dashboard and the export agree with the database', async ({ page, browser }, info) => {
  test.setTimeout(150_000);
  const { problems, token } = await signedInStudio(page);
  await page.setViewportSize({ width: 1280, height: 900 });

  // Create the study from the MetaSet template.
  await expect(page.getByTestId('study-list')).toContainText('e2e-study');
  // The token stays out of this origin's storage: the server keeps it in an HttpOnly cookie.
  expect(await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }) + document.cookie)).not.toContain(token.split('.')[1]);
  await page.getByLabel('Study name').fill(STUDY);
  await page.getByLabel('Start from a template').selectOption('metaset-caption-preference');
  await page.getByRole('button', { name: 'Create study' }).click();
  await page.waitForURL(`**/studio/${STUDY}`);

  // Upload the caption and judge files; sources come from them, with the audio root on the server.
  const files = (dir: string) => readdirSync(join(DEMO, dir)).map((f) => join(DEMO, dir, f));
  await page.getByLabel('caption files').setInputFiles(files('captions'));
  await expect(page.getByTestId('caption-files')).toHaveText('lyra.json, parrot-7b.json, sonnet-cap.json, whisper-style.json');
  await page.getByLabel('judge files').setInputFiles(files('judges'));
  await expect(page.getByTestId('judge-files')).toContainText('whisper-style__judge-beta__run2.json', { timeout: 20_000 });
  await page.getByLabel('audio root').fill(join(DEMO, 'audio'));
  await page.getByRole('button', { name: 'Use uploaded files as sources' }).click();
  const yaml = page.getByLabel('study.yaml');
  await expect(yaml).toHaveValue(/kind: metaset, file: captions\/lyra\.json, system: lyra/);

  // The template's 100 items do not fit the 8 of 16 clips its 8 attention checks leave: refused at the line that asks too much.
  await page.getByRole('button', { name: 'Validate' }).click();
  await expect(page.getByTestId('problems')).toContainText(/line \d+:\d+ items\.count — asked for 100 items/);

  // A study small enough for two listeners: 6 items over 3 |Δ| buckets, 2 generated attention checks.
  const edited = (await yaml.inputValue())
    .replace('count: 100', 'count: 6')
    .replace('minPerSystem: 10', 'minPerSystem: 1')
    .replace('buckets: 5', 'buckets: 3')
    .replace('count: 8', 'count: 2')
    .replace('code: REPLACE-ME', 'code: E2E-DONE')
    .replace(/\n *redirectUrl: .*/, '');
  await yaml.fill(edited);
  await page.getByRole('button', { name: 'Build' }).click();
  await expect(page.getByTestId('build-summary')).toContainText('Build: created — 6 items, 2 attention checks, 0 practice trials');
  await expect(page.getByTestId('build-summary')).toContainText('judge |Δ| bucket');
  await expect(page.getByTestId('study-status')).toHaveText('draft');

  // Preview the first trial: the listener's own screen, the database's captions, no vote written.
  await page.getByRole('button', { name: 'Preview trials' }).click();
  const preview = page.getByTestId('preview').locator('section.trial[data-ready="true"]');
  await expect(preview).toBeVisible({ timeout: 20_000 });
  const db = new Database(join(server.dataDir, 'earmark.db'), { readonly: true });
  const first = db.prepare('SELECT caption_a, caption_b FROM items WHERE study_id = ? AND seq = 0').get(STUDY) as { caption_a: string; caption_b: string };
  db.close();
  await expect(preview.getByRole('radio')).toHaveText([new RegExp(escape(first.caption_a)), new RegExp(escape(first.caption_b))]);
  expect(count('SELECT count(*) AS n FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ?')).toBe(0);

  // Open it and take the listener link.
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('study-status')).toHaveText('open');
  await expect(page.getByTestId('link-prolific')).toContainText('PROLIFIC_PID={{%PROLIFIC_PID%}}');
  const link = (await page.getByTestId('link-plain').textContent())!;

  // Two listeners in separate contexts, at once: one finishes, the other stops half way.
  const [a, b] = await Promise.all([browser.newContext(), browser.newContext()]);
  const [pa, pb] = await Promise.all([a.newPage(), b.newPage()]);
  await Promise.all([listener(pa, link, 'pa', 8), listener(pb, link, 'pb', 4)]);
  await expect(pa.getByRole('heading', { name: /Thank you/ })).toBeVisible();

  // Mid-study: the dashboard (polling) shows 2 started, 1 completed, 12 votes.
  await expect(page.getByTestId('dash-votes')).toHaveText('12', { timeout: 10_000 });
  await expect(page.getByTestId('dash-started')).toHaveText('2');
  await expect(page.getByTestId('dash-completed')).toHaveText('1');
  const dashboard = page.locator('section.dashboard');
  await dashboard.screenshot({ path: info.outputPath('dashboard.png') });
  if (process.env.DASHBOARD_SCREENSHOT) await dashboard.screenshot({ path: process.env.DASHBOARD_SCREENSHOT });

  for (let n = 4; n < 8; n++) await answer(pb, 'pb', n);
  await expect(pb.getByRole('heading', { name: /Thank you/ })).toBeVisible();
  await Promise.all([a.close(), b.close()]);

  // Every figure equals the database.
  const votes = count('SELECT count(*) AS n FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ?');
  expect(votes).toBe(16);
  await expect(page.getByTestId('dash-votes')).toHaveText(String(votes), { timeout: 10_000 });
  await expect(page.getByTestId('dash-started')).toHaveText(String(count('SELECT count(*) AS n FROM listeners WHERE study_id = ?')));
  await expect(page.getByTestId('dash-completed')).toHaveText(String(count('SELECT count(*) AS n FROM listeners WHERE study_id = ? AND completed_at IS NOT NULL')));
  const answered = count("SELECT count(*) AS n FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ? AND i.kind = 'attention'");
  const right = count("SELECT count(*) AS n FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ? AND i.kind = 'attention' AND v.chosen = i.expected");
  await expect(page.getByTestId('dash-attention')).toBeVisible();
  expect(right).toBe(answered);
  await expect(page.locator('section.dashboard')).toContainText(`${right}/${answered} checks right`);
  await expect(page.getByTestId('dash-attention')).toHaveText('100%');
  await expect(page.getByTestId('dash-screening')).toContainText(
    `${count("SELECT count(*) AS n FROM listeners WHERE study_id = ? AND json_extract(screening, '$.passed') = 1")} passed`,
  );

  // The participants table: each Prolific id with its progress, attention and the completion code shown.
  const participants = page.getByTestId('participants');
  for (const pid of ['pa', 'pb']) {
    const row = participants.locator(`tr[data-participant="${pid}"]`);
    await expect(row).toContainText('8/8', { timeout: 15_000 });
    await expect(row).toContainText('E2E-DONE');
    await expect(row).toContainText('APPROVE');
  }

  // The approve/reject CSV lists both ids with APPROVE and our listener ids.
  const downloads: Download[] = [];
  page.on('download', (d) => downloads.push(d));
  await page.getByRole('button', { name: 'Approve/reject CSV' }).click();
  await expect.poll(() => downloads.length).toBe(1);
  expect(downloads[0].suggestedFilename()).toBe(`${STUDY}-approvals.csv`);
  const approvals = readFileSync((await downloads[0].path())!, 'utf8').trim().split('\r\n');
  expect(approvals[0]).toBe('participant_id,decision,reason,rejection_category,listener_id,completion_code');
  const listeners = new Database(join(server.dataDir, 'earmark.db'), { readonly: true });
  const listenerOf = listeners.prepare<[string], { id: string }>("SELECT id FROM listeners WHERE json_extract(external, '$.PROLIFIC_PID') = ?");
  for (const pid of ['pa', 'pb']) {
    expect(approvals).toContain(`${pid},APPROVE,completed 8 of 8 trials; attention checks 2/2 right,,${listenerOf.get(pid)!.id},E2E-DONE`);
  }
  listeners.close();

  // Export the bundle through the UI: one zip that `npm run analyze` reads as it is, with the same votes.
  await page.getByRole('button', { name: 'Export bundle' }).click();
  await expect.poll(() => downloads.length).toBe(2);
  expect(downloads[1].suggestedFilename()).toBe(`${STUDY}-bundle.zip`);
  const dir = mkdtempSync(join(tmpdir(), 'earmark-e2e-bundle-'));
  try {
    const zip = join(dir, downloads[1].suggestedFilename());
    await downloads[1].saveAs(zip);
    const out = join(dir, 'report.json');
    execFileSync('npm', ['run', '--silent', 'analyze', '--', zip, '--format', 'json', '--out', out], { cwd: root, encoding: 'utf8' });
    const report = JSON.parse(readFileSync(out, 'utf8'));
    expect(report.listeners.total).toBe(2);
    expect(report.listeners.attention_pass_rate).toBe(1);
    expect(report.reliability.votes).toBe(votes - answered);
    expect(report.reliability.krippendorff_alpha).not.toBeNull();
    expect(report.judges.length).toBeGreaterThan(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // The HTML report opens in a tab of its own.
  const popup = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'HTML report' }).click();
  await expect((await popup).getByRole('heading', { name: /Krippendorff|reliability/i }).first()).toBeVisible();
  expect(problems).toEqual([]);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test('one home for studies: drafts survive a reload, an upload never replaces a file unasked, refuses what it cannot read, and is undone', async ({ page }) => {
  test.setTimeout(90_000);
  const { problems } = await signedInStudio(page);

  // The new-study form keeps what was typed across a reload.
  await page.getByLabel('Study name').fill('home-e2e');
  await page.getByLabel('Start from a template').selectOption('metaset-caption-preference');
  await page.reload();
  await expect(page.getByTestId('draft-restored')).toBeVisible();
  await expect(page.getByLabel('Study name')).toHaveValue('home-e2e');
  await expect(page.getByRole('textbox', { name: 'study.yaml' })).toHaveValue(/kind: metaset/);
  await page.getByRole('button', { name: 'Create study' }).click();
  await page.waitForURL('**/studio/home-e2e');

  // Unsaved edits come back after a reload, and go once saved.
  const yaml = page.getByLabel('study.yaml');
  const saved = await yaml.inputValue();
  await yaml.fill(`${saved}# a note written before the tab was closed\n`);
  await page.reload();
  await expect(page.getByTestId('draft-restored')).toContainText('Your unsaved edits');
  await expect(yaml).toHaveValue(/# a note written before the tab was closed\n$/);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('draft-restored')).toHaveCount(0);
  await page.reload();
  await expect(yaml).toHaveValue(/# a note written before the tab was closed\n$/);
  await expect(page.getByTestId('draft-restored')).toHaveCount(0);

  // The same file again: the studio asks; declined, nothing changes; accepted, it replaces.
  const lyra = join(DEMO, 'captions', 'lyra.json');
  await page.getByLabel('caption files').setInputFiles(lyra);
  await expect(page.getByTestId('caption-files')).toHaveText('lyra.json');
  await expect(page.getByRole('button', { name: 'Undo upload captions/lyra.json' })).toBeVisible();
  const asked: string[] = [];
  page.once('dialog', (d) => (asked.push(d.message()), void d.dismiss()));
  await page.getByLabel('caption files').setInputFiles([]);
  await page.getByLabel('caption files').setInputFiles(lyra);
  await expect.poll(() => asked).toEqual(['captions/lyra.json is already uploaded. Replace it? (Undo brings the old one back.)']);
  await expect(page.getByRole('button', { name: 'Undo upload captions/lyra.json' })).toBeVisible();
  page.once('dialog', (d) => void d.accept());
  await page.getByLabel('caption files').setInputFiles([]);
  await page.getByLabel('caption files').setInputFiles(lyra);
  await page.getByRole('button', { name: 'Undo replace captions/lyra.json' }).click();
  await page.getByRole('button', { name: 'Undo upload captions/lyra.json' }).click();
  await expect(page.getByTestId('caption-files')).toHaveText('none yet');

  // A file that is not text is refused with the reason; the good one beside it is taken.
  await page.getByLabel('caption files').setInputFiles([
    { name: 'sheet.json', mimeType: 'application/json', buffer: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xff, 0xfe, 0x00, 0x10]) },
    { name: 'lyra.json', mimeType: 'application/json', buffer: readFileSync(lyra) },
  ]);
  await expect(page.getByTestId('upload-refused')).toContainText('captions/sheet.json is not UTF-8 text (line 1 holds a byte that is not)');
  await expect(page.getByTestId('caption-files')).toHaveText('lyra.json');

  // The study, not built yet, is in the studio's list and in `npm run study -- list`.
  await page.goto(`${server.url}/studio`);
  await expect(page.getByTestId('study-list').locator('tr', { hasText: 'home-e2e' })).toContainText('not built');
  const listed = execFileSync(process.execPath, ['--import', 'tsx', 'server/cli/study.ts', 'list', '--data', server.dataDir], { cwd: root, encoding: 'utf8' });
  expect(listed).toContain(`home-e2e\tnot built\t\t${join(server.dataDir, 'studies', 'home-e2e')}`);
  expect(problems).toEqual([]);
});

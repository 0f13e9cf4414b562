import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { audit, withAxe } from './support/axe';
import { currentTrial, startByKeyboard, startByTouch } from './support/listener';
import { startServer, type E2eServer } from './support/server';
import { analyzeBundle, exportBundle, signInToStudio } from './support/studio';

/** A figure saved on its own: one SVG document that loads nothing and carries its own styling. */
function expectStandaloneSvg(svg: string, names: string[]): void {
  expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  expect(svg).toMatch(/<title>[^<]+<\/title>/);
  expect(svg).toContain('role="img"');
  expect(svg).not.toMatch(/href=|url\(|@import|class=|var\(--|<style/i);
  expect(svg).toMatch(/font-family="[^"]+"/);
  for (const name of names) expect(svg).toContain(name);
}

/**
 * A MOS rating study end to end, as its people meet it: a researcher writes a rating study.yaml
 * on the demo clips in the studio, builds, previews and opens it; one listener rates on a phone
 * (360×740, touch), one on a laptop (keys only); the dashboard shows the MOS table; the exported
 * zip, read by `npm run analyze`, gives the `ratings` section with exactly the scores given, and
 * its HTML report the MOS section.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const DEMO = join(root, 'studies', 'demo');
const STUDY = 'mos-e2e';
const ACR = ['Bad', 'Poor', 'Fair', 'Good', 'Excellent'];
const PRACTICE_CAPTION = 'A female voice with a very high pitch speaks loudly and forcefully.';
const ATTENTION_CAPTION = 'A high-pitched female voice speaks very quickly and excitedly.';

/** Everything after the sources block, written as a researcher would for a 5-point ACR caption rating. */
function ratingStudy(sources: string): string {
  return `title: How well does the caption describe the voice?
consent: You agree that your ratings are recorded.
instructions: Listen to each clip, then rate how well the caption describes **how** it is spoken.
question: How well does the caption describe **how** the speech is delivered?
trial:
  kind: rating
  scale: { points: 5 }
  caption: true
${sources}
items:
  mode: sample
  count: 6
  systems: [lyra, sonnet-cap, parrot-7b]
  minPerSystem: 2
  maxPerUtterance: 1
attentionChecks:
  mode: explicit
  list:
    - { utterance: "metaset:demo/demo-03.wav", caption: "${ATTENTION_CAPTION}", score: 1 }
practice:
  - { utterance: "metaset:demo/demo-06.wav", caption: "${PRACTICE_CAPTION}", score: 5 }
design: { kind: crossed }
listening: { mode: whole }
screening: { kind: none, required: false }
exclusion: { minAttention: 0.5 }
targetListeners: 2
completion: { code: MOS-DONE }
linkParameters: [PROLIFIC_PID]
seed: 7
`;
}

let server: E2eServer;
test.afterEach(async () => server?.stop());

interface Rated {
  position: number;
  score: number;
}

/** What the test may know and the page must not: the trial's role and required score. */
function itemAt(pid: string, position: number): { kind: string; expected: string | null; caption_a: string | null; system_a: string } {
  const [row] = server.sql<{ kind: string; expected: string | null; caption_a: string | null; system_a: string }>(
    `SELECT i.kind, i.expected, i.caption_a, i.system_a FROM assignments a JOIN items i ON i.id = a.item_id JOIN listeners l ON l.id = a.listener_id
     WHERE json_extract(l.external, '$.PROLIFIC_PID') = ? AND a.position = ?`,
    pid,
    position,
  );
  return row;
}

/**
 * The score this listener gives: attention checks their required score, practice a wrong one
 * first (to see the feedback name the intended score), ordinary trials a spread that differs by
 * listener.
 */
function scoreFor(item: { kind: string; expected: string | null }, n: number, offset: number): number {
  if (item.kind === 'attention') return Number(item.expected);
  if (item.kind === 'practice') return 3;
  return 1 + ((n + offset) % 5);
}

/** Waits for the feedback of a practice trial and checks it names the intended score in words. */
async function practiceFeedback(trial: Locator, item: { kind: string; expected: string | null }): Promise<Locator | null> {
  const go = trial.getByRole('button', { name: 'Continue' });
  if (item.kind !== 'practice') {
    await expect(trial).toBeHidden({ timeout: 20_000 });
    return null;
  }
  await expect(trial.getByRole('alert').locator('p')).toHaveText(`Not quite — the intended rating is ${item.expected} (${ACR[Number(item.expected) - 1]}).`, { timeout: 20_000 });
  return go;
}

/** A phone listener: taps ▶, waits for the listening requirement, taps a point of the scale, taps Confirm. */
async function rateByTouch(page: Page, pid: string, n: number, shot: string): Promise<Rated> {
  const position = await currentTrial(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  const item = itemAt(pid, position);
  const radios = trial.getByRole('radio');
  await expect(radios).toHaveCount(5);
  await expect(radios.first()).toBeDisabled();
  if (item.caption_a !== null) await expect(trial.locator('.rated-caption')).toContainText(item.caption_a);
  await trial.getByRole('button', { name: 'Play clip' }).tap();
  await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });

  // Every point of the scale is a full touch target, and nothing scrolls sideways at 360 px.
  for (const box of await Promise.all((await radios.all()).map((r) => r.boundingBox()))) {
    expect(box!.height).toBeGreaterThanOrEqual(44);
    expect(box!.width).toBeGreaterThanOrEqual(44);
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

  const score = scoreFor(item, n, 0);
  await radios.nth(score - 1).tap();
  await expect(radios.nth(score - 1)).toHaveAttribute('aria-checked', 'true');
  if (n === 1) await page.screenshot({ path: shot, fullPage: true });
  await trial.getByRole('button', { name: 'Confirm rating' }).tap();
  const go = await practiceFeedback(trial, item);
  if (go) await go.tap();
  return { position, score };
}

/** A laptop listener, keys only: Space plays, the digit picks, Enter confirms (and continues after feedback). */
async function rateByKeyboard(page: Page, pid: string, n: number, counts: string[], shot: string): Promise<Rated> {
  const position = await currentTrial(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  const item = itemAt(pid, position);
  await expect(trial).toBeFocused();
  await page.keyboard.press('Space');
  await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
  const score = scoreFor(item, n, 2);
  await page.keyboard.press(String(score));
  await expect(trial.getByRole('radio', { checked: true })).toHaveText(new RegExp(`^${score}${ACR[score - 1]}`));
  if (n === 1) await audit(page, 'rating trial', counts);
  if (n === 1) await page.screenshot({ path: shot });
  await page.keyboard.press('Enter');
  const go = await practiceFeedback(trial, item);
  if (go) {
    await expect(go).toBeFocused();
    await audit(page, 'rating practice feedback', counts);
    await page.keyboard.press('Enter');
  }
  return { position, score };
}

/** The listener's stored ratings by position, straight from the database. */
function storedScores(pid: string): Rated[] {
  return server.sql<Rated>(
    `SELECT v.position, v.score FROM votes v JOIN listeners l ON l.id = v.listener_id
     WHERE json_extract(l.external, '$.PROLIFIC_PID') = ? ORDER BY v.position`,
    pid,
  );
}

test('a rating study: built in the studio, rated on a phone and a laptop, exported and analysed into MOS', async ({ page, browser }, info) => {
  test.setTimeout(240_000);
  server = await startServer({ screening: 'none' });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInToStudio(page, server);

  // The researcher's study: the demo captions and clips as sources, a rating study.yaml around them.
  await page.getByLabel('Study name').fill(STUDY);
  await page.getByLabel('Start from a template').selectOption('metaset-caption-preference');
  await page.getByRole('button', { name: 'Create study' }).click();
  await page.waitForURL(`**/studio/${STUDY}`);
  await page.getByLabel('caption files').setInputFiles(readdirSync(join(DEMO, 'captions')).map((f) => join(DEMO, 'captions', f)));
  await expect(page.getByTestId('caption-files')).toHaveText('lyra.json, parrot-7b.json, sonnet-cap.json, whisper-style.json');
  await page.getByLabel('audio root').fill(join(DEMO, 'audio'));
  await page.getByRole('button', { name: 'Use uploaded files as sources' }).click();
  const yaml = page.getByLabel('study.yaml');
  await expect(yaml).toHaveValue(/kind: metaset, file: captions\/lyra\.json, system: lyra/);
  const sources = /^sources:\n(?:[ #].*\n)+/m.exec(await yaml.inputValue())![0].replace(/^ *- \{ kind: judge.*\n/m, '').trimEnd();
  await yaml.fill(ratingStudy(sources));
  await page.getByRole('button', { name: 'Build' }).click();
  await expect(page.getByTestId('build-summary')).toContainText('Build: created', { timeout: 20_000 });

  // The preview shows the listener's own rating screen with ACR's labels; nothing is recorded.
  await page.getByRole('button', { name: 'Preview trials' }).click();
  const preview = page.getByTestId('preview').locator('section.trial[data-ready="true"]');
  await expect(preview).toBeVisible({ timeout: 20_000 });
  await expect(preview.getByRole('radio')).toHaveText(ACR.map((label, i) => `${i + 1}${label}`));
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('study-status')).toHaveText('open');
  const link = (await page.getByTestId('link-plain').textContent())!;

  // A listener on a phone: touch only, 360 px wide.
  const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true });
  const pp = await phone.newPage();
  pp.on('pageerror', (e) => problems.push(e.message));
  await startByTouch(pp, `${link}?PROLIFIC_PID=phone`);
  const byPhone: Rated[] = [];
  while (!(await pp.getByTestId('completion-code').isVisible())) {
    byPhone.push(await rateByTouch(pp, 'phone', byPhone.length, info.outputPath('rating-phone.png')));
    await expect(pp.locator('section.trial[data-ready="true"], [data-testid="completion-code"]').first()).toBeVisible({ timeout: 20_000 });
  }
  await expect(pp.getByTestId('completion-code')).toHaveText('MOS-DONE');

  // A listener on a laptop: keys only, axe on the rating screen and the practice feedback.
  const laptop = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await withAxe(laptop);
  const lp = await laptop.newPage();
  lp.on('pageerror', (e) => problems.push(e.message));
  await startByKeyboard(lp, `${link}?PROLIFIC_PID=laptop`);
  const counts: string[] = [];
  const byLaptop: Rated[] = [];
  while (!(await lp.getByTestId('completion-code').isVisible())) {
    byLaptop.push(await rateByKeyboard(lp, 'laptop', byLaptop.length, counts, info.outputPath('rating-laptop.png')));
    await expect(lp.locator('section.trial[data-ready="true"], [data-testid="completion-code"]').first()).toBeVisible({ timeout: 20_000 });
  }
  console.log(counts.join('\n'));
  expect(counts).toHaveLength(4);
  await Promise.all([phone.close(), laptop.close()]);

  // Stored exactly as rated: one score per trial, practice and attention included.
  const trials = 6 + 1 + 1;
  expect(byPhone).toHaveLength(trials);
  expect(byLaptop).toHaveLength(trials);
  expect(storedScores('phone')).toEqual(byPhone);
  expect(storedScores('laptop')).toEqual(byLaptop);

  // What the analysis should find: the ordinary ratings per system.
  const rated = new Map<string, number[]>();
  for (const [pid, scores] of [['phone', byPhone], ['laptop', byLaptop]] as const)
    for (const r of scores) {
      const item = itemAt(pid, r.position);
      if (item.kind !== 'rating') continue;
      rated.set(item.system_a, [...(rated.get(item.system_a) ?? []), r.score]);
    }
  expect([...rated.keys()].sort()).toEqual(['lyra', 'parrot-7b', 'sonnet-cap']);

  // The dashboard's MOS table: every system with its count.
  const mos = page.getByTestId('dash-mos');
  await expect(mos.locator('tbody tr')).toHaveCount(3, { timeout: 15_000 });
  for (const [system, scores] of rated) {
    const row = mos.locator('tr', { has: page.getByRole('cell', { name: system, exact: true }) });
    await expect(row.getByRole('cell').nth(2), system).toHaveText(String(scores.length), { timeout: 10_000 });
    await expect(row.getByRole('cell').nth(3), system).toHaveText((scores.reduce((a, b) => a + b, 0) / scores.length).toFixed(2));
  }
  await page.getByTestId('dash-ratings').screenshot({ path: info.outputPath('rating-dashboard.png') });

  // The dashboard's MOS figure is the report's: a named image, saved as a standalone SVG.
  await expect(page.getByTestId('dash-ratings').getByRole('img', { name: 'Mean opinion score per system with 95% intervals' })).toBeVisible();
  const savedFigure = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Save the MOS figure (SVG)' }).click();
  expect((await savedFigure).suggestedFilename()).toBe(`${STUDY}-mos.svg`);
  expectStandaloneSvg(readFileSync((await (await savedFigure).path())!, 'utf8'), [...rated.keys()]);

  // The exported zip, analysed offline: the ratings section has the MOS of exactly these scores.
  const dir = mkdtempSync(join(tmpdir(), 'earmark-e2e-mos-'));
  try {
    const zip = await exportBundle(page, dir);
    const json = join(dir, 'report.json');
    const html = join(dir, 'report.html');
    analyzeBundle(zip, 'json', json);
    analyzeBundle(zip, 'html', html);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.listeners.total).toBe(2);
    expect(report.ratings.scale).toEqual([1, 5]);
    expect(report.ratings.listeners).toBe(2);
    expect(report.ratings.votes).toBe([...rated.values()].flat().length);
    const bySystem = new Map<string, { n: number; mos: number }>(report.ratings.systems.map((s: { system: string; n: number; mos: number }) => [s.system, s]));
    for (const [system, scores] of rated) {
      expect(bySystem.get(system)?.n, system).toBe(scores.length);
      expect(bySystem.get(system)?.mos, system).toBeCloseTo(scores.reduce((a, b) => a + b, 0) / scores.length, 10);
    }
    expect(readFileSync(html, 'utf8')).toContain('How good is each system? (ratings, MOS)');

    // The HTML report in the browser: rating sections only, the quality view, and a figure that downloads as itself.
    const reportPage = await browser.newPage();
    await reportPage.goto(pathToFileURL(html).href);
    await expect(reportPage.getByRole('heading', { name: 'How good is each system? (ratings, MOS)' })).toBeVisible();
    await expect(reportPage.getByRole('heading', { name: 'How carefully did each listener answer?' })).toBeVisible();
    await expect(reportPage.getByRole('heading', { name: /reliability|judge|Bradley|vote on each item/i })).toHaveCount(0);
    await expect(reportPage.locator('table[data-table="listener-quality"] tbody tr')).toHaveCount(2);
    await expect(reportPage.locator('table[data-table="clips"] tbody tr')).toHaveCount(6);
    await expect(reportPage.getByRole('img', { name: 'Mean opinion score per system with 95% intervals' })).toBeVisible();
    const reportFigure = reportPage.waitForEvent('download');
    await reportPage.getByRole('link', { name: 'Download this figure (mos.svg)' }).click();
    expect((await reportFigure).suggestedFilename()).toBe('mos.svg');
    expectStandaloneSvg(readFileSync((await (await reportFigure).path())!, 'utf8'), [...rated.keys()]);
    await reportPage.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  expect(problems).toEqual([]);
});

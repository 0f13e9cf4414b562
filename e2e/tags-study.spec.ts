import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Browser, type BrowserContextOptions, type Locator, type Page } from '@playwright/test';
import { writeTestWav } from '../server/testing/seed';
import { audit, withAxe } from './support/axe';
import { currentTrial, sessionFinished, startByKeyboard, startByTouch } from './support/listener';
import { startMain, type E2eServer } from './support/server';
import { analyzeBundle, exportBundle, signInToStudio } from './support/studio';

/**
 * A tags study end to end (analysis-spec §5.5): a researcher imports RAVDESS-named clips with
 * `npm run manifest -- import ravdess`, writes a tags study (the RAVDESS emotion preset and a multi
 * attribute) in the studio, builds and opens it. A listener on a phone (touch) and one on a laptop
 * (keys only) label every clip through the real page, axe clean; the exported zip, read by
 * `npm run analyze`, reports the majority's accuracy against the file names' emotions.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const STUDY = 'ravdess-tags-e2e';
const EMOTIONS = ['neutral', 'calm', 'happy', 'sad', 'angry', 'fearful', 'disgust', 'surprised'];
const STEMS = ['03-01-05-02-01-01-01', '03-01-04-01-02-01-01', '03-01-03-02-01-02-02', '03-01-01-01-01-01-02', '03-01-06-01-02-02-01'];
const emotionOf = (utterance: string) => EMOTIONS[Number(/03-01-(\d\d)/.exec(utterance)![1]) - 1];

const STUDY_YAML = `title: Which emotion do you hear?
consent: You agree that your answers are recorded.
instructions: Listen to each clip to the end, then say which emotion you hear and describe the voice.
question: Which emotion does the speaker express?
trial:
  kind: tags
  attributes:
    - ravdess-emotion
    - { name: timbre, mode: multi, values: [breathy, husky, shrill], hints: { husky: rough and low } }
items:
  mode: explicit
  list:
${STEMS.slice(1).map((s) => `    - { utterance: "ravdess:${s}" }`).join('\n')}
attentionChecks:
  mode: explicit
  list:
    - { utterance: "ravdess:${STEMS[0]}", attribute: emotion, value: angry }
design: { kind: crossed }
listening: { mode: whole }
screening: { kind: none, required: false }
exclusion: { minAttention: 0.5 }
targetListeners: 2
completion: { code: TAGS-DONE }
linkParameters: [PROLIFIC_PID]
seed: 5
`;

let server: E2eServer;
let outputs = '';
test.afterEach(async () => {
  await server?.stop();
  if (outputs) rmSync(outputs, { recursive: true, force: true });
});

function manifest(...args: string[]): string {
  const run = spawnSync('npm', ['run', '--silent', 'manifest', '--', ...args, '--data', server.dataDir], { cwd: root, encoding: 'utf8' });
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  return `${run.stdout}\n${run.stderr}`;
}

/** The utterance of the trial at `position` for listener `pid`: what the test knows and the page must not show. */
function utteranceAt(pid: string, position: number): string {
  const [row] = server.sql<{ utterance_id: string }>(
    `SELECT i.utterance_id FROM assignments a JOIN items i ON i.id = a.item_id JOIN listeners l ON l.id = a.listener_id
     WHERE i.study_id = ? AND json_extract(l.external, '$.PROLIFIC_PID') = ? AND a.position = ?`,
    STUDY, pid, position,
  );
  return row.utterance_id;
}

const group = (trial: Locator, name: RegExp) => trial.getByRole('group', { name });

/** Phone: tap play, wait for the clip to end, tap the emotion and "husky" (or "None of these" on odd trials), tap Confirm. */
async function answerByTouch(page: Page, n: number, counts: string[]): Promise<void> {
  const position = await currentTrial(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  const emotion = emotionOf(utteranceAt('phone', position));
  await expect(group(trial, /emotion/).getByRole('radio').first()).toBeDisabled();
  await trial.getByRole('button', { name: /Play/ }).tap();
  await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
  for (const option of await trial.locator('label.tags-option').all()) {
    const box = (await option.boundingBox())!;
    expect(Math.min(box.width, box.height), (await option.textContent()) ?? '').toBeGreaterThanOrEqual(44);
  }
  await group(trial, /emotion/).getByLabel(emotion, { exact: true }).tap();
  await group(trial, /timbre/).getByLabel(n % 2 === 0 ? 'husky' : 'None of these').tap();
  if (n === 0) await audit(page, 'tags trial (phone)', counts);
  await trial.getByRole('button', { name: 'Confirm labels' }).tap();
  await expect(trial).toBeHidden({ timeout: 20_000 });
}

/** Laptop, keys only: Space plays; Tab reaches the emotion group, arrows pick; Tab to timbre, Space ticks; Enter confirms. */
async function answerByKeyboard(page: Page, n: number, counts: string[]): Promise<void> {
  const position = await currentTrial(page);
  const trial = page.locator(`section.trial[data-position="${position}"]`);
  const emotion = emotionOf(utteranceAt('laptop', position));
  await expect(trial).toBeFocused();
  await page.keyboard.press('Space');
  await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 15_000 });
  const radios = group(trial, /emotion/).getByRole('radio');
  // Tab until the first emotion radio has focus (the player and the waveform come first).
  for (let i = 0; i < 12 && !(await radios.first().evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(radios.first()).toBeFocused();
  // ArrowDown from the first radio (which it does not select) walks the group; the first is neutral.
  const target = EMOTIONS.indexOf(emotion);
  if (target === 0) await page.keyboard.press('Space');
  for (let i = 0; i < target; i++) await page.keyboard.press('ArrowDown');
  await expect(group(trial, /emotion/).getByLabel(emotion, { exact: true })).toBeChecked();
  await page.keyboard.press('Tab');
  if (n % 2 === 1) for (let i = 0; i < 3; i++) await page.keyboard.press('Tab'); // to "None of these"
  await page.keyboard.press('Space');
  await expect(group(trial, /timbre/).getByLabel(n % 2 === 0 ? 'breathy' : 'None of these')).toBeChecked();
  if (n === 0) await audit(page, 'tags trial (laptop)', counts);
  await page.keyboard.press('Enter');
  await expect(trial).toBeHidden({ timeout: 20_000 });
}

async function session(browser: Browser, device: BrowserContextOptions, url: string, start: (page: Page, url: string) => Promise<void>, answer: (page: Page, n: number) => Promise<void>, problems: string[]): Promise<number> {
  const context = await browser.newContext(device);
  await withAxe(context);
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(e.message));
  await start(page, url);
  let n = 0;
  do await answer(page, n++);
  while (!(await sessionFinished(page)));
  await expect(page.getByTestId('completion-code')).toHaveText('TAGS-DONE');
  await context.close();
  return n;
}

test('a tags study of RAVDESS clips: imported with the CLI, built in the studio, labelled on a phone and a laptop, exported and analysed against the file names', async ({ page, browser }, info) => {
  test.setTimeout(300_000);
  server = await startMain();
  outputs = mkdtempSync(join(tmpdir(), 'earmark-e2e-ravdess-'));
  const problems: string[] = [];
  STEMS.forEach((stem, i) => {
    mkdirSync(join(outputs, 'RAVDESS', `Actor_${stem.slice(-2)}`), { recursive: true });
    writeTestWav(join(outputs, 'RAVDESS', `Actor_${stem.slice(-2)}`, `${stem}.wav`), 0.6 + 0.05 * i, 200 + 30 * i);
  });
  expect(manifest('import', 'ravdess', join(outputs, 'RAVDESS'))).toContain(`clips: ${STEMS.length} imported`);

  await page.setViewportSize({ width: 1280, height: 900 });
  await signInToStudio(page, server);
  await page.getByLabel('Study name').fill(STUDY);
  await page.getByLabel('Start from a template').selectOption('ravdess-emotion-tags');
  await page.getByRole('button', { name: 'Create study' }).click();
  await page.waitForURL(`**/studio/${STUDY}`);
  await page.getByLabel('study.yaml').fill(STUDY_YAML);
  await page.getByRole('button', { name: 'Build' }).click();
  await expect(page.getByTestId('build-summary')).toContainText('Build: created', { timeout: 30_000 });
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('study-status')).toHaveText('open');
  const link = (await page.getByTestId('link-plain').textContent())!;

  const counts: string[] = [];
  const phone = await session(browser, { viewport: { width: 360, height: 640 }, hasTouch: true, isMobile: true }, `${link}?PROLIFIC_PID=phone`, startByTouch, (p, n) => answerByTouch(p, n, counts), problems);
  const laptop = await session(browser, { viewport: { width: 1280, height: 720 } }, `${link}?PROLIFIC_PID=laptop`, startByKeyboard, (p, n) => answerByKeyboard(p, n, counts), problems);
  console.log(counts.join('\n'));
  expect([phone, laptop]).toEqual([STEMS.length, STEMS.length]);
  expect(problems).toEqual([]);

  const zip = await exportBundle(page, outputs);
  const out = join(outputs, 'report.json');
  analyzeBundle(zip, 'json', out);
  const report = JSON.parse(readFileSync(out, 'utf8')) as { annotation: { attributes: Array<{ attribute: string; type: string; items: number; alpha: number | null; metadata: { n: number; accuracy: number; confusion: unknown[] } | null; majority: unknown[] }> } };
  const emotion = report.annotation.attributes.find((a) => a.attribute === 'emotion')!;
  // Both listeners gave each clip its file-name emotion: the majority is right on all four scored clips.
  expect(emotion).toMatchObject({ type: 'single', items: 4, metadata: { n: 4, accuracy: 1 } });
  const timbre = report.annotation.attributes.find((a) => a.attribute === 'timbre')!;
  expect(timbre).toMatchObject({ type: 'multi', items: 4, metadata: null });
  console.log(`emotion: majority accuracy against the file names ${emotion.metadata!.accuracy} (n = ${emotion.metadata!.n}); timbre α-MASI ${timbre.alpha}`);
  void info;
});

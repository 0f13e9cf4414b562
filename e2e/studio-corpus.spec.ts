/**
 * A researcher who never writes YAML: a new study from the audio-only MOS template, a RAVDESS
 * folder uploaded from their disk, the settings changed in the form beside study.yaml (which keeps
 * its comments and follows along), built and opened. axe stays clean on every screen of the way.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { sine, wavBytes } from '../audio-manifest/test/audio';
import { audit, withAxe } from './support/axe';
import { startServer, type E2eServer } from './support/server';

const root = fileURLToPath(new URL('..', import.meta.url));
const STUDY = 'natural-e2e';
const STEMS = ['03-01-01-01-01-01-01', '03-01-05-02-01-01-01', '03-01-03-01-01-02-01', '03-01-01-01-01-01-02', '03-01-05-02-02-02-02', '03-01-04-01-01-01-02'];

let server: E2eServer;
let corpus: string;
test.afterEach(async () => {
  await server?.stop();
  if (corpus) rmSync(corpus, { recursive: true, force: true });
});

/** A RAVDESS subset on the researcher's disk, in the corpus's own layout. */
function ravdessFolder(): string {
  corpus = mkdtempSync(join(tmpdir(), 'earmark-e2e-ravdess-'));
  const dir = join(corpus, 'RAVDESS');
  STEMS.forEach((stem, n) => {
    mkdirSync(join(dir, `Actor_${stem.slice(-2)}`), { recursive: true });
    writeFileSync(join(dir, `Actor_${stem.slice(-2)}`, `${stem}.wav`), wavBytes({ sampleRate: 16000, channels: [sine(0.4, 16000, 170 + 20 * n, 0.3)] }));
  });
  return dir;
}

test('from an uploaded RAVDESS folder to an open audio-only MOS study, through the settings form', async ({ browser }) => {
  test.setTimeout(180_000);
  server = await startServer({ screening: 'none' });
  const token = execFileSync(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', 'token', 'create', '--role', 'researcher', '--data', server.dataDir], { cwd: root, encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1)!;
  const counts: string[] = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await withAxe(context);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${server.url}/studio`);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // The list says where studies may read from.
  await expect(page.getByTestId('corpus-roots')).toContainText(join(server.dataDir, 'studies'));

  await page.getByLabel('Study name').fill(STUDY);
  await page.getByLabel('Start from a template').selectOption('ravdess-audio-mos');
  await page.getByRole('button', { name: 'Create study' }).click();
  await page.waitForURL(`**/studio/${STUDY}`);
  const form = page.getByRole('form', { name: 'study settings' });
  const yaml = page.getByLabel('study.yaml');
  await expect(form.getByLabel('Title')).toHaveValue('How natural does the voice sound?');
  await audit(page, 'studio settings form', counts);

  // The corpus from the researcher's disk: a folder upload, decoded and checked by the server.
  await page.getByLabel('audio folder name').fill('ravdess');
  await page.getByLabel('audio folder', { exact: true }).setInputFiles(ravdessFolder());
  await expect(page.getByTestId('audio-folders')).toHaveText('audio/ravdess: 6 clips (RAVDESS)', { timeout: 30_000 });
  await page.getByRole('button', { name: 'Use uploaded files as sources' }).click();
  await expect(yaml).toHaveValue(/\{ kind: ravdess, dir: audio\/ravdess \}/);

  // Validate names the template's placeholder code; the form is where it is fixed.
  await page.getByRole('button', { name: 'Validate' }).click();
  await expect(page.getByTestId('problems')).toContainText('items.count');
  await audit(page, 'studio settings form with problems', counts);

  await form.getByLabel('Title').fill('How natural is this actor?');
  await form.getByLabel('Items to sample').fill('4');
  await form.getByLabel('Design').selectOption('crossed');
  await expect(form.getByLabel('Items per listener')).toHaveCount(0);
  await form.getByLabel('Target listeners').fill('3');
  await form.getByLabel('Completion code (from your platform)').fill('NAT-7Q2X');
  await form.getByLabel('If you pause or close the study part-way').selectOption('finisher');
  // The YAML follows the form and keeps its comments.
  await expect(yaml).toHaveValue(/^title: How natural is this actor\?$/m);
  await expect(yaml).toHaveValue(/^  count: 4$/m);
  await expect(yaml).toHaveValue(/^  code: NAT-7Q2X\n  whenStopped: finisher$/m);
  await expect(yaml).toHaveValue(/# Audio-only MOS of corpus clips/);
  await expect(yaml).toHaveValue(/systems: \[ ?ravdess ?\] +# the corpus is the system of its clips/);
  // And the form follows the YAML.
  const text = await yaml.inputValue();
  await yaml.fill(text.replace('targetListeners: 3', 'targetListeners: 2'));
  await expect(form.getByLabel('Target listeners')).toHaveValue('2');

  await page.getByRole('button', { name: 'Validate' }).click();
  await expect(page.getByTestId('build-summary')).toContainText('Valid — 4 items, 0 attention checks, 1 practice trials');
  await page.getByRole('button', { name: 'Build' }).click();
  await expect(page.getByTestId('build-summary')).toContainText('Build: created — 4 items, 0 attention checks, 1 practice trials', { timeout: 30_000 });
  await expect(page.getByTestId('study-status')).toHaveText('draft');
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('study-status')).toHaveText('open');
  await expect(page.getByTestId('link-plain')).toHaveText(`${server.url}/s/${STUDY}`);
  await audit(page, 'studio open study with the settings form', counts);
  expect(server.sql<{ title: string; status: string }>('SELECT title, status FROM studies WHERE id = ?', STUDY)).toEqual([{ title: 'How natural is this actor?', status: 'open' }]);
  expect(problems).toEqual([]);
  await context.close();
});

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { researcherToken, type E2eServer } from './server';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Opens the studio and signs in with a fresh researcher token, as a researcher pasting the one they were given. */
export async function signInToStudio(page: Page, server: E2eServer): Promise<void> {
  await page.goto(`${server.url}/studio`);
  await page.getByLabel('Access token').fill(researcherToken(server));
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The study page's Export bundle, saved into `dir` under the name the server gives it; returns the zip's path. */
export async function exportBundle(page: Page, dir: string): Promise<string> {
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export bundle' }).click();
  const zip = join(dir, (await download).suggestedFilename());
  await (await download).saveAs(zip);
  return zip;
}

/** `npm run analyze` on an export bundle, as an analyst runs it offline; returns what it printed (the report is in `out`). */
export function analyzeBundle(bundle: string, format: 'json' | 'html', out: string): string {
  return execFileSync('npm', ['run', '--silent', 'analyze', '--', bundle, '--format', format, '--out', out], { cwd: root, encoding: 'utf8' });
}

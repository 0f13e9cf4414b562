/**
 * Trial turnaround in Chromium: a listener completes the demo study (20 trials) by keyboard
 * against the built client and the real server; the time from the choice to the next clip being
 * playable with its waveform drawn is read from the marks the client sets (performance.mark
 * `earmark:choice:<position>` on confirm, `earmark:ready:<position>` once audio readyState ≥ 3 and
 * the waveform is drawn). Baseline in the same page: one API round trip (fetch of the study
 * intro). Also: the gzip size of every script the listener page loads.
 */
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { chromiumLaunch } from '../../playwright.config';
import { databaseFile, openDatabase } from '../../db/open';
import { setStudyStatus } from '../../studies/build';
import { loadStudyDir } from '../../studies/load';
import { root, startBenchServer } from '../lib/child';
import { tempDir } from '../lib/corpus';
import { judge, median, quantile, type Figure } from '../lib/figure';
import type { BenchOptions } from './options';

const TRIALS = 20;

async function buildClient(outDir: string): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: join(root, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
}

/** Answers every trial with the keyboard (Space, 1, Enter) and returns the choice → next-ready times. */
async function session(page: Page, url: string): Promise<{ turnaround: number[]; roundTrip: number[] }> {
  await page.goto(url);
  await page.getByRole('button', { name: /I agree/ }).click();
  await page.getByRole('button', { name: 'Start' }).click();
  for (let trial = 0; trial < TRIALS; trial++) {
    const ready = page.locator('section.trial[data-ready="true"]');
    await ready.waitFor({ timeout: 20_000 });
    const position = await ready.getAttribute('data-position');
    const unlocked = page.locator(`section.trial[data-position="${position}"][data-unlocked="true"]`);
    await page.keyboard.press('Space');
    // The whole clip must be heard; a listener whose playback stalled on this busy machine plays it again.
    await unlocked.waitFor({ timeout: 8_000 }).catch(async () => {
      await page.keyboard.press('Space');
      await unlocked.waitFor({ timeout: 15_000 });
    });
    await page.keyboard.press('1');
    await page.keyboard.press('Enter');
    await page.locator(`section.trial[data-position="${position}"]`).waitFor({ state: 'detached', timeout: 20_000 });
  }
  await page.getByTestId('completion-code').waitFor({ timeout: 20_000 });
  // No named functions inside: tsx would wrap them in a helper the page does not have.
  return page.evaluate(async () => {
    const marks = performance.getEntriesByType('mark');
    const turnaround: number[] = [];
    for (const choice of marks.filter((m) => m.name.startsWith('earmark:choice:'))) {
      const next = `earmark:ready:${Number(choice.name.split(':')[2]) + 1}`;
      const ready = marks.find((m) => m.name === next);
      if (ready) turnaround.push(ready.startTime - choice.startTime);
    }
    const roundTrip: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await (await fetch('/api/studies/demo/intro', { cache: 'no-store' })).json();
      roundTrip.push(performance.now() - t0);
    }
    return { turnaround, roundTrip };
  });
}

export async function benchTurnaround(options: BenchOptions): Promise<Figure[]> {
  const dir = tempDir('turnaround');
  const client = join(dir, 'client');
  await buildClient(client);
  const dataDir = join(dir, 'data');
  const db = openDatabase(databaseFile({ dataDir }));
  try {
    await loadStudyDir(db, join(root, 'studies', 'demo'));
    setStudyStatus(db, 'demo', 'open');
  } finally {
    db.close();
  }
  const server = await startBenchServer({ data: dataDir, client });
  const browser = await chromium.launch({ ...chromiumLaunch, headless: true });
  try {
    const runs: { turnaround: number[]; roundTrip: number[] }[] = [];
    let scripts: { url: string; bytes: number; gzip: number }[] = [];
    // What a listener asks of the server per trial (bench/README.md, capacity): media requests and
    // the bytes the server answers with (Content-Length of each 200/206), and requests to the
    // session routes (/api/sessions, /api/session/...: votes, state, screening).
    const media: { audioRequests: number; peaksRequests: number; bytes: number; apiRequests: number }[] = [];
    for (let run = 0; run < options.runs; run++) {
      const asked = { audioRequests: 0, peaksRequests: 0, bytes: 0, apiRequests: 0 };
      media.push(asked);
      const context = await browser.newContext();
      const page = await context.newPage();
      const loaded: Promise<{ url: string; bytes: number; gzip: number }>[] = [];
      page.on('response', (response) => {
        const type = response.headers()['content-type'] ?? '';
        const path = new URL(response.url()).pathname;
        if (path.startsWith('/media/clips/')) {
          if (path.endsWith('/audio')) asked.audioRequests++;
          else asked.peaksRequests++;
          asked.bytes += Number(response.headers()['content-length'] ?? 0);
        } else if (path.startsWith('/api/session')) asked.apiRequests++;
        if (response.request().resourceType() === 'script' || type.includes('javascript')) {
          loaded.push(response.body().then((body) => ({ url: new URL(response.url()).pathname, bytes: body.length, gzip: gzipSync(body).length })));
        }
      });
      runs.push(await session(page, `${server.real}/s/demo`));
      scripts = await Promise.all(loaded);
      await context.close();
    }
    const pooled = runs.flatMap((r) => r.turnaround);
    if (runs.some((r) => r.turnaround.length !== TRIALS - 1)) {
      throw new Error(`turnaround bench: expected ${TRIALS - 1} transitions per session, got ${runs.map((r) => r.turnaround.length)}`);
    }
    const roundTrips = runs.map((r) => median(r.roundTrip));
    const kb = scripts.reduce((sum, s) => sum + s.gzip, 0) / 1024;
    return [
      judge({
        id: 'turnaround.median',
        subject: { label: 'choice → next clip playable + waveform drawn, median', unit: 'ms', runs: runs.map((r) => median(r.turnaround)) },
        baseline: { label: 'API round trip from the page', unit: 'ms', runs: roundTrips },
        budget: { on: 'value', op: '<=', limit: 100 },
        details: {
          trialsPerSession: TRIALS,
          mediaPerTrial: media.map((m) => ({
            audioRequests: m.audioRequests / TRIALS, peaksRequests: m.peaksRequests / TRIALS, kib: Math.round(m.bytes / TRIALS / 102.4) / 10,
            apiRequests: m.apiRequests / TRIALS,
          })),
          transitions: runs.map((r) => r.turnaround.map((t) => Math.round(t * 10) / 10)), pooledP95: quantile(pooled, 0.95) },
      }),
      judge({
        id: 'turnaround.p95',
        subject: { label: 'choice → next clip ready, p95', unit: 'ms', runs: runs.map((r) => quantile(r.turnaround, 0.95)) },
        baseline: { label: 'API round trip from the page', unit: 'ms', runs: roundTrips },
        budget: { on: 'value', op: '<=', limit: 250 },
      }),
      judge({
        id: 'listener.js',
        subject: { label: 'listener page JavaScript, gzip', unit: 'KiB', runs: [kb] },
        budget: { on: 'value', op: '<=', limit: 150 },
        missReason: `scripts: ${scripts.map((s) => `${s.url} ${(s.gzip / 1024).toFixed(1)} KiB`).join(', ')}`,
        details: { scripts },
      }),
    ];
  } finally {
    await browser.close();
    await server.stop();
  }
}

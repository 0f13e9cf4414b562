import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { decode, peaks } from '../audio-manifest/decode';
import { audit, withAxe } from './support/axe';
import { bundle } from './support/bundle';

/**
 * The A/B listener trial (trials/ab/AbTrial.tsx) in real Chromium on its own, before the server
 * serves A/B studies: a test page (e2e/support/ab-harness.tsx, bundled here by esbuild with React)
 * renders the component with a fake spec, its two stimuli two real demo recordings of different
 * length served with their peaks by a loopback server on port 0. Listeners on a laptop (keys only)
 * and a phone (360×640, touch, axe), in German with "no preference" and practice feedback, and a
 * stimulus that will not load.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const AUDIO: Record<string, string> = { a: 'demo-04', b: 'demo-10' };
let server: Server;
let base = '';
const durations: Record<string, number> = {};

test.beforeAll(async () => {
  const script = await bundle('e2e/support/ab-harness.tsx', 'AbHarness');
  const css = readFileSync(join(root, 'client', 'styles.css'));
  const wavs: Record<string, Buffer> = {};
  const peakJson: Record<string, string> = {};
  for (const [name, file] of Object.entries(AUDIO)) {
    wavs[name] = readFileSync(join(root, 'studies', 'demo', 'audio', `${file}.wav`));
    const d = await decode(new Uint8Array(wavs[name]));
    durations[name] = d.channels[0].length / d.sampleRate;
    peakJson[name] = JSON.stringify(peaks(d.channels, d.sampleRate));
  }
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>A/B trial</title><link rel="stylesheet" href="/styles.css"></head><body><div id="root"></div><script src="/harness.js"></script></body></html>`;
  server = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    const send = (type: string, body: string | Buffer) => res.writeHead(200, { 'content-type': type }).end(body);
    const audio = /^\/audio\/(\w+)\.wav$/.exec(path)?.[1];
    const peak = /^\/peaks\/(\w+)\.json$/.exec(path)?.[1];
    if (path === '/') send('text/html', html);
    else if (path === '/harness.js') send('text/javascript', script);
    else if (path === '/styles.css') send('text/css', css);
    else if (audio && wavs[audio]) send('audio/wav', wavs[audio]);
    else if (peak && peakJson[peak]) send('application/json', peakJson[peak]);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

function url(params: Record<string, string | boolean>): string {
  const q = new URLSearchParams({ da: String(durations.a), db: String(durations.b) });
  for (const [k, v] of Object.entries(params)) if (v !== false) q.set(k, v === true ? '' : v);
  return `${base}/?${q}`;
}

interface Recorded {
  responses: Array<Record<string, unknown> & { listening: Array<{ plays: number; secondsHeard: number; heardToEnd: boolean }> }>;
  skips: Array<{ problem: string; detail: string | null }>;
  advanced: number;
}
const recorded = (page: Page) => page.evaluate(() => (window as unknown as { __ab: Recorded }).__ab) as Promise<Recorded>;

const stimulus = (page: Page, side: 'A' | 'B') => page.getByRole('group', { name: /Versions|Fassungen/ }).getByRole('button', { name: new RegExp(`\\b${side}\\b`) });
/** The position the time line shows, in seconds, and which version it is of. */
async function shown(page: Page): Promise<{ side: string; seconds: number }> {
  const text = (await page.locator('.ab-trial .time span').first().textContent())!;
  const [, side, m, s] = /^([AB]) · (\d+):(\d+\.\d)$/.exec(text.trim())!;
  return { side, seconds: Number(m) * 60 + Number(s) };
}

test('a keyboard listener: A/B and 1/2 switch at the same position, Space pauses, both must be heard whole, ←/→ and Enter answer once with the per-stimulus listening', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url({}));
  await page.getByRole('button', { name: 'Start' }).click();
  const trial = page.getByRole('region', { name: 'Trial 4 of 10' });
  await expect(trial).toHaveAttribute('data-ready', 'true');
  await expect(trial).toBeFocused();
  const choices = page.getByRole('radiogroup', { name: 'Your preference' }).getByRole('radio');
  await expect(choices).toHaveText(['A is better', 'B is better']);
  for (const c of await choices.all()) await expect(c).toBeDisabled();
  await expect(page.getByRole('status')).toHaveText('Listen to all of A and all of B to unlock the choice.');

  await page.keyboard.press('a');
  await expect(stimulus(page, 'A')).toHaveAttribute('aria-pressed', 'true');
  await expect(stimulus(page, 'B')).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(async () => (await shown(page)).seconds, { timeout: 5000 }).toBeGreaterThanOrEqual(0.5);
  const before = await shown(page);
  await expect(page.getByTestId('now-playing')).toHaveText('Playing A');
  await page.keyboard.press('2');
  await expect(stimulus(page, 'B')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('now-playing')).toHaveText('Playing B');
  await expect(stimulus(page, 'A')).toHaveAttribute('aria-pressed', 'false');
  // The switch kept the place: B goes on from where A was, not from 0.
  const after = await shown(page);
  expect(after.side).toBe('B');
  expect(after.seconds).toBeGreaterThanOrEqual(before.seconds);
  // B plays to its end and stops; heard from the middle only, so not "whole".
  await expect(stimulus(page, 'B')).toHaveAttribute('aria-pressed', 'false', { timeout: 5000 });
  await expect(stimulus(page, 'B')).toHaveAttribute('data-heard', 'false');
  for (const c of await choices.all()) await expect(c).toBeDisabled();

  // B again from the start (an ended timeline starts over), with a pause and resume on Space.
  await page.keyboard.press('b');
  await expect(stimulus(page, 'B')).toHaveAttribute('aria-pressed', 'true');
  await page.waitForTimeout(300);
  await page.keyboard.press(' ');
  await expect(stimulus(page, 'B')).toHaveAttribute('aria-pressed', 'false');
  const paused = await shown(page);
  await page.waitForTimeout(300);
  expect((await shown(page)).seconds).toBe(paused.seconds);
  await page.keyboard.press(' ');
  await expect(stimulus(page, 'B')).toHaveAttribute('aria-pressed', 'true');
  await expect(stimulus(page, 'B')).toHaveAttribute('data-heard', 'true', { timeout: 5000 });
  // Only B is heard: the choice stays locked, and Enter does nothing.
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  expect((await recorded(page)).responses).toEqual([]);
  // B plays on to its end; A then starts from the top (the part of A skipped by the switch is still unheard).
  await expect(stimulus(page, 'B')).toHaveAttribute('aria-pressed', 'false', { timeout: 5000 });
  await expect(stimulus(page, 'A')).toHaveAttribute('data-heard', 'false');

  await page.keyboard.press('1');
  await expect(stimulus(page, 'A')).toHaveAttribute('data-heard', 'true', { timeout: 5000 });
  await expect(trial).toHaveAttribute('data-unlocked', 'true');
  await expect(page.getByRole('status')).toHaveText('Now choose the version you prefer.');
  await page.keyboard.press('ArrowRight');
  await expect(choices.nth(1)).toHaveAttribute('aria-checked', 'true');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await recorded(page)).advanced).toBe(1);
  const { responses } = await recorded(page);
  expect(responses).toHaveLength(1);
  const [r] = responses;
  expect(r.preference).toBe('B');
  expect(r.listening).toHaveLength(2);
  expect(r.listening.map((l) => l.plays)).toEqual([2, 3]);
  expect(r.listening.map((l) => l.heardToEnd)).toEqual([true, true]);
  // A: ~0.5 s then all of it; B: from ~0.5 s to its end, then all of it.
  expect(r.listening[0].secondsHeard).toBeGreaterThan(durations.a + 0.4);
  expect(r.listening[0].secondsHeard).toBeLessThan(durations.a + 1.5);
  expect(r.listening[1].secondsHeard).toBeGreaterThan(durations.b + 0.3);
  expect(r.listening[1].secondsHeard).toBeLessThan(2 * durations.b + 0.05);
  expect(r.playCount).toBe(5);
  expect(r.secondsListened).toBeCloseTo(r.listening[0].secondsHeard + r.listening[1].secondsHeard, 2);
  expect(r.heardToEnd).toBe(true);
  expect(r.responseMs as number).toBeGreaterThan(3000);
  expect(r.hiddenMs).toBe(0);
});

test('a phone listener at 360×640: touch targets of 44 px or more, nothing sideways, axe clean, the choice after hearing both', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 360, height: 640 }, hasTouch: true, isMobile: true });
  await withAxe(context);
  const page = await context.newPage();
  await page.goto(url({ seconds: '0.5' }));
  await page.getByRole('button', { name: 'Start' }).tap();
  const trial = page.getByRole('region', { name: 'Trial 4 of 10' });
  await expect(trial).toHaveAttribute('data-ready', 'true');
  await expect(page.getByText('Tap A or B to listen')).toBeVisible();

  const counts: string[] = [];
  const checkPhone = async (screen: string) => {
    for (const b of await trial.getByRole('button').all()) {
      const box = (await b.boundingBox())!;
      expect(Math.min(box.width, box.height), `${screen}: ${await b.textContent()}`).toBeGreaterThanOrEqual(44);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await audit(page, screen, counts);
    await page.setViewportSize({ width: 360, height: 640 });
  };
  await checkPhone('A/B locked');

  await stimulus(page, 'A').tap();
  await expect(stimulus(page, 'A')).toHaveAttribute('data-heard', 'true', { timeout: 5000 });
  await stimulus(page, 'B').tap();
  await expect(stimulus(page, 'B')).toHaveAttribute('aria-pressed', 'true');
  await expect(stimulus(page, 'A')).toHaveAttribute('aria-pressed', 'false');
  await expect(stimulus(page, 'B')).toHaveAttribute('data-heard', 'true', { timeout: 5000 });
  await page.getByRole('radio', { name: 'A is better' }).tap();
  await checkPhone('A/B chosen');
  // Confirm stays on the phone's screen without scrolling (it is sticky at the bottom).
  const confirm = page.getByRole('button', { name: 'Confirm choice' });
  const box = (await confirm.boundingBox())!;
  expect(box.y + box.height).toBeLessThanOrEqual(640);
  await confirm.tap();
  await expect.poll(async () => (await recorded(page)).responses.length).toBe(1);
  const [r] = (await recorded(page)).responses;
  expect(r.preference).toBe('A');
  expect(r.listening.every((l) => l.plays >= 1 && l.secondsHeard >= 0.5)).toBe(true);
  console.log(counts.join('\n'));
  await context.close();
});

test('in German with "no preference" between the two, practice feedback names the better version, Continue moves on', async ({ page }) => {
  await page.goto(url({ lang: 'de', tie: true, practice: true, seconds: '0.3' }));
  await page.getByRole('button', { name: 'Start' }).click();
  const trial = page.getByRole('region', { name: 'Übung: Trial 4 of 10' });
  await expect(trial).toHaveAttribute('data-ready', 'true');
  const choices = page.getByRole('radiogroup', { name: 'Ihre Präferenz' }).getByRole('radio');
  await expect(choices).toHaveText(['A ist besser', 'Kein Unterschied', 'B ist besser']);
  await expect(page.getByRole('status')).toHaveText('Hören Sie von A und von B jeweils mindestens 0.3 Sekunden an, um die Auswahl freizuschalten.');
  await expect(stimulus(page, 'A')).toHaveAccessibleName('Anhören: A , noch nicht gehört');
  await page.keyboard.press('a');
  await expect(stimulus(page, 'A')).toHaveAttribute('data-heard', 'true', { timeout: 5000 });
  await page.keyboard.press('b');
  await expect(trial).toHaveAttribute('data-unlocked', 'true', { timeout: 5000 });
  // A click on the waveform moves the position (here while paused: the next play starts there).
  await expect(stimulus(page, 'B')).toHaveAttribute('aria-pressed', 'false', { timeout: 5000 });
  const wave = (await page.locator('.ab-trial .waveform').boundingBox())!;
  await page.mouse.click(wave.x + wave.width * 0.75, wave.y + wave.height / 2);
  await expect.poll(async () => Math.abs((await shown(page)).seconds - 0.75 * durations.b)).toBeLessThan(0.15);
  // ←/→ walk the three: from none, ← is A; → moves to "no preference".
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowRight');
  await expect(choices.nth(1)).toHaveAttribute('aria-checked', 'true');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Enter');
  const feedback = page.getByRole('alert');
  await expect(feedback).toContainText('Nicht ganz — B ist die bessere Fassung.');
  await expect(choices.nth(2)).toContainText('B ist besser');
  await expect(page.getByRole('button', { name: 'Weiter' })).toBeFocused();
  // Beside the feedback the pair may be heard again (by its buttons; the shortcuts rest while the feedback shows, as on every trial).
  await stimulus(page, 'B').click();
  await expect(stimulus(page, 'B')).toHaveAttribute('aria-pressed', 'true');
  await page.getByRole('button', { name: 'Weiter' }).click();
  const rec = await recorded(page);
  expect(rec.advanced).toBe(1);
  expect(rec.responses.map((r) => r.preference)).toEqual(['A']);
});

test('a version that will not load: the notice, Try again, then report and skip (never a vote)', async ({ page }) => {
  await page.goto(url({ b: 'missing' }));
  await page.getByRole('button', { name: 'Start' }).click();
  const trial = page.getByRole('region', { name: 'Trial 4 of 10' });
  await expect(trial).toHaveAttribute('data-failed', 'true', { timeout: 15_000 });
  await expect(page.getByRole('alert')).toContainText('Please try again');
  await expect(stimulus(page, 'A')).toBeDisabled();
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('button', { name: 'Report a problem and skip this clip' })).toBeVisible({ timeout: 15_000 });
  await page.getByRole('button', { name: 'Report a problem and skip this clip' }).click();
  const rec = await recorded(page);
  expect(rec.responses).toEqual([]);
  expect(rec.skips).toHaveLength(1);
  expect(rec.skips[0].problem).toBe('load_failed');
  expect(rec.skips[0].detail).toContain('HTTP 404');
});

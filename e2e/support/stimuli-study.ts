import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { strFromU8, unzipSync } from 'fflate';
import { expect, type Browser, type BrowserContextOptions, type Page } from '@playwright/test';
import { audit, withAxe } from './axe';
import { currentTrial, sessionFinished, startByKeyboard, startByTouch } from './listener';
import type { E2eServer } from './server';
import { analyzeBundle, exportBundle, signInToStudio } from './studio';

/**
 * A study of a kind played from several stimuli (ABX, CCR: client/listener/trials/StimuliTrial.tsx)
 * end to end, as e2e/ab-study.spec.ts does for A/B: the studio creates it from its demo template,
 * builds and opens it; a listener on a phone (390×844, touch) and one on a laptop (keys only)
 * hear every stimulus to its end and answer every trial, axe clean on the trial screen; the export
 * has one `<kind>.csv` row per answer, as stored, and `npm run analyze` gives the kind's section.
 */
export interface StimuliKind {
  kind: 'abx' | 'ccr';
  template: string;
  /** the stimulus buttons' labels and the keys that switch to them (the first plays with Space) */
  labels: string[];
  keys: string[];
  /** the answer (radio name) to give at `order` (the assignment's slot order) for an item of `expected` */
  answer(order: string[], expected: string | null): string;
}

const trialOf = (page: Page, position: number) => page.locator(`section.trial[data-position="${position}"]`);
const version = (page: Page, position: number, label: string) =>
  trialOf(page, position).getByRole('group').first().getByRole('button', { name: new RegExp(`\\b${label}\\b`) });

export async function runStimuliStudy(page: Page, browser: Browser, server: E2eServer, k: StimuliKind, study: string, shots: (name: string) => string): Promise<void> {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInToStudio(page, server);
  await page.getByLabel('Study name').fill(study);
  await page.getByLabel('Start from a template').selectOption(k.template);
  await page.getByRole('button', { name: 'Create study' }).click();
  await page.waitForURL(`**/studio/${study}`);
  await page.getByRole('button', { name: 'Build' }).click();
  await expect(page.getByTestId('build-summary')).toContainText('Build: created', { timeout: 60_000 });
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('study-status')).toHaveText('open');
  const link = (await page.getByTestId('link-plain').textContent())!;

  const slotOrder = (pid: string, position: number) => {
    const [row] = server.sql<{ slot_order: string; expected: string | null }>(
      `SELECT a.slot_order, i.expected FROM assignments a JOIN items i ON i.id = a.item_id JOIN listeners l ON l.id = a.listener_id
       WHERE i.study_id = ? AND json_extract(l.external, '$.PROLIFIC_PID') = ? AND a.position = ?`, study, pid, position);
    return { order: JSON.parse(row.slot_order) as string[], expected: row.expected };
  };
  const counts: string[] = [];

  const answer = async (p: Page, pid: string, n: number, touch: boolean) => {
    const position = await currentTrial(p);
    const trial = trialOf(p, position);
    await expect(trial).toHaveAttribute('data-unlocked', 'false');
    for (const [i, label] of k.labels.entries()) {
      if (touch) await version(p, position, label).tap();
      else await p.keyboard.press(i === 0 ? 'Space' : k.keys[i]);
      await expect(version(p, position, label)).toHaveAttribute('data-heard', 'true', { timeout: 20_000 });
    }
    await expect(trial).toHaveAttribute('data-unlocked', 'true');
    if (touch) expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const { order, expected } = slotOrder(pid, position);
    const name = k.answer(order, expected);
    if (touch) await trial.getByRole('radio', { name, exact: true }).tap();
    else {
      // ← / → walk the options, stopping at the ends: pick one, then walk to the answer.
      const texts = (await trial.getByRole('radio').allTextContents()).map((r) => r.trim());
      const target = texts.indexOf(name);
      const checked = trial.getByRole('radio', { checked: true });
      await p.keyboard.press('ArrowRight');
      for (let i = 0; i < texts.length; i++) {
        const at = texts.indexOf(((await checked.textContent()) ?? '').trim());
        if (at === target) break;
        await p.keyboard.press(at < target ? 'ArrowRight' : 'ArrowLeft');
      }
      await expect(trial.getByRole('radio', { checked: true })).toHaveText(name);
    }
    await expect(trial.getByRole('radio', { name, exact: true })).toHaveAttribute('aria-checked', 'true');
    if (n === 0) {
      await audit(p, `${k.kind} trial (${pid})`, counts);
      await p.screenshot({ path: shots(`${k.kind}-${pid}.png`), fullPage: true });
    }
    if (touch) await trial.getByRole('button', { name: 'Confirm choice' }).tap();
    else await p.keyboard.press('Enter');
    // Practice trials show feedback first; everything else moves straight on.
    const next = trial.getByRole('button', { name: 'Continue' });
    await expect.poll(async () => (await next.isVisible()) || !(await trial.isVisible()), { timeout: 20_000 }).toBe(true);
    if (await next.isVisible()) {
      await expect(next).toBeFocused();
      if (touch) await next.tap();
      else await next.press('Enter');
    }
    await expect(trial).toBeHidden({ timeout: 20_000 });
  };

  const session = async (pid: string, device: BrowserContextOptions, touch: boolean) => {
    const context = await browser.newContext(device);
    await withAxe(context);
    const p = await context.newPage();
    p.on('pageerror', (e) => problems.push(e.message));
    await (touch ? startByTouch : startByKeyboard)(p, `${link}?PROLIFIC_PID=${pid}`);
    let n = 0;
    do await answer(p, pid, n++, touch);
    while (!(await sessionFinished(p)));
    await context.close();
    return n;
  };
  const phone = await session('phone', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }, true);
  const laptop = await session('laptop', { viewport: { width: 1280, height: 720 } }, false);
  console.log(counts.join('\n'));
  // audit() fails on any serious or critical violation, at both widths.
  expect(counts).toHaveLength(4);
  const items = server.sql<{ n: number }>('SELECT COUNT(*) AS n FROM items WHERE study_id = ?', study)[0].n;
  expect([phone, laptop]).toEqual([items, items]);

  const votes = server.sql<{ item_id: string; pid: string; answer: string }>(
    `SELECT v.item_id, json_extract(l.external, '$.PROLIFIC_PID') AS pid, v.answer FROM votes v JOIN listeners l ON l.id = v.listener_id JOIN items i ON i.id = v.item_id WHERE i.study_id = ? AND i.kind != 'practice'`, study);
  // Practice answers are not data: the export leaves them out.
  const practice = server.sql<{ n: number }>("SELECT COUNT(*) AS n FROM items WHERE study_id = ? AND kind = 'practice'", study)[0].n;
  expect(votes).toHaveLength(2 * (items - practice));
  const dir = mkdtempSync(join(tmpdir(), `earmark-e2e-${k.kind}-`));
  try {
    const zip = await exportBundle(page, dir);
    const bundle = unzipSync(readFileSync(zip));
    const csv = (name: string) => parse(strFromU8(bundle[Object.keys(bundle).find((f) => f.endsWith(name))!]), { columns: true }) as Array<Record<string, string>>;
    const rows = csv(`${k.kind}.csv`);
    expect(rows).toHaveLength(votes.length);
    const listeners = new Map(server.sql<{ id: string; pid: string }>(`SELECT id, json_extract(external, '$.PROLIFIC_PID') AS pid FROM listeners WHERE study_id = ?`, study).map((l) => [l.id, l.pid]));
    const fields = k.kind === 'abx' ? ['x', 'chosen'] : ['first', 'raw', 'score'];
    const key = (item: string, pid: string, doc: Record<string, unknown>) => [item, pid, ...fields.map((f) => String(doc[f]))].join(' ');
    expect(rows.map((r) => key(r.item_id, listeners.get(r.listener_id)!, r)).sort()).toEqual(votes.map((v) => key(v.item_id, v.pid, JSON.parse(v.answer))).sort());
    const json = join(dir, 'report.json');
    analyzeBundle(zip, 'json', json);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.listeners).toMatchObject({ total: 2 });
    expect(report[k.kind]).toBeDefined();
    expect(report[k.kind].answers).toBeGreaterThan(0);
    if (k.kind === 'abx') expect(report.abx.pairs.length).toBeGreaterThan(0);
    else expect(report.ccr).toHaveProperty('order_effect');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  expect(problems).toEqual([]);
}

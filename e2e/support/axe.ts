import { createRequire } from 'node:module';
import { expect, type BrowserContext, type Page } from '@playwright/test';

/**
 * axe-core in the browser tests: injected by Playwright before any page script (the app's CSP
 * allows no inline script; an init script is not subject to it), run at a laptop and a phone size.
 */
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
export const SIZES = [
  { width: 1280, height: 720 },
  { width: 390, height: 844 },
];

interface Violation {
  id: string;
  impact: string | null;
  nodes: Array<{ target: unknown[] }>;
}

export async function withAxe(context: BrowserContext): Promise<void> {
  await context.addInitScript({ path: axePath });
}

/** Runs axe at both sizes on the screen as it is now; fails on any serious or critical violation. */
export async function audit(page: Page, screen: string, counts: string[]): Promise<void> {
  const original = page.viewportSize()!;
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.waitForTimeout(100);
    const violations = (await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: unknown[] }> } }).axe;
      return (await axe.run(document, { resultTypes: ['violations'] })).violations;
    })) as Violation[];
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    const others = violations.length - bad.length;
    const line = `axe ${screen} @ ${size.width}×${size.height}: ${bad.filter((v) => v.impact === 'critical').length} critical, ${bad.filter((v) => v.impact === 'serious').length} serious, ${others} moderate/minor`;
    counts.push(line);
    expect(bad.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`), line).toEqual([]);
    // No screen scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${screen} width`).toBeLessThanOrEqual(size.width);
  }
  await page.setViewportSize(original);
}

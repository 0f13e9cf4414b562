import { test } from '@playwright/test';
import { startMain, type E2eServer } from './support/server';
import { runStimuliStudy } from './support/stimuli-study';

/**
 * An ABX study end to end (analysis-spec §5.2; e2e/support/stimuli-study.ts): created from the
 * demo-abx template in the studio, answered by touch on a phone and by keys on a laptop (A, B and X
 * each heard to the end; a check's right answer is its X side, scored trials say "X is A"), axe
 * clean, exported (abx.csv as stored) and analysed (the abx section).
 */
let server: E2eServer;
test.afterEach(async () => server?.stop());

test('an ABX study from the demo-abx template: built, answered on a phone and a laptop, exported and analysed', async ({ page, browser }, info) => {
  test.setTimeout(300_000);
  server = await startMain();
  await runStimuliStudy(page, browser, server, {
    kind: 'abx', template: 'demo-abx', labels: ['A', 'B', 'X'], keys: ['a', 'b', 'x'],
    answer: ([first, , x], expected) => (expected === null ? 'X is A' : x === first ? 'X is A' : 'X is B'),
  }, 'abx-e2e', (name) => info.outputPath(name));
});

import { test } from '@playwright/test';
import { startMain, type E2eServer } from './support/server';
import { runStimuliStudy } from './support/stimuli-study';

/**
 * A CCR/CMOS study end to end (analysis-spec §5.4; e2e/support/stimuli-study.ts): created from the
 * demo-ccr template in the studio, answered by touch on a phone and by keys on a laptop (versions 1
 * and 2 each heard to the end; a check rates the degraded copy worse whichever came first, scored
 * trials "Slightly better"), axe clean, exported (ccr.csv as stored) and analysed (the ccr section).
 */
let server: E2eServer;
test.afterEach(async () => server?.stop());

test('a CCR study from the demo-ccr template: built, answered on a phone and a laptop, exported and analysed', async ({ page, browser }, info) => {
  test.setTimeout(300_000);
  server = await startMain();
  await runStimuliStudy(page, browser, server, {
    kind: 'ccr', template: 'demo-ccr', labels: ['1', '2'], keys: ['1', '2'],
    // A check's processed side is the degraded copy: worse when it comes second, better (the reference) when it comes first.
    answer: ([first], expected) => (expected === null ? 'Slightly better' : first === 'reference' ? 'Worse' : 'Slightly better'),
  }, 'ccr-e2e', (name) => info.outputPath(name));
});

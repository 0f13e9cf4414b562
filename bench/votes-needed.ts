/**
 * One run of issue 25's measurement, for looking at a single seed:
 *   npx tsx bench/votes-needed.ts balanced|adaptive <seed> [spread] [attention checks]
 * `npm run bench -- --only votes` runs the full comparison (bench/figures/votes-needed.ts).
 */
import { MEASURED_SPREAD, measureVotesNeeded, type DesignUnderTest } from './figures/votes-needed';

const design = (process.argv[2] ?? 'balanced') as DesignUnderTest;
const started = Date.now();
const result = await measureVotesNeeded(design, Number(process.argv[3] ?? 1), Number(process.argv[4] ?? MEASURED_SPREAD), process.argv[5] === undefined ? undefined : Number(process.argv[5]));
console.log(JSON.stringify(result), `${((Date.now() - started) / 1000).toFixed(1)} s`);

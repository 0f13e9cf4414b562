/**
 * One analysis measurement in a fresh process, so its peak RSS is its own (process.resourceUsage
 * maxRSS). Prints one JSON line with the timings.
 *
 *   tsx bench/analysis-child.ts simulate <bundle-dir> [reference|incomplete]   write the bundle of that scale
 *   tsx bench/analysis-child.ts parse <bundle-dir>      baseline: read and split every CSV line
 *   tsx bench/analysis-child.ts report <bundle-dir>     readBundle + analyze + report JSON, as the CLI does
 *   tsx bench/analysis-child.ts bootstrap <bundle-dir>  analyze without, then with 1,000 BT bootstrap resamples
 */
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { readBundle, writeBundle } from '../analysis/bundle';
import { analyze } from '../analysis/report';
import { simulate } from '../analysis/simulate';

const [mode, dir, scale = 'reference'] = process.argv.slice(2);
const seconds = (t0: number) => (performance.now() - t0) / 1000;
const peakMiB = () => process.resourceUsage().maxRSS / 1024;

const SCALES = {
  /** 20,000 items × 50 ratings + 8 attention checks × 500 listeners = 1,004,000 votes. */
  reference: { systems: 100, items: 20_000, listeners: 500, ratingsPerItem: 50, careless: 10, attention: 8, judges: 3, runs: 3, seed: 1 },
  /**
   * A large incomplete study: 20,000 items × 10 ratings + 8 checks × 400 listeners = 203,200
   * votes, 14 systems, 3 judges × 3 runs with 45 % of the runs missing (≈ 198,000 integer
   * scores 1–10, so many ties).
   */
  incomplete: { systems: 14, items: 20_000, listeners: 400, ratingsPerItem: 10, careless: 10, attention: 8, judges: 3, runs: 3, missingRuns: 0.45, seed: 2 },
};

async function main(): Promise<Record<string, number>> {
  if (mode === 'simulate') {
    const t0 = performance.now();
    if (!(scale in SCALES)) throw new Error(`unknown scale ${scale}; choose from ${Object.keys(SCALES).join(', ')}`);
    const study = simulate(SCALES[scale as keyof typeof SCALES]);
    await writeBundle(dir, { ...study, extraVoteColumns: ['response_ms'] });
    return { seconds: seconds(t0), votes: study.votes.length, items: study.items.length, judgeScores: study.judgeScores.length };
  }
  if (mode === 'parse') {
    const t0 = performance.now();
    let rows = 0;
    let fields = 0;
    for (const file of ['items.csv', 'votes.csv', 'judge_scores.csv']) {
      for await (const line of createInterface({ input: createReadStream(join(dir, file)), crlfDelay: Infinity })) {
        rows++;
        fields += line.split(',').length;
      }
    }
    return { seconds: seconds(t0), rows, fields, peakMiB: peakMiB() };
  }
  if (mode === 'report') {
    const t0 = performance.now();
    const bundle = await readBundle(dir);
    const read = seconds(t0);
    const report = analyze(bundle);
    await writeFile(join(dir, 'report.json'), JSON.stringify(report, null, 2) + '\n');
    return { seconds: seconds(t0), readSeconds: read, votes: bundle.votes.length, peakMiB: peakMiB() };
  }
  if (mode === 'bootstrap') {
    const bundle = await readBundle(dir);
    let t0 = performance.now();
    analyze(bundle);
    const plain = seconds(t0);
    t0 = performance.now();
    const report = analyze(bundle, { bootstrap: { n: 1000, seed: 1 } });
    return { seconds: seconds(t0), plainSeconds: plain, resamples: report.bootstrap?.resamples ?? 0, mleMissing: report.bootstrap?.bt_mle_missing ?? 0, peakMiB: peakMiB() };
  }
  throw new Error(`unknown mode ${mode}`);
}

console.log(JSON.stringify(await main()));

/**
 * Analysis at scale: a simulated 1,004,000-vote bundle (20,000 items, 100 systems, 500
 * listeners, 3 judges × 3 runs, 8 attention checks), each measurement in its own process.
 * Baselines in the same run: reading and splitting every CSV line (for the report), the report
 * without bootstrap (for the bootstrap).
 */
import { runChild } from '../lib/child';
import { removeTemp, tempDir } from '../lib/corpus';
import { judge, type Figure } from '../lib/figure';
import type { BenchOptions } from './options';

interface Timed {
  seconds: number;
  peakMiB: number;
}

export async function benchAnalysis(options: BenchOptions): Promise<Figure[]> {
  const dir = tempDir('analysis');
  try {
    const bundle = await runChild<{ seconds: number; votes: number; items: number; judgeScores: number }>('analysis-child.ts', ['simulate', dir]);
    const parse: Timed[] = [];
    const report: (Timed & { readSeconds: number })[] = [];
    const bootstrap: (Timed & { plainSeconds: number; resamples: number; mleMissing: number })[] = [];
    for (let run = 0; run < options.runs; run++) {
      parse.push(await runChild('analysis-child.ts', ['parse', dir]));
      report.push(await runChild('analysis-child.ts', ['report', dir]));
      bootstrap.push(await runChild('analysis-child.ts', ['bootstrap', dir]));
    }
    if (bootstrap.some((b) => b.resamples !== 1000)) throw new Error(`analysis bench: bootstrap ran ${bootstrap.map((b) => b.resamples)} resamples`);
    const details = { bundle, readSeconds: report.map((r) => r.readSeconds), bootstrapMleMissing: bootstrap.map((b) => b.mleMissing) };
    return [
      judge({
        id: 'analysis.report',
        subject: { label: `full report, ${bundle.votes.toLocaleString('en-US')} votes`, unit: 's', runs: report.map((r) => r.seconds) },
        baseline: { label: 'read+split CSV lines', unit: 's', runs: parse.map((p) => p.seconds) },
        budget: { on: 'value', op: '<=', limit: 10 },
        missReason: `read ${details.readSeconds.map((s) => s.toFixed(1)).join('/')} s of it`,
        details,
      }),
      judge({
        id: 'analysis.rss',
        subject: { label: 'full report peak RSS', unit: 'MiB', runs: report.map((r) => r.peakMiB) },
        baseline: { label: 'CSV split process', unit: 'MiB', runs: parse.map((p) => p.peakMiB) },
        budget: { on: 'value', op: '<=', limit: 1536 },
      }),
      judge({
        id: 'analysis.bootstrap',
        subject: { label: 'report + 1,000 BT bootstrap resamples', unit: 's', runs: bootstrap.map((b) => b.seconds) },
        baseline: { label: 'report without bootstrap', unit: 's', runs: bootstrap.map((b) => b.plainSeconds) },
        budget: { on: 'value', op: '<=', limit: 30 },
      }),
    ];
  } finally {
    removeTemp(dir);
  }
}

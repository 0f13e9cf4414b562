/**
 * Analysis at scale: a simulated 1,004,000-vote bundle (20,000 items, 100 systems, 500
 * listeners, 3 judges × 3 runs, 8 attention checks) and a large incomplete study (203,200
 * votes, 14 systems, ≈ 10 votes per item, 3 judges × 3 runs with missing runs), each
 * measurement in its own process. Baselines in the same run: reading and splitting every CSV
 * line (for the reports), the report without bootstrap (for the bootstrap).
 */
import { runChild } from '../lib/child';
import { removeTemp, tempDir } from '../lib/corpus';
import { judge, type Figure } from '../lib/figure';
import type { BenchOptions } from './options';

interface Simulated {
  seconds: number;
  votes: number;
  items: number;
  judgeScores: number;
}

interface Timed {
  seconds: number;
  peakMiB: number;
}

export async function benchAnalysis(options: BenchOptions): Promise<Figure[]> {
  const dir = tempDir('analysis');
  const incompleteDir = tempDir('analysis-incomplete');
  try {
    const bundle = await runChild<Simulated>('analysis-child.ts', ['simulate', dir, 'reference']);
    const incomplete = await runChild<Simulated>('analysis-child.ts', ['simulate', incompleteDir, 'incomplete']);
    const parse: Timed[] = [];
    const report: (Timed & { readSeconds: number })[] = [];
    const bootstrap: (Timed & { plainSeconds: number; resamples: number; mleMissing: number })[] = [];
    const incompleteParse: Timed[] = [];
    const incompleteReport: (Timed & { readSeconds: number })[] = [];
    for (let run = 0; run < options.runs; run++) {
      parse.push(await runChild('analysis-child.ts', ['parse', dir]));
      report.push(await runChild('analysis-child.ts', ['report', dir]));
      bootstrap.push(await runChild('analysis-child.ts', ['bootstrap', dir]));
      incompleteParse.push(await runChild('analysis-child.ts', ['parse', incompleteDir]));
      incompleteReport.push(await runChild('analysis-child.ts', ['report', incompleteDir]));
    }
    if (bootstrap.some((b) => b.resamples !== 1000)) throw new Error(`analysis bench: bootstrap ran ${bootstrap.map((b) => b.resamples)} resamples`);
    const details = { bundle, readSeconds: report.map((r) => r.readSeconds), bootstrapMleMissing: bootstrap.map((b) => b.mleMissing) };
    return [
      judge({
        id: 'analysis.report',
        subject: { label: `full report, ${bundle.votes.toLocaleString('en-US')} votes`, unit: 's', runs: report.map((r) => r.seconds) },
        baseline: { label: 'read+split CSV lines', unit: 's', runs: parse.map((p) => p.seconds) },
        budget: { on: 'value', op: '<=', limit: 3 },
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
      judge({
        id: 'analysis.incomplete',
        subject: { label: `full report, incomplete study, ${incomplete.votes.toLocaleString('en-US')} votes`, unit: 's', runs: incompleteReport.map((r) => r.seconds) },
        baseline: { label: 'read+split CSV lines', unit: 's', runs: incompleteParse.map((p) => p.seconds) },
        budget: { on: 'ratio', op: '<=', limit: 4 },
        missReason: `read ${incompleteReport.map((r) => r.readSeconds.toFixed(2)).join('/')} s of it`,
        details: { bundle: incomplete, readSeconds: incompleteReport.map((r) => r.readSeconds) },
      }),
      judge({
        id: 'analysis.incomplete.rss',
        subject: { label: 'incomplete study report peak RSS', unit: 'MiB', runs: incompleteReport.map((r) => r.peakMiB) },
        baseline: { label: 'CSV split process', unit: 'MiB', runs: incompleteParse.map((p) => p.peakMiB) },
        budget: { on: 'value', op: '<=', limit: 500 },
      }),
    ];
  } finally {
    removeTemp(dir);
    removeTemp(incompleteDir);
  }
}

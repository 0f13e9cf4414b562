/**
 * Compiled commands (bin/earmark.mjs → dist/node): the start-up of a command, and the hidden-size
 * report end to end. Each measurement is a process of its own, timed from spawn to exit: a command's
 * `--help` against `node -e 1` alternating with it in the same run (ratio ≤ 3), and
 * `earmark analyze <bundle> --out report.json` on the large incomplete study (203,200 votes, as the
 * analysis group's; ≤ 1.2 s), beside the same report timed inside its process (analysis-child.ts
 * report: no start-up), so the difference is what starting the command costs.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { root, runChild } from '../lib/child';
import { removeTemp, tempDir } from '../lib/corpus';
import { judge, median, type Figure } from '../lib/figure';
import type { BenchOptions } from './options';

const EARMARK = join(root, 'bin', 'earmark.mjs');
/** Start-ups per run: one process is noisy on a shared machine, the median of a few is a figure. */
const STARTS_PER_RUN = 7;

/** Seconds from spawn to exit of `node <args>`, which must exit 0. */
function timed(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.once('exit', (code) => (code === 0 ? resolve((performance.now() - started) / 1000) : reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr.slice(-1000)}`))));
  });
}

export async function benchCommands(options: BenchOptions): Promise<Figure[]> {
  const dir = tempDir('commands');
  try {
    // Builds dist/node when a source changed, so no measured run pays for it.
    await timed([EARMARK, 'analyze', '--help']);
    const bundle = await runChild<{ votes: number }>('analysis-child.ts', ['simulate', join(dir, 'bundle'), 'incomplete']);
    const help: number[] = [];
    const bare: number[] = [];
    const report: number[] = [];
    const inProcess: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      const h: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < STARTS_PER_RUN; i++) {
        b.push(await timed(['-e', '1']));
        h.push(await timed([EARMARK, 'analyze', '--help']));
      }
      help.push(median(h));
      bare.push(median(b));
      inProcess.push((await runChild<{ seconds: number }>('analysis-child.ts', ['report', join(dir, 'bundle')])).seconds);
      report.push(await timed([EARMARK, 'analyze', join(dir, 'bundle'), '--out', join(dir, 'report.json')]));
    }
    return [
      judge({
        id: 'commands.help',
        subject: { label: `earmark analyze --help (median of ${STARTS_PER_RUN} starts)`, unit: 's', runs: help },
        baseline: { label: 'node -e 1', unit: 's', runs: bare },
        budget: { on: 'ratio', op: '<=', limit: 3 },
        missReason: 'the launcher checks the bundles against their sources (a stat per source file), then Node compiles the command bundle (dist/node/analysis-cli.mjs)',
      }),
      judge({
        id: 'commands.report',
        subject: { label: `earmark analyze, ${bundle.votes.toLocaleString('en-US')} votes, end to end`, unit: 's', runs: report },
        baseline: { label: 'the same report timed in its process', unit: 's', runs: inProcess },
        budget: { on: 'value', op: '<=', limit: 1.2 },
        missReason: `the report itself, timed inside its process, took ${inProcess.map((s) => s.toFixed(2)).join('/')} s of it; start-up is the rest`,
      }),
    ];
  } finally {
    removeTemp(dir);
  }
}

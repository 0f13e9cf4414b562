/**
 * npm run bench [-- --only ingest,turnaround,audio,analysis,import,live,commands,assign,votes,votes-checks8] [--quick]
 *
 * Runs each group of figures (≥ 3 measured runs each; --quick: 1), prints the table (median,
 * same-run baseline, ratio, budget, PASS/MISS with the reason for a miss) and writes
 * bench/results.json. Exits 1 when a figure misses its budget or a group fails to run.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { benchAnalysis } from './figures/analysis';
import { benchAssign } from './figures/assign';
import { benchAudio } from './figures/audio';
import { benchCommands } from './figures/commands';
import { benchImport } from './figures/import';
import { benchIngest } from './figures/ingest';
import { benchLive } from './figures/live';
import type { BenchOptions } from './figures/options';
import { benchTurnaround } from './figures/turnaround';
import { benchVotesNeeded, benchVotesNeededProtocolChecks } from './figures/votes-needed';
import { removeTemps } from './lib/corpus';
import { formatTable, type Figure } from './lib/figure';

const groups: Record<string, (options: BenchOptions) => Promise<Figure[]>> = {
  ingest: benchIngest,
  turnaround: benchTurnaround,
  audio: benchAudio,
  analysis: benchAnalysis,
  import: benchImport,
  live: benchLive,
  commands: benchCommands,
  assign: benchAssign,
  votes: benchVotesNeeded,
  'votes-checks8': benchVotesNeededProtocolChecks,
};

const { values } = parseArgs({ options: { only: { type: 'string' }, quick: { type: 'boolean', default: false } } });
const chosen = values.only ? values.only.split(',').map((s) => s.trim()).filter(Boolean) : Object.keys(groups);
const unknown = chosen.filter((g) => !(g in groups));
if (unknown.length) {
  console.error(`--only: unknown group ${unknown.join(', ')}; choose from ${Object.keys(groups).join(', ')}`);
  process.exit(2);
}
const options: BenchOptions = { runs: values.quick ? 1 : 3, quick: values.quick };

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    removeTemps();
    process.exit(130);
  });
}

const started = performance.now();
const figures: Figure[] = [];
const failures: { group: string; error: string }[] = [];
const timings: Record<string, number> = {};
try {
  for (const group of chosen) {
    const t0 = performance.now();
    process.stderr.write(`bench ${group}…\n`);
    try {
      figures.push(...(await groups[group](options)));
    } catch (error) {
      failures.push({ group, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      process.stderr.write(`bench ${group} failed: ${error instanceof Error ? error.message : error}\n`);
    }
    timings[group] = (performance.now() - t0) / 1000;
  }
} finally {
  removeTemps();
}

const totalSeconds = (performance.now() - started) / 1000;
const results = {
  date: new Date().toISOString(),
  machine: { cpus: availableParallelism(), model: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
  runsPerFigure: options.runs,
  quick: options.quick,
  groupSeconds: timings,
  totalSeconds,
  figures,
  failures,
};
writeFileSync(new URL('./results.json', import.meta.url), JSON.stringify(results, null, 2) + '\n');

console.log(`\n${formatTable(figures)}`);
for (const f of failures) console.log(`\nGROUP FAILED: ${f.group}\n${f.error}`);
console.log(`\n${figures.filter((f) => f.pass).length}/${figures.length} within budget; ${options.runs} run(s) per figure; ${totalSeconds.toFixed(0)} s in all; bench/results.json written.`);
process.exitCode = failures.length || figures.some((f) => !f.pass) ? 1 : 0;

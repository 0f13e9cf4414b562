/**
 * Where a vote's CPU goes, thread by thread: the bench server (bench/server.ts, as `npm run bench`
 * starts it) is sent `--votes` votes and as many bare-route requests, twice each, alternating, with
 * autocannon at 100 connections; the CPU time each server thread used (from /proc/<pid>/task/*\/stat)
 * and the harness's own (autocannon's) is divided by the requests sent.
 *
 *   npx tsx bench/thread-cpu.ts [--votes 40000]
 *
 * The event loop is the server's main thread, the vote writer its busiest other thread.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { databaseFile, openDatabase } from '../db/open';
import { setStudyStatus } from '../studies/build';
import { loadStudyDir } from '../studies/load';
import { startBenchServer } from './lib/child';
import { removeTemp, tempDir } from './lib/corpus';
import { load } from './lib/load';
import { startListeners, voteRequests, writeBenchStudy } from './figures/ingest';

const { values } = parseArgs({ options: { votes: { type: 'string', default: '40000' } }, strict: true });
const requests = Number(values.votes);
const dir = tempDir('thread-cpu');
const dataDir = join(dir, 'data');
const db = openDatabase(databaseFile({ dataDir }));
await loadStudyDir(db, writeBenchStudy(join(dir, 'studies')));
setStudyStatus(db, 'bench-votes', 'open');
db.close();
const server = await startBenchServer({ data: dataDir });

/** CPU microseconds used so far by each thread of the server. */
const threadCpu = () =>
  new Map(
    readdirSync(`/proc/${server.pid}/task`).map((tid) => {
      const stat = readFileSync(`/proc/${server.pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [tid, (Number(fields[11]) + Number(fields[12])) * 10_000] as const; // utime + stime, 100 Hz ticks
    }),
  );

async function run(n: number, bare: boolean) {
  const slots = await startListeners(server.real, Math.ceil(n / 100));
  const before = threadCpu();
  const harness = process.cpuUsage();
  const started = performance.now();
  const result = await load({ url: bare ? server.bare : server.real, connections: 100, amount: n, requests: voteRequests(slots, bare ? '/bare' : undefined) });
  const seconds = (performance.now() - started) / 1000;
  const client = process.cpuUsage(harness);
  const used = [...threadCpu()].map(([tid, us]) => [tid, (us - (before.get(tid) ?? 0)) / n] as const);
  const eventLoop = used.find(([tid]) => tid === String(server.pid))![1];
  const others = used.filter(([tid]) => tid !== String(server.pid)).map(([, us]) => us).sort((a, b) => b - a);
  const writer = bare ? 0 : (others[0] ?? 0);
  const rest = others.reduce((a, b) => a + b, 0) - writer;
  return { rate: n / seconds, p99: result.latency.p99, eventLoop, writer, rest, client: (client.user + client.system) / n, refused: result.non2xx };
}

try {
  await run(6000, false); // warm-up
  for (let i = 0; i < 2; i++) {
    for (const bare of [true, false]) {
      const r = await run(requests, bare);
      console.log(
        `${bare ? 'bare ' : 'votes'} ${Math.round(r.rate)} req/s, p99 ${r.p99} ms | CPU µs per request: event loop ${r.eventLoop.toFixed(0)}, ` +
          `vote writer ${r.writer.toFixed(0)}, other server threads ${r.rest.toFixed(0)}, autocannon ${r.client.toFixed(0)}${r.refused ? `, ${r.refused} refused` : ''}`,
      );
    }
  }
} finally {
  await server.stop();
  removeTemp(dir);
}

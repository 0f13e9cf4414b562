/**
 * What the capacity table in bench/README.md takes for memory: the resident memory (VmRSS) of
 * the real server (bench/server.ts, as the ingest bench runs it) idle, while C idle keep-alive
 * connections are held open (each having made one request, as a listener's browser does), and
 * after K sessions were started and each voted once (every per-session structure in memory is
 * then filled: the remembered token, the per-session rate-limit window, the SQLite page caches).
 *
 *   npx tsx bench/memory.ts [--sessions 5000] [--connections 2000]
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { databaseFile, openDatabase } from '../db/open';
import { setStudyStatus } from '../studies/build';
import { loadStudyDir } from '../studies/load';
import { startBenchServer } from './lib/child';
import { removeTemps, tempDir } from './lib/corpus';
import { load } from './lib/load';
import { startListeners, voteRequests, writeBenchStudy } from './figures/ingest';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '5000' }, connections: { type: 'string', default: '2000' } } });
const sessions = Number(values.sessions);
const connections = Number(values.connections);

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

/** An idle keep-alive connection after one request, from its own loopback address (the server caps connections per address). */
function heldConnection(port: number, i: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: `127.0.${1 + Math.floor(i / 200)}.${2 + (i % 200)}` });
    socket.once('error', reject);
    socket.once('connect', () => socket.write('GET /api/studies/bench-votes/intro HTTP/1.1\r\nHost: bench\r\nConnection: keep-alive\r\n\r\n'));
    socket.once('data', () => resolve(socket));
  });
}

const dir = tempDir('memory');
const dataDir = join(dir, 'data');
const db = openDatabase(databaseFile({ dataDir }));
try {
  await loadStudyDir(db, writeBenchStudy(join(dir, 'studies')));
  setStudyStatus(db, 'bench-votes', 'open');
} finally {
  db.close();
}
const server = await startBenchServer({ data: dataDir });
const held: Socket[] = [];
try {
  await settle();
  const idle = rssMiB(server.pid);
  const port = Number(new URL(server.real).port);
  for (let i = 0; i < connections; i += 100) {
    held.push(...(await Promise.all(Array.from({ length: Math.min(100, connections - i) }, (_, j) => heldConnection(port, i + j)))));
  }
  await settle();
  const withConnections = rssMiB(server.pid);
  // Measured well within the server's keep-alive timeout (10 s), so these are all still open.
  const open = held.filter((socket) => !socket.destroyed && socket.readyState === 'open').length;
  for (const socket of held) socket.destroy();
  await settle();
  const afterConnections = rssMiB(server.pid);
  const slots = await startListeners(server.real, sessions);
  await load({ url: server.real, connections: 50, amount: sessions, requests: voteRequests(slots) });
  await settle();
  const withSessions = rssMiB(server.pid);
  const perConnectionKiB = ((withConnections - idle) * 1024) / open;
  const perSessionKiB = ((withSessions - afterConnections) * 1024) / sessions;
  console.log(
    `server RSS idle ${idle.toFixed(1)} MiB; with ${open} idle keep-alive connections open ${withConnections.toFixed(1)} MiB ` +
      `(${perConnectionKiB.toFixed(2)} KiB per connection); after they closed ${afterConnections.toFixed(1)} MiB; ` +
      `after ${sessions} sessions with one vote each ${withSessions.toFixed(1)} MiB (${perSessionKiB.toFixed(2)} KiB per session)`,
  );
} finally {
  for (const socket of held) socket.destroy();
  await server.stop();
  removeTemps();
}

/**
 * Live figures beside listeners (issue 20): the 100-item ingest study with 200,000 votes already
 * in it (written straight into the tables, server/testing/bulk-votes), and the real server in a
 * child process. Listener votes at a steady rate (autocannon, 300 votes/s over 10 connections,
 * fresh listeners through POST /api/sessions each run) with and without two studio dashboards
 * polling the study every 3 s, alternating in the same run; every vote changes the study, so each
 * poll finds its cached dashboard stale and a new one computes. And the export of a 1,000,000-vote
 * study (10,000 listeners × 100 items), zip and JSON, read to the end by a client: the server
 * process's peak resident memory (VmHWM) against its own right after start.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { databaseFile, openDatabase } from '../../db/open';
import { accessTokenRepository } from '../../server/store/access-tokens';
import { addAnsweredListeners } from '../../server/testing/bulk-votes';
import { setStudyStatus } from '../../studies/build';
import { loadStudyDir } from '../../studies/load';
import { startBenchServer, type BenchServer } from '../lib/child';
import { removeTemp, tempDir } from '../lib/corpus';
import { judge, median, type Figure } from '../lib/figure';
import { load } from '../lib/load';
import { startListeners, voteRequests, writeBenchStudy } from './ingest';
import type { BenchOptions } from './options';

const STUDY = 'bench-votes';
const RATE = 300;
const SECONDS = 15;
const POLL_MS = 3000;

const status = (pid: number) => readFileSync(`/proc/${pid}/status`, 'utf8');
const mib = (pid: number, field: 'VmRSS' | 'VmHWM') => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status(pid))![1]) / 1024;

/** A data directory with the bench study built, opened and `listeners` × 100 votes in it; returns a researcher token. */
async function prepare(dataDir: string, studiesDir: string, listeners: number): Promise<string> {
  const db = openDatabase(databaseFile({ dataDir }), { synchronous: 'NORMAL' });
  try {
    await loadStudyDir(db, writeBenchStudy(studiesDir));
    setStudyStatus(db, STUDY, 'open');
    addAnsweredListeners(db, STUDY, listeners, { external: (i) => ({ PROLIFIC_PID: `bench-${i}` }) });
    return (await accessTokenRepository(db).create('researcher')).token;
  } finally {
    db.close();
  }
}

/** Polls the dashboard every POLL_MS (or as soon as the last answer came, if slower) until stopped; the answers' times. */
function poller(base: string, token: string) {
  let stopped = false;
  const times: number[] = [];
  const done = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      const response = await fetch(`${base}/api/studio/studies/${STUDY}/dashboard`, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200) throw new Error(`dashboard: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      times.push(performance.now() - t0);
      const wait = POLL_MS - (performance.now() - t0);
      if (wait > 0 && !stopped) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return { stop: () => ((stopped = true), done.then(() => times)) };
}

async function votesWithDashboards(options: BenchOptions): Promise<Figure> {
  const dir = tempDir('live-votes');
  let server: BenchServer | undefined;
  try {
    const dataDir = join(dir, 'data');
    const token = await prepare(dataDir, join(dir, 'studies'), 2000);
    server = await startBenchServer({ data: dataDir });
    const base = server.real;
    const t0 = performance.now();
    await fetch(`${base}/api/studio/studies/${STUDY}/dashboard`, { headers: { authorization: `Bearer ${token}` } });
    const firstDashboardSeconds = (performance.now() - t0) / 1000;
    const voteRun = async () => {
      const slots = await startListeners(base, Math.ceil((RATE * SECONDS * 1.2) / 100));
      return load({ url: base, connections: 10, overallRate: RATE, duration: SECONDS, requests: voteRequests(slots) });
    };
    const alone: number[] = [];
    const polled: number[] = [];
    const dashboards: number[][] = [];
    const failures: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      const quiet = await voteRun();
      alone.push(quiet.latency.p99);
      const polls = [poller(base, token), poller(base, token)];
      const busy = await voteRun();
      dashboards.push(...(await Promise.all(polls.map((p) => p.stop()))));
      polled.push(busy.latency.p99);
      failures.push(quiet.non2xx + quiet.errors + busy.non2xx + busy.errors);
    }
    const pollSeconds = dashboards.flat().map((ms) => ms / 1000);
    return judge({
      id: 'live.votes',
      subject: { label: 'vote p99, 2 dashboards polling a 200k-vote study every 3 s', unit: 'ms', runs: polled },
      baseline: { label: 'vote p99 without them', unit: 'ms', runs: alone },
      budget: { on: 'ratio', op: '<=', limit: 1.5 },
      missReason: `dashboards answered in a median ${median(pollSeconds).toFixed(1)} s (the first, cold, in ${firstDashboardSeconds.toFixed(1)} s); the figures thread runs at nice 10, but shares the two cores with the event loop, the vote writer, autocannon and anything else running`,
      details: { rate: RATE, seconds: SECONDS, firstDashboardSeconds, dashboardSeconds: pollSeconds, refusedOrFailed: failures },
    });
  } finally {
    await server?.stop();
    removeTemp(dir);
  }
}

/** Reads a download to its end, keeping only its length. */
async function drain(url: string, token: string): Promise<number> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  let bytes = 0;
  for await (const chunk of response.body!) bytes += (chunk as Uint8Array).length;
  return bytes;
}

async function exportMemory(options: BenchOptions): Promise<Figure> {
  const dir = tempDir('live-export');
  try {
    const dataDir = join(dir, 'data');
    const token = await prepare(dataDir, join(dir, 'studies'), 10_000);
    const peaks: number[] = [];
    const idle: number[] = [];
    const runs: { zipBytes: number; zipSeconds: number; jsonBytes: number; jsonSeconds: number }[] = [];
    for (let run = 0; run < options.runs; run++) {
      const server = await startBenchServer({ data: dataDir });
      try {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        idle.push(mib(server.pid, 'VmHWM'));
        let t0 = performance.now();
        const zipBytes = await drain(`${server.real}/api/studio/studies/${STUDY}/export.zip`, token);
        const zipSeconds = (performance.now() - t0) / 1000;
        t0 = performance.now();
        const jsonBytes = await drain(`${server.real}/api/studio/studies/${STUDY}/export`, token);
        runs.push({ zipBytes, zipSeconds, jsonBytes, jsonSeconds: (performance.now() - t0) / 1000 });
        peaks.push(mib(server.pid, 'VmHWM'));
      } finally {
        await server.stop();
      }
    }
    return judge({
      id: 'live.export',
      subject: { label: 'server peak RSS, export.zip + export of 1,000,000 votes', unit: 'MiB', runs: peaks },
      baseline: { label: 'server peak RSS after start', unit: 'MiB', runs: idle },
      budget: { on: 'value', op: '<=', limit: 300 },
      missReason: `per run: ${JSON.stringify(runs)}`,
      details: { runs },
    });
  } finally {
    removeTemp(dir);
  }
}

export async function benchLive(options: BenchOptions): Promise<Figure[]> {
  return [await votesWithDashboards(options), await exportMemory(options)];
}

/**
 * Bench children: TypeScript entries run by Node with tsx in a process of their own, so what
 * they measure (a server under load, a report's peak memory) is not mixed with the harness.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** Extra Node flags for the children, e.g. BENCH_CHILD_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the server. */
const nodeArgs = process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

function start(entry: string, args: string[]): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, '--import', 'tsx', fileURLToPath(new URL(`../${entry}`, import.meta.url)), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface BenchServer {
  real: string;
  bare: string;
  static?: string;
  /** The server process, to read its memory from /proc. */
  pid: number;
  stop(): Promise<void>;
}

/** Starts bench/server.ts and waits for the line with its addresses. */
export async function startBenchServer(options: { data: string; client?: string; static?: string }): Promise<BenchServer> {
  const args = ['--data', options.data];
  if (options.client) args.push('--client', options.client);
  if (options.static) args.push('--static', options.static);
  const child = start('server.ts', args);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const urls = await new Promise<Omit<BenchServer, 'stop' | 'pid'>>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`bench server exited (${code}): ${stderr}`)));
  });
  return {
    ...urls,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Runs a bench entry to completion and returns the JSON object its last stdout line holds. */
export async function runChild<T>(entry: string, args: string[]): Promise<T> {
  const child = start(entry, args);
  let out = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${entry} ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`);
  const last = out.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as T;
}

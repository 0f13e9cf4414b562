import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface E2eServer {
  url: string;
  dataDir: string;
  study: string;
  secrets: string[];
  clipIds: string[];
  /** The study's votes as stored, read straight from the SQLite file (read-only). */
  votes(): Array<{
    id: string;
    item_id: string;
    kind: string;
    position: number;
    first: 'a' | 'b';
    chosen: 'a' | 'b';
    play_count: number;
    heard_to_end: number;
  }>;
  stop(): Promise<void>;
}

export interface ServeOptions {
  pairs?: number;
  attention?: number;
  practice?: number;
  screening?: 'none' | 'antiphase' | 'huggins' | 'both';
}

/** Starts e2e/support/serve.ts in its own process and waits for its address. */
export async function startServer(o: ServeOptions = {}): Promise<E2eServer> {
  const args = [
    '--import',
    join(root, 'e2e', 'support', 'wavefile-esm.mjs'),
    '--import',
    'tsx',
    join(root, 'e2e', 'support', 'serve.ts'),
    '--pairs', String(o.pairs ?? 6),
    '--attention', String(o.attention ?? 2),
    '--practice', String(o.practice ?? 1),
    '--screening', o.screening ?? 'none',
  ];
  const child: ChildProcess = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const info = await new Promise<Omit<E2eServer, 'votes' | 'stop'>>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${stderr}`)));
  });
  return {
    ...info,
    votes() {
      const db = new Database(join(info.dataDir, 'earmark.db'), { readonly: true, fileMustExist: true });
      try {
        return db
          .prepare(
            `SELECT v.id, v.item_id, i.kind, v.position, v.first, v.chosen, v.play_count, v.heard_to_end FROM votes v
             JOIN items i ON i.id = v.item_id WHERE i.study_id = ? ORDER BY v.listener_id, v.position`,
          )
          .all(info.study) as ReturnType<E2eServer['votes']>;
      } finally {
        db.close();
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

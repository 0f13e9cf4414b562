import Database from 'better-sqlite3';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where a backup goes: a file as given, or — for a folder (an existing one, or a path ending in
 * "/") — a new `earmark-<UTC time>.db` inside it, so a timer can keep one copy per run.
 * Missing folders are made.
 */
export function backupTarget(target: string, now = new Date()): string {
  const folder = target.endsWith('/') || (existsSync(target) && statSync(target).isDirectory());
  const file = folder ? join(target, `earmark-${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.db`) : target;
  mkdirSync(dirname(file), { recursive: true });
  return file;
}

/**
 * A consistent copy of a live database through SQLite's online backup API: it reads through
 * its own connection, so a running server keeps serving (and committing) meanwhile.
 */
export async function backupDatabase(source: string, target: string): Promise<{ pages: number }> {
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  if (existsSync(target)) throw new Error(`${target} exists; choose a new file`);
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const { totalPages } = await db.backup(target);
    return { pages: totalPages };
  } finally {
    db.close();
  }
}

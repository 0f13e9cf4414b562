import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';

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

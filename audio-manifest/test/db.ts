import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../db/open';

/** A fresh temporary folder with a real SQLite manifest in it; call cleanup() when done. */
export function tempManifest(): { dir: string; db: Db; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'earmark-manifest-'));
  const db = openDatabase(join(dir, 'data', 'earmark.db'), { synchronous: 'NORMAL' });
  return {
    dir,
    db,
    cleanup: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const count = (db: Db, sql: string, ...params: unknown[]): number =>
  (db.prepare(sql).get(...params) as { n: number }).n;

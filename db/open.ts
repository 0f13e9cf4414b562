import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { migrations } from './migrations';

export type Db = Database.Database;
/** SQLite's PRAGMA synchronous settings the server accepts (FULL by default: an ack means the vote is on disk). */
export const SYNCHRONOUS_MODES = ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const;
export type Synchronous = (typeof SYNCHRONOUS_MODES)[number];

export interface OpenOptions {
  /** FULL by default: an acknowledged vote must survive power loss, not only a process crash. */
  synchronous?: Synchronous;
  readonly?: boolean;
}

/** The database file of a data directory. */
export function databaseFile(config: { dataDir: string }): string {
  return resolve(config.dataDir, 'earmark.db');
}

/** Opens (creating if needed) an Earmark SQLite file in WAL mode and migrates it to the latest version. */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { readonly: options.readonly ?? false });
  db.pragma('busy_timeout = 5000');
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  }
  db.pragma('foreign_keys = ON');
  if (!options.readonly) migrate(db);
  return db;
}

/** Brings the file to the latest schema version (or to `upTo`, for tests of a later migration). */
export function migrate(db: Db, upTo = Infinity): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const m of migrations) {
    if (m.version <= current || m.version > upTo) continue;
    // PRAGMA foreign_keys is a no-op inside a transaction, so it is switched around it.
    if (m.rebuildsTables) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        db.exec(m.sql);
        if (m.rebuildsTables) {
          const broken = db.pragma('foreign_key_check') as Array<{ table: string; parent: string }>;
          if (broken.length > 0)
            throw new Error(`migration ${m.version} (${m.name}) would leave ${broken.length} broken references, e.g. ${broken[0].table} → ${broken[0].parent}`);
        }
        db.pragma(`user_version = ${m.version}`);
      })();
    } finally {
      if (m.rebuildsTables) db.pragma('foreign_keys = ON');
    }
  }
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * A store made once per connection: callers pass the same connection again and again, and its
 * statements are compiled on the first call only.
 */
export function perConnection<T>(create: (db: Db) => T): (db: Db) => T {
  const made = new WeakMap<Db, T>();
  return (db) => {
    let store = made.get(db);
    if (!store) made.set(db, (store = create(db)));
    return store;
  };
}

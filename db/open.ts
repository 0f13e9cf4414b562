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
  // A read-only connection is left unchecked: it changes nothing, and reading a WAL file would leave -wal and -shm beside it.
  if (!options.readonly) {
    try {
      migrate(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }
  return db;
}

/**
 * Beside PRAGMA user_version (how far the file has come), the migrations that brought it there, by
 * version and name, and when. applied_at is NULL for the migrations a file had before Earmark
 * recorded them (back-filled from user_version on first open).
 */
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  applied_at TEXT
)`;

export interface AppliedMigration {
  version: number;
  name: string;
  applied_at: string | null;
}

/** The database was migrated by another Earmark (newer, or with other migrations): opening it is refused. */
export class SchemaMismatchError extends Error {}

export function appliedMigrations(db: Db): AppliedMigration[] {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  return table ? (db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all() as AppliedMigration[]) : [];
}

/**
 * Refuses a file this Earmark cannot run on: a schema version above its last migration, a recorded
 * migration it does not have (or has under another name: the numbers were reassigned between the two
 * versions), or one of its migrations missing below the file's version (skipped).
 */
function checkMigrations(db: Db): void {
  const where = `${db.name === ':memory:' ? 'the database' : db.name}:`;
  const current = schemaVersion(db);
  const latest = migrations.at(-1)!;
  const upgrade = 'Open it with the Earmark that migrated it, or restore a backup made before.';
  if (current > latest.version)
    throw new SchemaMismatchError(`${where} schema version ${current} is newer than this Earmark's last migration (${latest.version}, ${latest.name}): it was migrated by a newer Earmark. ${upgrade}`);
  const applied = appliedMigrations(db);
  const known = new Map(migrations.map((m) => [m.version, m]));
  for (const row of applied) {
    const mine = known.get(row.version);
    if (!mine) throw new SchemaMismatchError(`${where} it has migration ${row.version} (${row.name}), which this Earmark does not know. ${upgrade}`);
    if (mine.name !== row.name)
      throw new SchemaMismatchError(`${where} its migration ${row.version} is "${row.name}", this Earmark's migration ${row.version} is "${mine.name}". ${upgrade}`);
  }
  const recorded = new Set(applied.map((r) => r.version));
  const skipped = applied.length ? migrations.find((m) => m.version <= current && !recorded.has(m.version)) : undefined;
  if (skipped)
    throw new SchemaMismatchError(`${where} migration ${skipped.version} (${skipped.name}) was skipped: the file is at version ${current} without it. ${upgrade}`);
}

/** Brings the file to the latest schema version (or to `upTo`, for tests of a later migration), recording each migration. */
export function migrate(db: Db, upTo = Infinity): void {
  db.exec(MIGRATIONS_TABLE);
  const before = schemaVersion(db);
  // A file from before the table: every migration up to its version ran, at times nobody wrote down.
  if (before > 0 && appliedMigrations(db).length === 0) {
    const insert = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, NULL)');
    db.transaction(() => migrations.filter((m) => m.version <= before).forEach((m) => insert.run(m.version, m.name)))();
  }
  checkMigrations(db);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of migrations) {
    if (m.version <= before || m.version > upTo) continue;
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
        record.run(m.version, m.name, new Date().toISOString());
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

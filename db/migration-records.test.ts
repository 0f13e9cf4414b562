import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { migrations } from './migrations';
import { appliedMigrations, migrate, openDatabase, SchemaMismatchError } from './open';

/** Numbers that were never released (given to branches and renumbered when they merged). */
const NEVER_RELEASED = [4, 7];

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'earmark-migrations-'));
  file = join(dir, 'earmark.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A file as an Earmark from before the table left it: migrated to `version`, no schema_migrations. */
function fileAt(version: number): void {
  const db = new Database(file);
  migrate(db, version);
  db.exec('DROP TABLE schema_migrations');
  db.close();
}

it('numbers migrations strictly sequentially: each version is the one before plus one (the unreleased gaps aside)', () => {
  const versions = migrations.map((m) => m.version);
  const expected = Array.from({ length: versions.at(-1)! }, (_, i) => i + 1).filter((v) => !NEVER_RELEASED.includes(v));
  expect(versions).toEqual(expected);
  expect(new Set(migrations.map((m) => m.name)).size).toBe(migrations.length);
});

it('records every migration of a new database with its name and time', () => {
  const before = new Date().toISOString();
  const db = openDatabase(file);
  try {
    const rows = appliedMigrations(db);
    expect(rows.map((r) => [r.version, r.name])).toEqual(migrations.map((m) => [m.version, m.name]));
    for (const r of rows) expect(r.applied_at! >= before && r.applied_at! <= new Date().toISOString()).toBe(true);
  } finally {
    db.close();
  }
});

it('opens a database from before the table (user_version 11): back-fills 1–11 without times, records the later ones with theirs', () => {
  fileAt(11);
  const db = openDatabase(file);
  try {
    const rows = appliedMigrations(db);
    expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
    expect(rows.filter((r) => r.version <= 11).every((r) => r.applied_at === null)).toBe(true);
    expect(rows.filter((r) => r.version > 11).every((r) => typeof r.applied_at === 'string')).toBe(true);
    expect(rows.find((r) => r.version === 1)?.name).toBe(migrations[0].name);
  } finally {
    db.close();
  }
  // Opening again changes nothing.
  const again = openDatabase(file, { readonly: true });
  try {
    expect(appliedMigrations(again)).toHaveLength(migrations.length);
  } finally {
    again.close();
  }
});

it('refuses a database migrated by a newer Earmark (a version above the last migration), naming file and versions', () => {
  openDatabase(file).close();
  const last = migrations.at(-1)!.version;
  const raw = new Database(file);
  raw.pragma(`user_version = ${last + 1}`);
  raw.close();
  expect(() => openDatabase(file)).toThrow(SchemaMismatchError);
  expect(() => openDatabase(file)).toThrow(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: schema version ${last + 1} is newer than this Earmark's last migration \\(${last}, `));
});

it('refuses a recorded migration this Earmark does not know, or knows under another name', () => {
  openDatabase(file).close();
  const raw = new Database(file);
  raw.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(1000, 'from another branch', 't');
  raw.close();
  expect(() => openDatabase(file)).toThrow(/it has migration 1000 \(from another branch\), which this Earmark does not know/);
  const renamed = new Database(file);
  renamed.exec("DELETE FROM schema_migrations WHERE version = 1000; UPDATE schema_migrations SET name = 'something else' WHERE version = 9");
  renamed.close();
  expect(() => openDatabase(file)).toThrow(new RegExp(`its migration 9 is "something else", this Earmark's migration 9 is "${migrations.find((m) => m.version === 9)!.name}"`));
});

it('refuses a database on which a migration below its version was skipped, and migrates nothing', () => {
  fileAt(9);
  const raw = new Database(file);
  raw.exec(tableWithout(8));
  raw.close();
  expect(() => openDatabase(file)).toThrow(/migration 8 \(trial problems\) was skipped: the file is at version 9 without it/);
  const after = new Database(file);
  expect(after.pragma('user_version', { simple: true })).toBe(9);
  after.close();
});

/** The table as an Earmark would have written it for a file at version 9 that never ran `skipped`. */
function tableWithout(skipped: number): string {
  const rows = migrations.filter((m) => m.version <= 9 && m.version !== skipped).map((m) => `(${m.version}, '${m.name.replaceAll("'", "''")}', 't')`);
  return `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT); INSERT INTO schema_migrations VALUES ${rows.join(', ')};`;
}

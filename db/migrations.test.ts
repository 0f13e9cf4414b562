import { expect, it } from 'vitest';
import { migrations } from './migrations';
import { openDatabase } from './open';

// migrate() applies entries in array order and records the last version: an entry placed after a
// higher version would be skipped on databases that already passed it, and rerun on new ones.
it('lists migrations in strictly increasing version order, and a new database reaches the last one', () => {
  const versions = migrations.map((m) => m.version);
  expect(versions).toEqual([...versions].sort((a, b) => a - b));
  expect(new Set(versions).size).toBe(versions.length);
  const db = openDatabase(':memory:');
  try {
    expect(db.pragma('user_version', { simple: true })).toBe(versions.at(-1));
  } finally {
    db.close();
  }
});

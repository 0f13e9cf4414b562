import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batchCommitter, GroupCommit, type Outcome } from './group-commit';
import { openDatabase, type Db } from './open';

class Refusal extends Error {}

let dir: string;
let db: Db;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'earmark-commit-'));
  db = openDatabase(join(dir, 'commit.db'));
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, note TEXT)');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = () => db.prepare('SELECT k FROM t ORDER BY k').pluck().all();

describe('batchCommitter', () => {
  // Refuses "no-*" before writing; "half-*" writes a row and then fails, as an unexpected error might.
  const apply = (k: string) => {
    if (k.startsWith('no-')) throw new Refusal(k);
    db.prepare('INSERT INTO t (k) VALUES (?)').run(k);
    if (k.startsWith('half-')) throw new Error(`failed after writing ${k}`);
    return k.toUpperCase();
  };
  const committer = () => batchCommitter(db, apply, (e) => e instanceof Refusal);

  it('commits the batch in one transaction; a refusal answers only itself', () => {
    const outcomes = committer()(['a', 'no-b', 'c']);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
    expect((outcomes[1] as { error: unknown }).error).toBeInstanceOf(Refusal);
    expect(rows()).toEqual(['a', 'c']);
  });

  it('undoes only the piece that failed after writing, and keeps the rest of its batch', () => {
    const outcomes = committer()(['a', 'half-b', 'no-c', 'd']);
    expect(outcomes.map((o) => (o.ok ? o.value : (o.error as Error).message))).toEqual([
      'A', 'failed after writing half-b', 'no-c', 'D',
    ]);
    expect(rows()).toEqual(['a', 'd']);
  });

  it('throws, keeping nothing of the batch, when the COMMIT itself fails', () => {
    // A deferred foreign key is checked at COMMIT, after every piece has succeeded.
    db.exec('CREATE TABLE child (k TEXT PRIMARY KEY, parent TEXT REFERENCES t(k) DEFERRABLE INITIALLY DEFERRED)');
    const insert = db.prepare('INSERT INTO child (k, parent) VALUES (?, ?)');
    const commit = batchCommitter(db, ([k, parent]: [string, string]) => insert.run(k, parent), () => false);
    db.prepare("INSERT INTO t (k) VALUES ('p')").run();
    expect(() => commit([['x', 'p'], ['y', 'missing']])).toThrow(/FOREIGN KEY/);
    expect(db.prepare('SELECT count(*) FROM child').pluck().get()).toBe(0);
  });
});

describe('GroupCommit', () => {
  it('answers after the commit, and batches what arrives while a commit is under way', async () => {
    const batches: string[][] = [];
    let release!: () => void;
    const group = new GroupCommit<string, string>(async (batch) => {
      batches.push(batch);
      if (batches.length === 1) await new Promise<void>((r) => (release = r));
      return batch.map((k): Outcome<string> => (k === 'no' ? { ok: false, error: new Refusal(k) } : { ok: true, value: k }));
    });
    const first = group.submit('a');
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([['a']]);
    const later = [group.submit('b'), group.submit('no'), group.submit('c')];
    let answered = false;
    void first.then(() => (answered = true));
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    release();
    expect(await first).toBe('a');
    const settled = await Promise.allSettled(later);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(batches).toEqual([['a'], ['b', 'no', 'c']]);
  });

  it('rejects a whole batch whose commit failed and goes on with the next', async () => {
    let calls = 0;
    const group = new GroupCommit<string, string>(async (batch) => {
      if (calls++ === 0) throw new Error('disk full');
      return batch.map((k) => ({ ok: true, value: k }));
    });
    const failed = [group.submit('a'), group.submit('b')];
    await expect(failed[0]).rejects.toThrow('disk full');
    await expect(failed[1]).rejects.toThrow('disk full');
    const next = group.submit('c');
    await group.drain();
    expect(await next).toBe('c');
  });
});

import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { migrations } from './migrations';
import { migrate, openDatabase } from './open';

/** An in-memory database at schema `version`, with a clip and a study 's' that items can name. */
function databaseAt(version: number): Database.Database {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db, version);
  db.exec(`
    INSERT INTO clips (id, corpus, root, path, abs_path, format, codec, duration, sample_rate, channels, bytes, mtime_ms, sha256, peaks, imported_at)
      VALUES ('c1', 'demo', '/r', 'a.wav', '/r/a.wav', 'wav', 'pcm_s16le', 1, 16000, 1, 100, 0, 'x', '{}', 't');
    INSERT INTO studies (id, title, definition, created_at, updated_at) VALUES ('s', 'S', '{}', 't', 't');
  `);
  return db;
}

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

it('migration 10 turns caption pairs into one trial kind among others, keeping every row and reference', () => {
  const db = databaseAt(9);
  try {
    db.exec(`
      INSERT INTO items VALUES ('i1', 's', 0, 'pair', 'u1', 'c1', 'A', 'B', 'ca', 'cb', NULL),
                               ('i2', 's', 1, 'attention', 'u1', 'c1', 'A', 'B', 'right', 'wrong', 'a');
      INSERT INTO listeners (id, study_id, token_hash, created_at) VALUES ('L', 's', 'h', 't');
      INSERT INTO assignments VALUES ('L', 0, 'i1', 'b', 't'), ('L', 1, 'i2', 'a', 't');
      INSERT INTO votes (rowid, id, listener_id, item_id, position, first, chosen, play_count, seconds_listened, heard_to_end, hidden_ms, response_ms, client_ts, server_ts)
        VALUES (7, 'v1', 'L', 'i1', 0, 'b', 'a', 1, 1, 1, 0, 900, 't', 't');
    `);
    // Migration 15 replaces the shape tested here (its own test is below): stop at 10.
    migrate(db, 10);
    expect(db.pragma('user_version', { simple: true })).toBe(10);
    expect(db.prepare('SELECT id, kind, trial_kind, expected FROM items ORDER BY seq').all()).toEqual([
      { id: 'i1', kind: 'pair', trial_kind: 'pair', expected: null },
      { id: 'i2', kind: 'attention', trial_kind: 'pair', expected: 'a' },
    ]);
    expect(db.prepare('SELECT rowid, id, first, chosen, score FROM votes').all()).toEqual([{ rowid: 7, id: 'v1', first: 'b', chosen: 'a', score: null }]);
    expect(db.prepare('SELECT count(*) AS n FROM assignments').get()).toEqual({ n: 2 });
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    // references are enforced again, against the new tables
    expect(() => db.prepare("INSERT INTO assignments VALUES ('L', 2, 'nope', NULL, 't')").run()).toThrow(/FOREIGN KEY/);
    // a rating item: one system, no b side, a required score as its expected answer
    db.prepare("INSERT INTO items (id, study_id, seq, kind, trial_kind, utterance_id, clip_id, system_a, caption_a, expected) VALUES ('r1', 's', 2, 'attention', 'rating', 'u1', 'c1', 'A', NULL, '1')").run();
    expect(() => db.prepare("INSERT INTO items (id, study_id, seq, kind, trial_kind, utterance_id, clip_id, system_a, system_b, expected) VALUES ('r2', 's', 3, 'rating', 'rating', 'u1', 'c1', 'A', 'B', NULL)").run()).toThrow(/CHECK/);
    expect(() => db.prepare("INSERT INTO items (id, study_id, seq, kind, trial_kind, utterance_id, clip_id, system_a, expected) VALUES ('r3', 's', 4, 'pair', 'rating', 'u1', 'c1', 'A', NULL)").run()).toThrow(/CHECK/);
    db.prepare("INSERT INTO assignments VALUES ('L', 2, 'r1', NULL, 't')").run();
    // a vote carries exactly one kind's answer
    const vote = db.prepare("INSERT INTO votes (id, listener_id, item_id, position, first, chosen, score, play_count, seconds_listened, heard_to_end, hidden_ms, response_ms, client_ts, server_ts) VALUES (?, 'L', 'r1', 2, ?, ?, ?, 1, 1, 1, 0, 1, 't', 't')");
    expect(() => vote.run('v2', 'a', 'a', 3)).toThrow(/CHECK/);
    expect(() => vote.run('v2', null, null, null)).toThrow(/CHECK/);
    vote.run('v2', null, null, 1);
  } finally {
    db.close();
  }
});

it('migration 11 finds votes by their trial: rowids kept, one vote per trial, the trial as the vote’s parent', () => {
  const db = databaseAt(10);
  try {
    db.exec(`
      INSERT INTO items (id, study_id, seq, kind, trial_kind, utterance_id, clip_id, system_a, system_b, caption_a, caption_b)
        VALUES ('i1', 's', 0, 'pair', 'pair', 'u1', 'c1', 'A', 'B', 'ca', 'cb'), ('i2', 's', 1, 'pair', 'pair', 'u1', 'c1', 'B', 'C', 'cb', 'cc');
      INSERT INTO listeners (id, study_id, token_hash, created_at) VALUES ('L', 's', 'h', 't'), ('M', 's', 'h2', 't');
      INSERT INTO assignments VALUES ('L', 0, 'i1', 'b', 't'), ('L', 1, 'i2', 'a', 't'), ('M', 0, 'i2', 'a', 't'), ('M', 1, 'i1', 'a', 't');
      INSERT INTO votes (rowid, id, listener_id, item_id, position, first, chosen, play_count, seconds_listened, heard_to_end, hidden_ms, response_ms, client_ts, server_ts)
        VALUES (7, 'v1', 'L', 'i1', 0, 'b', 'a', 1, 1, 1, 0, 900, 't', 't'), (9, 'v2', 'M', 'i2', 0, 'a', 'a', 1, 1, 1, 0, 900, 't', 't');
    `);
    // Migration 15 rebuilds votes again (its own test is below): stop at 11.
    migrate(db, 11);
    expect(db.prepare('SELECT rowid, id, listener_id, position FROM votes ORDER BY rowid').all()).toEqual([
      { rowid: 7, id: 'v1', listener_id: 'L', position: 0 },
      { rowid: 9, id: 'v2', listener_id: 'M', position: 0 },
    ]);
    const vote = db.prepare("INSERT INTO votes (id, listener_id, item_id, position, first, chosen, play_count, seconds_listened, heard_to_end, hidden_ms, response_ms, client_ts, server_ts) VALUES (?, ?, ?, ?, 'a', 'a', 1, 1, 1, 0, 1, 't', 't')");
    // one vote per trial
    expect(() => vote.run('v3', 'L', 'i1', 0)).toThrow(/UNIQUE/);
    // a vote answers an assigned trial
    expect(() => vote.run('v3', 'L', 'i1', 5)).toThrow(/FOREIGN KEY/);
    // a vote id is one answer to one trial, not unique across trials
    vote.run('v1', 'M', 'i1', 1);
    // A trial is found through the listener's own index, and removing assignments finds their votes
    // by index too; removing items does not look at votes at all.
    const plan = (sql: string, ...args: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail);
    expect(plan('SELECT id FROM votes WHERE listener_id = ? AND position = ?', 'L', 0)).toEqual([expect.stringMatching(/^SEARCH votes USING INDEX .*\(listener_id=\? AND position=\?\)/)]);
    expect(plan("DELETE FROM assignments WHERE listener_id = 'L'").join('\n')).toMatch(/SEARCH votes USING COVERING INDEX .*\(listener_id=\? AND position=\?\)/);
    expect(plan("DELETE FROM items WHERE study_id = 's'").join('\n')).not.toMatch(/votes/);
  } finally {
    db.close();
  }
});

/**
 * A database from round 2 (schema 14: items with a clip and two sides, votes with first/chosen/score
 * columns) opens on the kind-agnostic core (migration 15) and exports exactly what it exported,
 * apart from items.csv's new `kind` column. fixtures-round2/round2.sql is that database as main
 * wrote it at 45cf48c (seedStudy for a pair and a 5-point rating study, addAnsweredListeners for 4
 * and 3 listeners, one trial comment), dumped as SQL; fixtures-round2/export/ holds the files
 * main's export wrote from it then.
 */
import { readFileSync, readdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrate } from '../../db/open';
import { migrations } from '../../db/migrations';
import { exportRepository } from '../store/export';
import { bundleFiles } from '../bundle';

const FIXTURES = new URL('./fixtures-round2/', import.meta.url);
let db: Database.Database | undefined;
afterEach(() => db?.close());

function round2Database(): Database.Database {
  const opened = new Database(':memory:');
  opened.exec(readFileSync(new URL('round2.sql', FIXTURES), 'utf8'));
  expect(opened.pragma('user_version', { simple: true })).toBe(14);
  opened.pragma('foreign_keys = ON');
  return opened;
}

/** items.csv without its last column when that column is `kind` (each row's value returned beside). */
function withoutKind(csv: string): { csv: string; kinds: string[] } {
  const lines = csv.split('\r\n');
  if (!lines[0].endsWith(',kind')) return { csv, kinds: [] };
  const kinds: string[] = [];
  const kept = lines.map((line, i) => {
    if (line === '') return line;
    const cut = line.lastIndexOf(',');
    if (i > 0) kinds.push(line.slice(cut + 1));
    return line.slice(0, cut);
  });
  return { csv: kept.join('\r\n'), kinds };
}

it('migration 15 moves every item, assignment and vote to stimuli, slot orders and answer documents, keeping rowids', () => {
  db = round2Database();
  const before = {
    items: db.prepare('SELECT id, kind, trial_kind, utterance_id, clip_id, system_a, system_b, caption_a, caption_b, expected FROM items ORDER BY rowid').all(),
    assignments: db.prepare('SELECT listener_id, position, item_id, first, assigned_at FROM assignments ORDER BY listener_id, position').all(),
    votes: db.prepare('SELECT rowid, id, listener_id, item_id, position, first, chosen, score, play_count, seconds_listened, heard_to_end, hidden_ms, response_ms, client_ts, server_ts, comment FROM votes ORDER BY rowid').all(),
  };
  migrate(db);
  expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
  // The computed columns read the new documents as round 2 stored them.
  expect(db.prepare('SELECT id, kind, trial_kind, utterance_id, clip_id, system_a, system_b, caption_a, caption_b, expected FROM items ORDER BY rowid').all()).toEqual(before.items);
  expect(db.prepare('SELECT listener_id, position, item_id, first, assigned_at FROM assignments ORDER BY listener_id, position').all()).toEqual(before.assignments);
  expect(db.prepare('SELECT rowid, id, listener_id, item_id, position, first, chosen, score, play_count, seconds_listened, heard_to_end, hidden_ms, response_ms, client_ts, server_ts, comment FROM votes ORDER BY rowid').all()).toEqual(before.votes);
  // What is stored: a pair item's two caption stimuli on one clip, a rating's one; orders; answers.
  const pair = db.prepare("SELECT stimuli, clip_id AS clip FROM items WHERE trial_kind = 'pair' AND kind = 'pair' LIMIT 1").get() as { stimuli: string; clip: string };
  expect(JSON.parse(pair.stimuli)).toEqual([
    { slot: 'a', role: 'caption', clip: pair.clip, system: expect.any(String), text: expect.any(String) },
    { slot: 'b', role: 'caption', clip: pair.clip, system: expect.any(String), text: expect.any(String) },
  ]);
  const rated = db.prepare("SELECT stimuli FROM items WHERE trial_kind = 'rating' LIMIT 1").pluck().get() as string;
  expect(JSON.parse(rated)).toEqual([{ slot: 'a', role: 'rated', clip: expect.any(String), system: expect.any(String), text: expect.any(String) }]);
  expect(db.prepare("SELECT DISTINCT slot_order FROM assignments a JOIN items i ON i.id = a.item_id WHERE i.trial_kind = 'pair' ORDER BY 1").pluck().all()).toEqual(['["a","b"]', '["b","a"]']);
  expect(db.prepare("SELECT DISTINCT slot_order FROM assignments a JOIN items i ON i.id = a.item_id WHERE i.trial_kind = 'rating'").pluck().all()).toEqual([null]);
  expect(JSON.parse(db.prepare("SELECT answer FROM votes WHERE id = 'p-0/2'").pluck().get() as string)).toEqual({ first: 'b', chosen: 'a' });
  expect(JSON.parse(db.prepare("SELECT answer FROM votes WHERE id = 'r-0/2'").pluck().get() as string)).toMatchObject({ score: expect.any(Number) });
  expect(db.pragma('foreign_key_check')).toEqual([]);
  // The indexes the vote path relies on survive the rebuild (migration 11).
  const plan = (sql: string) => (db!.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('\n');
  expect(plan("SELECT id FROM votes WHERE listener_id = 'L' AND position = 0")).toMatch(/SEARCH votes USING INDEX .*\(listener_id=\? AND position=\?\)/);
  expect(plan("DELETE FROM items WHERE study_id = 's'")).not.toMatch(/votes/);
  // Nothing names a kind any more: a kind the core never heard of is stored as it is.
  db.prepare("INSERT INTO items (id, study_id, seq, kind, trial_kind, utterance_id, stimuli) VALUES ('new', 'pairs', 99, 'mushra', 'mushra', 'u', '[{\"slot\":\"r\"}]')").run();
  expect(() => db!.prepare("INSERT INTO items (id, study_id, seq, kind, trial_kind, utterance_id, stimuli) VALUES ('bad', 'pairs', 98, 'pair', 'pair', 'u', '[]')").run()).toThrow(/CHECK/);
});

/**
 * An answers file without its `assigned_at` column (issue 25: when each vote's trial was handed
 * out), each row's value returned beside. The columns before it are ids and numbers, with no commas.
 */
function withoutAssignedAt(csv: string): { csv: string; times: string[] } {
  const lines = csv.split('\r\n');
  const column = lines[0].split(',').indexOf('assigned_at');
  if (column < 0) return { csv, times: [] };
  const times: string[] = [];
  const kept = lines.map((line, i) => {
    if (line === '') return line;
    const fields = line.split(',');
    if (i > 0) times.push(fields[column]);
    return [...fields.slice(0, column), ...fields.slice(column + 1)].join(',');
  });
  return { csv: kept.join('\r\n'), times };
}

it('a round-2 database exports what it exported, apart from items.csv gaining kind and the answers gaining assigned_at', () => {
  db = round2Database();
  migrate(db);
  const expected = readdirSync(new URL('export/', FIXTURES));
  for (const study of ['pairs', 'ratings']) {
    const files = bundleFiles(exportRepository(db).rows(study)) as Record<string, string>;
    const names = expected.filter((f) => f.startsWith(`${study}.`)).map((f) => f.slice(study.length + 1));
    expect(Object.keys(files).filter((f) => files[f] !== undefined).sort(), study).toEqual(expect.arrayContaining(names.sort()));
    for (const name of names) {
      const was = readFileSync(new URL(`export/${study}.${name}`, FIXTURES), 'utf8');
      if (name === 'study.json') {
        const strip = (text: string) => ({ ...JSON.parse(text), exportedAt: null });
        expect(strip(files[name]), `${study} ${name}`).toEqual(strip(was));
      } else if (name === 'items.csv') {
        const { csv, kinds } = withoutKind(files[name]);
        expect(csv, `${study} ${name}`).toBe(was);
        expect(new Set(kinds), study).toEqual(kinds.length ? new Set([study === 'pairs' ? 'pair' : 'rating']) : new Set());
      } else {
        const { csv, times } = withoutAssignedAt(files[name]);
        expect(csv, `${study} ${name}`).toBe(was);
        for (const time of times) expect(time, `${study} ${name}`).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      }
    }
  }
});

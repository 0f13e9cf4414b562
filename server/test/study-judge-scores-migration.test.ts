/**
 * Migration 3 gives each study its own copy of its judge scores. A study built before it must
 * export the same judge_scores.csv after it as before: the manifest scores of the captions it shows.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { migrations } from '../../db/migrations';
import { openDatabase } from '../../db/open';
import { exportRepository } from '../store/export';
import { StudyDefinition } from '../../contract/study-definition';

const dir = mkdtempSync(join(tmpdir(), 'earmark-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('copies the judge scores of the captions each existing study shows, and nothing else', () => {
  const file = join(dir, 'earmark.db');
  const old = new Database(file);
  for (const m of migrations.filter((m) => m.version <= 2)) old.exec(m.sql);
  old.pragma('user_version = 2');
  const now = new Date().toISOString();
  old.prepare("INSERT INTO clips (id, corpus, root, path, abs_path, format, codec, duration, sample_rate, channels, bytes, mtime_ms, sha256, peaks, imported_at) VALUES ('c1', 'demo', '/', 'a.wav', '/a.wav', 'wav', 'pcm_s16le', 1, 16000, 1, 10, 0, 'x', '{}', ?)").run(now);
  for (const u of ['u1', 'u2']) old.prepare("INSERT INTO utterances (id, corpus, clip_id) VALUES (?, 'demo', 'c1')").run(u);
  // The definition as a build before migration 3 stored it (the export reads its rules).
  const definition = StudyDefinition.parse({
    title: 'Old',
    consent: 'You agree to listen.',
    instructions: 'Pick the caption that fits the delivery.',
    question: 'Which caption better describes how it is said?',
    items: { mode: 'explicit', list: [{ utterance: 'u1', systemA: 'alpha', systemB: 'beta' }] },
    design: { kind: 'crossed' },
    targetListeners: 15,
    completion: { code: 'OLD-DONE' },
  });
  old.prepare("INSERT INTO studies (id, title, definition, created_at, updated_at) VALUES ('old', 'Old', ?, ?, ?)").run(JSON.stringify(definition), now, now);
  const item = old.prepare("INSERT INTO items (id, study_id, seq, kind, utterance_id, clip_id, system_a, system_b, caption_a, caption_b, expected) VALUES (?, 'old', ?, ?, ?, 'c1', ?, ?, 'x', 'y', ?)");
  item.run('i1', 0, 'pair', 'u1', 'alpha', 'beta', null);
  item.run('i2', 1, 'practice', 'u2', 'alpha', 'gamma', 'a');
  const score = old.prepare("INSERT INTO judge_scores (utterance_id, system, judge, run, score) VALUES (?, ?, 'j', ?, ?)");
  score.run('u1', 'alpha', 'r1', 7);
  score.run('u1', 'alpha', 'r2', 6);
  score.run('u1', 'beta', 'r1', 3);
  score.run('u1', 'gamma', 'r1', 9); // not shown by the study
  score.run('u2', 'alpha', 'r1', 5); // practice only: never exported
  old.close();

  const db = openDatabase(file);
  try {
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
    expect(exportRepository(db).rows('old').judgeScores).toEqual([
      { utterance_id: 'u1', system: 'alpha', judge: 'j', run: 'r1', score: 7 },
      { utterance_id: 'u1', system: 'alpha', judge: 'j', run: 'r2', score: 6 },
      { utterance_id: 'u1', system: 'beta', judge: 'j', run: 'r1', score: 3 },
    ]);
    // Later manifest imports no longer reach the study's export.
    db.prepare("UPDATE judge_scores SET score = 1").run();
    expect(exportRepository(db).rows('old').judgeScores.map((s) => s.score)).toEqual([7, 6, 3]);
  } finally {
    db.close();
  }
});

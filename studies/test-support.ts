/**
 * Fixtures for the studies tests: a real SQLite file in a temp folder, manifest rows written the
 * way the audio manifest writes them, and listeners the way the server creates them.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeTestWav } from '../server/testing/seed';
import { openDatabase, type Db } from '../db/open';
import { keyedRandom } from '../analysis/random';
import { StudyDefinition, type StudyDefinitionInput } from '../contract/study-definition';

export interface TempDb {
  db: Db;
  file: string;
  dir: string;
  close(): void;
}

export function tempDb(): TempDb {
  const dir = mkdtempSync(join(tmpdir(), 'earmark-studies-'));
  const file = join(dir, 'earmark.db');
  const db = openDatabase(file, { synchronous: 'OFF' });
  return { db, file, dir, close: () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
}

export interface ManifestShape {
  utterances: number;
  systems: string[];
  judges?: string[];
  runs?: number;
  corpus?: string;
  labels?: (u: number) => Record<string, unknown>;
  seed?: number;
}

/** What a caption says of the labels attention checks read, as real captions do: ", a female voice, slow speaking rate". */
function statedLabels(labels: Record<string, unknown>): string {
  const said = [labels.gender && `a ${String(labels.gender)} voice`, labels.accent && `a ${String(labels.accent)} accent`, labels.speaking_rate, labels.emotion].filter(Boolean);
  return said.length > 0 ? `, ${said.join(', ')}` : '';
}

/** Clips, utterances, captions and judge scores; utterance ids `<corpus>:u<n>`; captions state the gender, accent, rate and emotion labels. */
export function seedManifest(db: Db, shape: ManifestShape): string[] {
  const corpus = shape.corpus ?? 'metaset';
  const random = keyedRandom(shape.seed ?? 1, 'manifest');
  const now = new Date().toISOString();
  const ids: string[] = [];
  const audioDir = join(dirname(db.name), 'corpus', corpus);
  mkdirSync(audioDir, { recursive: true });
  const clip = db.prepare(
    `INSERT INTO clips (id, corpus, root, path, abs_path, format, codec, duration, sample_rate, channels, bytes, mtime_ms, sha256, peaks, labels, imported_at)
     VALUES (?, ?, '/corpus', ?, ?, 'wav', 'pcm_s16le', 2.5, 16000, 1, 80000, 0, ?, '{"resolution":1,"data":[-1,1]}', ?, ?)`,
  );
  const utterance = db.prepare('INSERT INTO utterances (id, corpus, clip_id, transcript, labels) VALUES (?, ?, ?, ?, ?)');
  const caption = db.prepare('INSERT INTO captions (utterance_id, system, text) VALUES (?, ?, ?)');
  const score = db.prepare('INSERT INTO judge_scores (utterance_id, system, judge, run, score) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let u = 0; u < shape.utterances; u++) {
      const id = `${corpus}:u${u}`;
      const clipId = `c${String(u).padStart(6, '0')}${corpus}`;
      const labels = JSON.stringify(shape.labels?.(u) ?? {});
      // A real file: the build makes the copy listeners hear from it.
      const file = join(audioDir, `u${u}.wav`);
      writeTestWav(file, 0.05, 200 + u);
      clip.run(clipId, corpus, `u${u}.wav`, file, `sha${u}`, labels, now);
      utterance.run(id, corpus, clipId, `Sentence ${u}.`, labels);
      shape.systems.forEach((system, i) => {
        caption.run(id, system, `${system} describes utterance ${u}${statedLabels(shape.labels?.(u) ?? {})}.`);
        for (const judge of shape.judges ?? []) {
          for (let r = 1; r <= (shape.runs ?? 1); r++) score.run(id, system, judge, `run${r}`, Math.round(2 + i * 0.5 + random.next() * 5));
        }
      });
      ids.push(id);
    }
  })();
  return ids;
}

/** A study row plus items written directly (for design tests that do not need the build). */
export function insertStudy(
  db: Db,
  id: string,
  definition: StudyDefinitionInput,
  items: { kind: 'pair' | 'attention' | 'practice'; utteranceId: string; expected?: 'a' | 'b' }[],
): string[] {
  const now = new Date().toISOString();
  db.prepare('INSERT INTO studies (id, title, status, definition, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    id,
    definition.title,
    'open',
    JSON.stringify(StudyDefinition.parse(definition)),
    now,
    now,
  );
  const insert = db.prepare(
    `INSERT INTO items (id, study_id, seq, kind, trial_kind, utterance_id, stimuli, expected)
     SELECT ?, ?, ?, ?, 'pair', u.id, json_array(json_object('slot', 'a', 'role', 'caption', 'clip', u.clip_id, 'system', 'sa', 'text', 'caption a'),
                                                 json_object('slot', 'b', 'role', 'caption', 'clip', u.clip_id, 'system', 'sb', 'text', 'caption b')), ?
       FROM utterances u WHERE u.id = ?`,
  );
  return items.map((item, seq) => {
    const itemId = `${id}-item-${seq}`;
    insert.run(itemId, id, seq, item.kind, item.expected ?? null, item.utteranceId);
    return itemId;
  });
}

export function insertListener(db: Db, studyId: string, id: string, createdAt = new Date(), external: Record<string, string> = {}): string {
  db.prepare('INSERT INTO listeners (id, study_id, token_hash, external, created_at) VALUES (?, ?, ?, ?, ?)').run(
    id,
    studyId,
    `hash-${id}`,
    JSON.stringify(external),
    createdAt.toISOString(),
  );
  return id;
}

/** Votes on every assigned trial of a listener, as the server records them: caption a of a pair, score 3 of a rating. */
export function voteAll(db: Db, listenerId: string, at = new Date(), limit = Infinity): number {
  const rows = db
    .prepare('SELECT position, item_id, first FROM assignments WHERE listener_id = ? ORDER BY position')
    .all(listenerId) as { position: number; item_id: string; first: 'a' | 'b' | null }[];
  const insert = db.prepare(
    `INSERT INTO votes (id, listener_id, item_id, position, answer, play_count, seconds_listened, heard_to_end, hidden_ms, response_ms, client_ts, server_ts)
     VALUES (?, ?, ?, ?, ?, 1, 2.5, 1, 0, 1500, ?, ?)`,
  );
  const chosen = rows.slice(0, limit);
  db.transaction(() =>
    chosen.forEach((r) =>
      insert.run(`${listenerId}-${r.position}`, listenerId, r.item_id, r.position, JSON.stringify(r.first === null ? { score: 3 } : { first: r.first, chosen: 'a' }), at.toISOString(), at.toISOString()),
    ),
  )();
  return chosen.length;
}

/** Every table's row count: what "nothing else changed" is checked against. */
export function rowCounts(db: Db): Record<string, number> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  return Object.fromEntries(tables.map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n]));
}

/** The text fields every study definition needs, for tests that only care about the rest. */
export const baseDefinition = {
  title: 'Test study',
  consent: 'I agree.',
  instructions: 'Listen and choose.',
  question: 'Which caption describes **how** it is said?',
  targetListeners: 10,
  completion: { code: 'TEST-CODE' },
} satisfies Partial<StudyDefinitionInput>;

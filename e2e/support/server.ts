import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface E2eServer {
  url: string;
  dataDir: string;
  study: string;
  secrets: string[];
  clipIds: string[];
  /** The study's votes as stored, read straight from the SQLite file (read-only). */
  votes(): Array<{
    id: string;
    item_id: string;
    kind: string;
    position: number;
    first: 'a' | 'b';
    chosen: 'a' | 'b';
    play_count: number;
    heard_to_end: number;
  }>;
  /** Any read-only query on the server's SQLite file. */
  sql<T>(query: string, ...params: unknown[]): T[];
  stop(): Promise<void>;
}

export interface ServeOptions {
  pairs?: number;
  attention?: number;
  practice?: number;
  screening?: 'none' | 'antiphase' | 'huggins' | 'both';
  /** study.yaml `screening.required`: no votes without a passed check. */
  screeningRequired?: boolean;
  /** The study's language (study.yaml `language:`), with its texts given in English and German. */
  language?: 'en' | 'de';
  /** study.yaml `breakEvery`: a break reminder after every this many trials. */
  breakEvery?: number;
  /** study.yaml `comments: true`: the completion screen offers a comments box. */
  comments?: boolean;
  /** study.yaml `questions:` (contract/questionnaire.ts), as given there. */
  questions?: unknown[];
  /** study.yaml `trialComments: true`: every trial offers a comment box. */
  trialComments?: boolean;
  /** A rating study (5-point ACR, the caption shown) instead of caption pairs. */
  rating?: boolean;
  /** study.yaml `design:` (default crossed), as given there. */
  design?: unknown;
}

/** Starts e2e/support/serve.ts in its own process and waits for its address. */
export async function startServer(o: ServeOptions = {}): Promise<E2eServer> {
  const args = [
    '--import',
    'tsx',
    join(root, 'e2e', 'support', 'serve.ts'),
    '--pairs', String(o.pairs ?? 6),
    '--attention', String(o.attention ?? 2),
    '--practice', String(o.practice ?? 1),
    '--screening', o.screening ?? 'none',
    '--language', o.language ?? 'en',
    ...(o.breakEvery ? ['--break-every', String(o.breakEvery)] : []),
    ...(o.comments ? ['--comments'] : []),
    ...(o.questions ? ['--questions', JSON.stringify(o.questions)] : []),
    ...(o.trialComments ? ['--trial-comments'] : []),
    ...(o.rating ? ['--rating'] : []),
    ...(o.screeningRequired ? ['--screening-required'] : []),
    ...(o.design ? ['--design', JSON.stringify(o.design)] : []),
  ];
  const child: ChildProcess = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const info = await new Promise<Omit<E2eServer, 'votes' | 'sql' | 'stop'>>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${stderr}`)));
  });
  return {
    ...info,
    votes: () => readVotes(info.dataDir, info.study),
    sql: (query, ...params) => readSql(info.dataDir, query, params),
    stop: () => stopChild(child),
  };
}

/** A fresh researcher token for the studio, made with the admin CLI as an operator would. */
export function researcherToken(s: E2eServer): string {
  return execFileSync(process.execPath, ['--import', 'tsx', 'server/cli/admin.ts', 'token', 'create', '--role', 'researcher', '--data', s.dataDir], {
    cwd: root,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .at(-1)!;
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function readSql<T>(dataDir: string, query: string, params: unknown[]): T[] {
  const db = new Database(join(dataDir, 'earmark.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(query).all(...params) as T[];
  } finally {
    db.close();
  }
}

function readVotes(dataDir: string, study: string): ReturnType<E2eServer['votes']> {
  return readSql(
    dataDir,
    `SELECT v.id, v.item_id, i.kind, v.position, v.first, v.chosen, v.play_count, v.heard_to_end FROM votes v
     JOIN items i ON i.id = v.item_id WHERE i.study_id = ? ORDER BY v.listener_id, v.position`,
    [study],
  );
}

/**
 * `npm start` as a listener meets it: server/main.ts on a free port over a fresh data dir, which
 * loads the demo study (studies/demo). The secrets are read from its database: system ids, item
 * ids, utterance ids, clip file names and paths, corpus labels and judge scores.
 */
export async function startMain(): Promise<E2eServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-e2e-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'server', 'main.ts'), '--port', '0', '--data', dataDir, '--log-level', 'warn'],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const link = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /Listener link:\s+(\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server/main.ts exited (${code}): ${stderr}`)));
  });
  const url = new URL(link);
  const study = url.pathname.split('/').filter(Boolean)[1];
  const { secrets, clipIds } = studySecrets(dataDir, study);
  return {
    url: url.origin,
    dataDir,
    study,
    secrets,
    clipIds,
    votes: () => readVotes(dataDir, study),
    sql: (query, ...params) => readSql(dataDir, query, params),
    stop: async () => {
      await stopChild(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * What a listener of `study` must never receive, read from the server's database: system ids, item
 * ids, utterance ids, clip file names and paths of every stimulus of every item (a pair's clip, an
 * A/B item's two renditions), corpus labels and judge scores; and the served ids media may be
 * addressed by.
 */
export function studySecrets(dataDir: string, study: string): Pick<E2eServer, 'secrets' | 'clipIds'> {
  const db = new Database(join(dataDir, 'earmark.db'), { readonly: true, fileMustExist: true });
  const secrets = new Set<string>();
  const labels = new Set<string>();
  let publicText = study;
  try {
    // Listeners address clips by their served ids; the manifest's clip ids are secrets like the rest.
    const clipIds = (db.prepare('SELECT id FROM served_clips WHERE study_id = ?').pluck().all(study) as string[]);
    const stimuli = db
      .prepare(
        `SELECT i.id, i.utterance_id, json_extract(e.value, '$.clip') AS clip_id, json_extract(e.value, '$.system') AS system
         FROM items i, json_each(i.stimuli) e WHERE i.study_id = ?`,
      )
      .all(study) as Array<Record<'id' | 'utterance_id' | 'clip_id', string> & { system: string | null }>;
    const clip = db.prepare('SELECT path, abs_path, labels, sha256 FROM clips WHERE id = ?');
    const utterance = db.prepare('SELECT labels FROM utterances WHERE id = ?');
    const scores = db.prepare('SELECT score FROM judge_scores WHERE utterance_id = ?');
    const labelValues = (json: string) =>
      Object.values(JSON.parse(json) as Record<string, unknown>).filter((v): v is string => typeof v === 'string' && v.length >= 3);
    for (const it of stimuli) {
      for (const s of [it.id, it.utterance_id, it.clip_id, it.system]) if (s !== null) secrets.add(s);
      const c = clip.get(it.clip_id) as { path: string; abs_path: string; labels: string; sha256: string };
      // The corpus file's content hash would let anyone holding the corpus look the clip up.
      for (const s of [c.path, c.abs_path, basename(c.path), basename(c.path).replace(/\.[^.]+$/, ''), c.sha256.slice(0, 16)]) secrets.add(s);
      for (const s of labelValues(c.labels)) labels.add(s);
      const u = utterance.get(it.utterance_id) as { labels: string } | undefined;
      if (u) for (const s of labelValues(u.labels)) labels.add(s);
      for (const { score } of scores.all(it.utterance_id) as Array<{ score: number }>) if (!Number.isInteger(score)) secrets.add(String(score));
    }
    // What the listener is meant to read: the study's texts and the captions. A label that is
    // also a word there ("male" in "a male voice") is not a leak; any other label is.
    const def = JSON.parse((db.prepare('SELECT definition FROM studies WHERE id = ?').get(study) as { definition: string }).definition);
    const captions = db.prepare('SELECT caption_a, caption_b FROM items WHERE study_id = ?').all(study) as Array<Record<string, string>>;
    publicText += [def.title, def.consent, def.instructions, def.question, ...captions.flatMap((r) => [r.caption_a, r.caption_b])].join('\n');
    for (const l of labels) if (!publicText.toLowerCase().includes(l.toLowerCase())) secrets.add(l);
    secrets.delete(study); // the study's own name is in its public link
    return { secrets: [...secrets], clipIds };
  } finally {
    db.close();
  }
}

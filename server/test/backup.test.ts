import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupDatabase, backupTarget } from '../backup';
import { databaseFile } from '../../db/open';
import { buildApp } from '../app';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'backed', pairs: 30 }] });
});
afterAll(() => server.close());

const TABLES = ['studies', 'items', 'clips', 'utterances', 'captions', 'judge_scores', 'listeners', 'assignments', 'votes'];
const counts = (db: Database.Database) =>
  Object.fromEntries(TABLES.map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]));

describe('backup', () => {
  it('copies the live database while votes keep arriving, and the copy restores', async () => {
    const tokens = await Promise.all(
      [1, 2, 3].map(async () => (await call(`${server.url}/api/sessions`, { body: { study: 'backed' } })).body.token as string),
    );
    let position = 0;
    const voting = (async () => {
      for (; position < 20; position++) {
        await Promise.all(tokens.map((token) => call(`${server.url}/api/session/votes`, { token, body: voteFor(position) })));
      }
    })();
    const target = join(server.dataDir, 'copy.db');
    await backupDatabase(databaseFile(server), target);
    await voting;

    const copy = new Database(target, { readonly: true });
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    const copied = counts(copy);
    // A consistent snapshot: every vote in it has its listener and assignment, and the
    // server went on committing past it.
    expect(copied.votes).toBeLessThanOrEqual(60);
    expect((copy.prepare('SELECT count(*) AS n FROM votes v LEFT JOIN listeners l ON l.id = v.listener_id WHERE l.id IS NULL').get() as any).n).toBe(0);
    copy.close();
    expect(counts(server.app.db).votes).toBe(60);

    // Through the CLI now that voting stopped: the copy equals the live database row for row.
    const cliTarget = join(server.dataDir, 'cli-copy.db');
    execFileSync(process.execPath, ['--import', 'tsx', 'server/cli/backup.ts', cliTarget, '--data', server.dataDir]);
    const restored = new Database(cliTarget, { readonly: true });
    expect(counts(restored)).toEqual(counts(server.app.db));
    restored.close();
    expect(() => execFileSync(process.execPath, ['--import', 'tsx', 'server/cli/backup.ts', cliTarget, '--data', server.dataDir], { stdio: 'pipe' })).toThrow();
  });

  it('into a folder (as the backup timer of docs/deploy.md runs it): makes the folder and a timestamped copy each run', () => {
    const folder = join(server.dataDir, 'backups', 'nightly');
    const run = () => execFileSync(process.execPath, ['--import', 'tsx', 'server/cli/backup.ts', `${folder}/`, '--data', server.dataDir], { encoding: 'utf8' });
    const first = /to (\S+earmark-\d{8}T\d{6}Z\.db) \(/.exec(run())?.[1];
    expect(first).toBeDefined();
    expect(dirname(first!)).toBe(folder);
    const copy = new Database(first!, { readonly: true });
    expect(counts(copy)).toEqual(counts(server.app.db));
    copy.close();
    expect(backupTarget(folder, new Date('2026-05-01T03:00:07.123Z'))).toBe(join(folder, 'earmark-20260501T030007Z.db'));
    expect(backupTarget(join(folder, 'x', 'named.db'))).toBe(join(folder, 'x', 'named.db'));
    expect(existsSync(join(folder, 'x'))).toBe(true);
  });
});

describe('restore', () => {
  it('a backup restored into an empty data dir (docs/deploy.md) serves every clip of the study again: the copies are made again and the log says so', async () => {
    const backup = join(server.dataDir, 'restore-me.db');
    execFileSync(process.execPath, ['--import', 'tsx', 'server/cli/backup.ts', backup, '--data', server.dataDir]);
    // The restore steps: an empty data dir, the backup as its database; the corpus stays where it was imported from.
    const fresh = mkdtempSync(join(tmpdir(), 'earmark-restored-'));
    copyFileSync(backup, databaseFile({ dataDir: fresh }));
    const lines: string[] = [];
    const app = await buildApp(
      { dataDir: fresh, synchronous: 'FULL', logLevel: 'info', requestLog: false, trustProxy: false },
      { logStream: { write: (line) => void lines.push(line) } },
    );
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const served = (app.db.prepare("SELECT count(DISTINCT file) FROM served_clips WHERE study_id = 'backed'").pluck().get() as number);
      expect(readdirSync(join(fresh, 'served-audio')).filter((f) => f.endsWith('.wav'))).toHaveLength(served);
      expect(lines.join('')).toContain(`served audio: ${served} missing copies made again from the corpus files`);

      // A new listener plays every trial's clip, answers it, and finishes.
      const started = await call(`${url}/api/sessions`, { body: { study: 'backed' } });
      expect(started.status).toBe(201);
      const token = started.body.token as string;
      let state = started.body.state;
      const played = new Set<string>();
      while (state.trial) {
        const audio = await fetch(`${url}${state.trial.clip.audioUrl}`);
        expect(audio.status, state.trial.clip.audioUrl).toBe(200);
        expect(Buffer.from(await audio.arrayBuffer()).subarray(0, 4).toString('latin1')).toBe('RIFF');
        played.add(state.trial.clip.id);
        expect((await call(`${url}/api/session/votes`, { token, body: voteFor(state.trial.position) })).status).toBe(200);
        state = (await call(`${url}/api/session`, { token })).body;
      }
      expect(state.completion).not.toBeNull();
      const clips = app.db.prepare("SELECT DISTINCT s.id FROM items i JOIN served_clips s ON s.study_id = i.study_id AND s.clip_id = i.clip_id WHERE i.study_id = 'backed'").pluck().all();
      expect([...played].sort()).toEqual([...clips].sort());
    } finally {
      await app.close();
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});

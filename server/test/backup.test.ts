import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupDatabase, backupTarget } from '../backup';
import { databaseFile } from '../../db/open';
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

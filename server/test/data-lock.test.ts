import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { startTestServer, type TestServer } from '../testing/server';

/** Issue 20.7: a second server on the same data directory is refused with a clear message. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ studies: [] });
});
afterAll(() => server.close());
const config = (dataDir: string) => ({ dataDir, synchronous: 'FULL' as const, logLevel: 'silent' as const });

describe('the data directory lock', () => {
  it('refuses `npm start` on a data directory a running server holds, naming its pid', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join('server', 'main.ts'), '--data', server.dataDir, '--port', '0', '--no-demo'], { encoding: 'utf8', timeout: 120_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`Earmark cannot start: the data directory ${server.dataDir} is already in use by another Earmark server (pid ${process.pid}`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(join(server.dataDir, 'earmark.lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
  }, 150_000);

  it('refuses a second server in the same process, and is released when the first closes', async () => {
    await expect(buildApp(config(server.dataDir))).rejects.toThrow(/already in use by another Earmark server in this process/);
    const dir = mkdtempSync(join(tmpdir(), 'earmark-lock-'));
    const first = await buildApp(config(dir));
    await first.close();
    expect(existsSync(join(dir, 'earmark.lock'))).toBe(false);
    const second = await buildApp(config(dir));
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes over a stale lock whose server is gone (a kill -9)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'earmark-lock-'));
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(dir, 'earmark.lock'), `${gone.stdout}\n2026-01-01T00:00:00.000Z\n`);
    const app = await buildApp(config(dir));
    expect(readFileSync(join(dir, 'earmark.lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

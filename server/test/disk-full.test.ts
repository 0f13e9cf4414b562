import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call } from '../testing/client';

/**
 * Issue 20.7: a full disk answers 503 with a plain message and leaves no orphan study folder.
 * The data dir's studies/ is a real, tiny tmpfs, filled up (tests run as root, as CI does).
 */
let server: TestServer;
let studies: string;
let researcher: string;
beforeAll(async () => {
  server = await startTestServer({ studies: [] });
  studies = join(server.dataDir, 'studies');
  mkdirSync(studies, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', studies]);
  // Fill it: writes fail with ENOSPC once the 64 KiB are taken.
  try {
    for (let i = 0; ; i++) writeFileSync(join(studies, `.filler-${i}`), Buffer.alloc(4096, 1));
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  }
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
});
afterAll(async () => {
  execFileSync('umount', [studies]);
  await server.close();
});

describe('a full disk', () => {
  it('answers study creation 503 with a plain message and leaves no study folder behind', async () => {
    const templates = await call(`${server.url}/api/studio/templates`, { token: researcher });
    const yaml = templates.body.templates.find((t: { id: string }) => t.id === 'metaset-caption-preference').yaml;
    const made = await call(`${server.url}/api/studio/studies`, { token: researcher, body: { name: 'no-room', yaml } });
    expect(made.status).toBe(503);
    expect(made.body).toEqual({ error: 'disk_full', message: expect.stringMatching(/^the server's disk is full, so nothing was saved\. Free some space/) });
    expect(readdirSync(studies).filter((f) => !f.startsWith('.filler-'))).toEqual([]);
    // Once there is room again, the same study is made.
    for (const f of readdirSync(studies)) if (f.startsWith('.filler-')) execFileSync('rm', [join(studies, f)]);
    expect((await call(`${server.url}/api/studio/studies`, { token: researcher, body: { name: 'no-room', yaml } })).status).toBe(201);
  });
});

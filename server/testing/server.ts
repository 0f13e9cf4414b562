import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../app';
import type { Config } from '../config';
import type { Synchronous } from '../../db/open';
import { seedStudy, type SeedOptions, type SeededStudy } from './seed';

export interface TestServer {
  app: FastifyInstance;
  url: string;
  dataDir: string;
  seeded: SeededStudy[];
  close(): Promise<void>;
}

/**
 * A real server on loopback (port 0) over a fresh temporary data directory, with the given
 * studies seeded. Rate limits default to very high so tests only meet them on purpose.
 */
export async function startTestServer(
  options: {
    studies?: SeedOptions[];
    app?: AppOptions;
    synchronous?: Synchronous;
    /** Behind a reverse proxy on loopback: which proxies to believe (config.trustProxy). */
    trustProxy?: Config['trustProxy'];
    requestLog?: boolean;
  } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-test-'));
  const app = await buildApp(
    {
      dataDir,
      synchronous: options.synchronous ?? 'FULL',
      logLevel: options.requestLog ? 'info' : 'silent',
      requestLog: options.requestLog ?? false,
      trustProxy: options.trustProxy ?? false,
    },
    {
      rateLimits: { sessionsPerIp: 100_000, votesPerIp: 100_000, votesPerSession: 100_000, authFailuresPerIp: 100_000, authFailuresPerToken: 100_000 },
      ...options.app,
    },
  );
  const seeded = (options.studies ?? [{}]).map((s) => seedStudy(app.db, join(dataDir, 'audio'), s));
  await app.listen({ host: '127.0.0.1', port: 0 });
  // Listening made the seeded studies' served copies: listeners see their ids, never the manifest's.
  const servedIds = app.db.prepare(
    'SELECT s.id FROM items i JOIN served_clips s ON s.study_id = i.study_id AND s.clip_id = i.clip_id WHERE i.study_id = ? ORDER BY i.seq',
  );
  for (const study of seeded) {
    study.secrets.push(...study.clipIds);
    study.clipIds = servedIds.pluck().all(study.study) as string[];
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    seeded,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

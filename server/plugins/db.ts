import fp from 'fastify-plugin';
import type { VoteAck } from '../../contract/listener';
import { GroupCommit } from '../../db/group-commit';
import { openDatabase, type Synchronous, type Db } from '../../db/open';
import { accessTokenRepository } from '../store/access-tokens';
import { clipRepository } from '../store/clips';
import { exportRepository } from '../store/export';
import { screeningRepository } from '../store/screening';
import { sessionRepository } from '../store/sessions';
import { studyRepository } from '../store/studies';
import { trialProblemRepository } from '../store/trial-problems';
import type { VoteInput } from '../store/votes';
import type { ServerMetrics } from '../metrics';
import { WriterSupervisor, type SupervisorOptions } from '../writer-supervisor';

export function repositories(db: Db) {
  return {
    studies: studyRepository(db),
    sessions: sessionRepository(db),
    screening: screeningRepository(db),
    clips: clipRepository(db),
    accessTokens: accessTokenRepository(db),
    exports: exportRepository(db),
    trialProblems: trialProblemRepository(db),
  };
}
export type Repositories = ReturnType<typeof repositories>;

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    store: Repositories;
    /** Votes go through here: acknowledged only once their batch has committed. */
    voteCommits: GroupCommit<VoteInput, VoteAck>;
    /** The vote writer thread, restarted when it dies; /readyz asks it. */
    voteWriter: WriterSupervisor;
  }
}

export interface DbPluginOptions {
  /** The SQLite file, opened (and migrated) here and closed with the app. */
  file: string;
  synchronous: Synchronous;
  metrics: ServerMetrics;
  /** Called when the vote writer thread keeps dying (main.ts exits, for the service manager to restart). */
  onFatal: (error: Error) => void;
  voteWriter?: Pick<SupervisorOptions, 'maxRestarts' | 'restartDelayMs'>;
}

export const dbPlugin = fp<DbPluginOptions>(
  async (app, options) => {
    const db = openDatabase(options.file, { synchronous: options.synchronous });
    const store = repositories(db);
    const writer = await WriterSupervisor.start({
      ...options.voteWriter,
      file: options.file,
      synchronous: options.synchronous,
      metrics: options.metrics,
      onFatal: options.onFatal,
      log: app.log,
    });
    const voteCommits = new GroupCommit((batch: VoteInput[]) => writer.commit(batch));
    app.decorate('db', db);
    app.decorate('store', store);
    app.decorate('voteCommits', voteCommits);
    app.decorate('voteWriter', writer);
    app.addHook('onClose', async () => {
      await voteCommits.drain();
      await writer.close();
      db.close();
    });
  },
  { name: 'db' },
);

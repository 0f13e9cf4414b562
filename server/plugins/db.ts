import fp from 'fastify-plugin';
import type { VoteAck } from '../../contract/listener';
import { GroupCommit } from '../../db/group-commit';
import { openDatabase, type Synchronous, type Db } from '../../db/open';
import { startVoteWriter } from '../store/vote-writer';
import { accessTokenRepository } from '../store/access-tokens';
import { clipRepository } from '../store/clips';
import { exportRepository } from '../store/export';
import { screeningRepository } from '../store/screening';
import { sessionRepository } from '../store/sessions';
import { studyRepository } from '../store/studies';
import { trialProblemRepository } from '../store/trial-problems';
import type { VoteInput } from '../store/votes';

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
  }
}

export interface DbPluginOptions {
  /** The SQLite file, opened (and migrated) here and closed with the app. */
  file: string;
  synchronous: Synchronous;
}

export const dbPlugin = fp<DbPluginOptions>(
  async (app, options) => {
    const db = openDatabase(options.file, { synchronous: options.synchronous });
    const store = repositories(db);
    const writer = await startVoteWriter(options.file, options.synchronous);
    const voteCommits = new GroupCommit((batch: VoteInput[]) => writer.commit(batch));
    app.decorate('db', db);
    app.decorate('store', store);
    app.decorate('voteCommits', voteCommits);
    app.addHook('onClose', async () => {
      await voteCommits.drain();
      await writer.close();
      db.close();
    });
  },
  { name: 'db' },
);

import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { VoteAck } from '../../contract/listener';
import { HttpError } from '../errors';
import { voteRepository, type VoteInput } from './votes';
import { studyRepository, type StudyRow } from './studies';
import { batchCommitter, type Outcome } from '../../db/group-commit';
import { openDatabase, type Synchronous } from '../../db/open';

interface WriterData {
  voteWriter: { file: string; synchronous: Synchronous };
}
type SentError = { http: [number, string, string, string | undefined] } | { message: string };
type SentOutcome = { ok: true; value: VoteAck } | { ok: false; error: SentError };
/** Batches and their outcomes cross between the threads as JSON text: cloning a string is a copy, while structured cloning of a batch's objects cost the event loop more than the rest of a vote's routing. */
type Reply = { id: number; outcomes: string } | { id: number; failed: string };

export interface VoteWriter {
  /** Records a batch of votes in one durable transaction; resolves after its COMMIT returned. */
  commit(batch: VoteInput[]): Promise<Outcome<VoteAck>[]>;
  /** Resolves once the thread, between batches, has taken and released the database's write lock (readiness). */
  ping(): Promise<void>;
  /** Resolves with the reason when the thread stops other than by close(). */
  readonly stopped: Promise<Error>;
  /** Stops the thread at once, as a crash would (tests of what notices). */
  terminate(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Votes are written by a thread of their own with its own connection to the database file, so
 * the commit (an fsync with synchronous=FULL, milliseconds for a batch of scattered index pages)
 * and the vote statements run beside the event loop instead of stalling every other request.
 */
export function startVoteWriter(file: string, synchronous: Synchronous): Promise<VoteWriter> {
  const data: WriterData = { voteWriter: { file, synchronous } };
  const worker = new Worker(new URL('./vote-writer-thread.mjs', import.meta.url), { workerData: data });
  const pending = new Map<number, { resolve: (o: Outcome<VoteAck>[]) => void; reject: (e: unknown) => void }>();
  let nextId = 0;
  let crashed: Error | null = null;
  let stop: (error: Error) => void = () => {};
  const stopped = new Promise<Error>((resolve) => (stop = resolve));
  const failAll = (error: Error) => {
    crashed = error;
    stop(error);
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  worker.on('message', (reply: Reply) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if ('failed' in reply) waiting.reject(new Error(reply.failed));
    else waiting.resolve((JSON.parse(reply.outcomes) as SentOutcome[]).map((o) => (o.ok ? o : { ok: false, error: revive(o.error) })));
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the vote writer stopped (exit code ${code})`)));
  const send = (message: { batch: string } | { ping: true }) => {
    if (crashed) return Promise.reject(crashed);
    const id = nextId++;
    return new Promise<Outcome<VoteAck>[]>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  };
  const writer: VoteWriter = {
    commit: (batch) => send({ batch: JSON.stringify(batch) }),
    ping: () => send({ ping: true }).then(() => undefined),
    stopped,
    terminate: () => worker.terminate().then(() => undefined),
    close() {
      worker.removeAllListeners('exit');
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage({ close: true });
      return exited;
    },
  };
  // Ready once the thread has opened (and migrated) its connection.
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(writer));
    worker.once('error', reject);
  });
}

const revive = (sent: SentError): unknown =>
  'http' in sent ? new HttpError(...sent.http) : new Error(sent.message);

const sendError = (error: unknown): SentError =>
  error instanceof HttpError
    ? { http: [error.statusCode, error.code, error.message, error.field] }
    : { message: error instanceof Error ? error.message : String(error) };

const CHECKPOINT_EVERY_VOTES = 750;

if (!isMainThread && (workerData as Partial<WriterData> | null)?.voteWriter) {
  const { file, synchronous } = (workerData as WriterData).voteWriter;
  const db = openDatabase(file, { synchronous });
  // Votes touch index pages all over the file (random vote and listener ids); a 64 MiB cache
  // keeps them from being read again for every batch. (A longer checkpoint interval was tried:
  // fewer but longer checkpoints, and p99 latency got worse.)
  db.pragma('cache_size = -65536');
  // SQLite's own autocheckpoint runs inside the COMMIT of whichever batch crosses 1,000 WAL pages, so
  // that batch's acknowledgements wait for the copy into the database file. The writer runs the same
  // checkpoint itself right after a batch's reply has gone out, at about the same interval (a vote
  // writes ≈ 1.3 WAL pages), so it only delays the next batch.
  db.pragma('wal_autocheckpoint = 0');
  let votesSinceCheckpoint = 0;
  const votes = voteRepository(db);
  const studies = studyRepository(db);
  // Each study of a batch is read once, inside the batch's transaction: a status change or an
  // edit committed before it applies to all of its votes, and none can happen during it.
  let batchStudies = new Map<string, StudyRow>();
  const studyOf = (id: string): StudyRow => {
    let study = batchStudies.get(id);
    if (!study) batchStudies.set(id, (study = studies.get(id)!));
    return study;
  };
  // record() throws its refusals (HttpError) before it writes anything.
  const commit = batchCommitter(db, (input: VoteInput) => votes.record(input, studyOf(input.listener.studyId)), (e) => e instanceof HttpError);
  parentPort!.on('message', (message: { id: number; batch: string } | { id: number; ping: true } | { close: true }) => {
    if ('close' in message) {
      db.close();
      process.exit(0);
    }
    if ('ping' in message) {
      let reply: Reply = { id: message.id, outcomes: '[]' };
      try {
        db.exec('BEGIN IMMEDIATE');
        db.exec('ROLLBACK');
      } catch (error) {
        reply = { id: message.id, failed: error instanceof Error ? error.message : String(error) };
      }
      parentPort!.postMessage(reply);
      return;
    }
    const { id, batch } = message;
    const inputs = JSON.parse(batch) as VoteInput[];
    let reply: Reply;
    batchStudies = new Map();
    try {
      const outcomes = commit(inputs);
      reply = { id, outcomes: JSON.stringify(outcomes.map((o): SentOutcome => (o.ok ? o : { ok: false, error: sendError(o.error) }))) };
    } catch (error) {
      reply = { id, failed: error instanceof Error ? error.message : String(error) };
    }
    parentPort!.postMessage(reply);
    if ((votesSinceCheckpoint += inputs.length) >= CHECKPOINT_EVERY_VOTES) {
      votesSinceCheckpoint = 0;
      try {
        db.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // As with SQLite's own autocheckpoint, a failed checkpoint fails no vote: every committed vote is
        // in the WAL, and the next checkpoint copies it.
      }
    }
  });
  parentPort!.postMessage('ready');
}

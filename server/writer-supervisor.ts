/**
 * Keeps a vote writer thread running. When the thread dies (a crash in native code, an exhausted
 * heap, a test's terminate()), votes are refused with 503 instead of hanging or 500s, /readyz says
 * so at once, and a new thread is started after a pause (1 s, doubling up to 30 s while it keeps
 * dying). After `maxRestarts` deaths within ten minutes it gives up and calls `onFatal`: main.ts
 * exits, so the supervisor (systemd's Restart=) starts the whole process again (docs/deploy.md).
 */
import type { VoteAck } from '../contract/listener';
import type { Outcome } from '../db/group-commit';
import type { Synchronous } from '../db/open';
import { HttpError } from './errors';
import type { ServerMetrics } from './metrics';
import { startVoteWriter, type VoteWriter } from './store/vote-writer';
import type { VoteInput } from './store/votes';

export interface SupervisorOptions {
  file: string;
  synchronous: Synchronous;
  metrics: ServerMetrics;
  /** Deaths within ten minutes that are restarted; one more and onFatal is called (default 5). */
  maxRestarts?: number;
  /** First pause before a restart, doubled for each further death (default 1000 ms, at most 30 s). */
  restartDelayMs?: number;
  onFatal: (error: Error) => void;
  log: { error(object: object, message: string): void; warn(object: object, message: string): void };
}

export interface WriterHealth {
  ok: boolean;
  /** Why not ready, for /readyz. */
  problem?: string;
}

const WINDOW_MS = 10 * 60_000;
const PING_TIMEOUT_MS = 1000;

export class WriterSupervisor {
  private writer: VoteWriter | null = null;
  private down: Error | null = null;
  private deaths: number[] = [];
  private lastCommitError: string | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(private readonly options: SupervisorOptions) {}

  static async start(options: SupervisorOptions): Promise<WriterSupervisor> {
    const supervisor = new WriterSupervisor(options);
    supervisor.watch(await startVoteWriter(options.file, options.synchronous));
    return supervisor;
  }

  /** One group-commit batch, counted in the metrics; refused with 503 while no thread runs. */
  async commit(batch: VoteInput[]): Promise<Outcome<VoteAck>[]> {
    const { metrics } = this.options;
    if (!this.writer) {
      metrics.votesRefused.inc({ reason: 'writer_down' }, batch.length);
      throw new HttpError(503, 'unavailable', 'votes cannot be recorded right now; the vote was not recorded, send it again in a moment');
    }
    metrics.batchSize.observe(batch.length);
    const started = performance.now();
    let outcomes: Outcome<VoteAck>[];
    try {
      outcomes = await this.writer.commit(batch);
    } catch (error) {
      this.lastCommitError = error instanceof Error ? error.message : String(error);
      metrics.votesRefused.inc({ reason: 'commit_failed' }, batch.length);
      throw error;
    }
    metrics.commitSeconds.observe((performance.now() - started) / 1000);
    this.lastCommitError = null;
    for (const o of outcomes) {
      if (o.ok) metrics.votesAcknowledged.inc();
      else metrics.votesRefused.inc({ reason: o.error instanceof HttpError ? o.error.code : 'error' });
    }
    return outcomes;
  }

  /** Ready: a thread runs, answers within a second after taking the write lock, and the last batch committed. */
  async health(): Promise<WriterHealth> {
    if (!this.writer) return { ok: false, problem: `the vote writer thread is not running (${this.down?.message ?? 'stopped'})` };
    if (this.lastCommitError) return { ok: false, problem: `the last vote batch failed to commit: ${this.lastCommitError}` };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.writer.ping(), timeout]);
      return { ok: true };
    } catch (error) {
      return { ok: false, problem: `the vote writer cannot take the database's write lock: ${(error as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  }

  get running(): boolean {
    return this.writer !== null;
  }

  /** The running thread (tests stop it with terminate() to see what notices). */
  get thread(): VoteWriter | null {
    return this.writer;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.writer?.close();
    this.writer = null;
  }

  private watch(writer: VoteWriter): void {
    this.writer = writer;
    this.down = null;
    void writer.stopped.then((error) => {
      if (this.writer !== writer || this.closed) return;
      this.writer = null;
      this.down = error;
      this.died(error);
    });
  }

  private died(error: Error): void {
    const { maxRestarts = 5, restartDelayMs = 1000, log, onFatal, metrics } = this.options;
    const now = Date.now();
    this.deaths = [...this.deaths.filter((t) => now - t < WINDOW_MS), now];
    if (this.deaths.length > maxRestarts) {
      log.error({ err: error }, `the vote writer thread stopped ${this.deaths.length} times in ten minutes; giving up`);
      onFatal(error);
      return;
    }
    const delay = Math.min(30_000, restartDelayMs * 2 ** (this.deaths.length - 1));
    log.error({ err: error }, `the vote writer thread stopped; votes are refused until it is restarted in ${delay} ms`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      startVoteWriter(this.options.file, this.options.synchronous).then(
        (writer) => {
          if (this.closed) return void writer.close();
          metrics.writerRestarts.inc();
          log.warn({}, 'the vote writer thread was restarted');
          this.watch(writer);
        },
        (startError: Error) => this.died(startError),
      );
    }, delay);
  }
}

import type { Db } from './open';

export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** Thrown inside a batch to roll it back and run it again with one savepoint per piece of work. */
class Isolate extends Error {}

/**
 * Runs a batch of work in one SQLite transaction and returns each piece's outcome once the
 * COMMIT returned (with synchronous=FULL: once it is on disk). Throws when the commit failed,
 * in which case nothing of the batch is durable.
 *
 * `apply` either completes or throws a refusal (`isRefusal`) before it writes anything, so a
 * refused piece answers only itself and the batch needs no savepoint per piece (two statements
 * each, the largest cost of a vote). Any other error may come after a partial write: the batch
 * is then rolled back and run again with a savepoint around each piece, so that error too
 * answers only its own piece.
 */
export function batchCommitter<T, R>(
  db: Db,
  apply: (input: T) => R,
  isRefusal: (error: unknown) => boolean,
): (batch: readonly T[]) => Outcome<R>[] {
  const shared = db.transaction((batch: readonly T[]) =>
    batch.map((input): Outcome<R> => {
      try {
        return { ok: true, value: apply(input) };
      } catch (error) {
        if (!isRefusal(error)) throw new Isolate();
        return { ok: false, error };
      }
    }),
  );
  const one = db.transaction(apply);
  const isolated = db.transaction((batch: readonly T[]) =>
    batch.map((input): Outcome<R> => {
      try {
        return { ok: true, value: one(input) };
      } catch (error) {
        return { ok: false, error };
      }
    }),
  );
  // IMMEDIATE: the batch reads before it writes, and a deferred transaction whose snapshot went
  // stale (another connection of this file committed meanwhile) would fail at its first write
  // instead of waiting for the lock.
  return (batch) => {
    try {
      return shared.immediate(batch);
    } catch (error) {
      if (!(error instanceof Isolate)) throw error;
      return isolated.immediate(batch);
    }
  };
}

type Settle<R> = { resolve: (value: R) => void; reject: (error: unknown) => void };

/**
 * Group commit: requests that arrive while the previous batch is being committed (or within one
 * event-loop turn) are committed together, so durable commits (synchronous=FULL fsyncs once per
 * commit) are shared by every request of the batch. `commit` runs one batch (in the vote writer
 * thread, so the fsync never stalls the event loop); a promise resolves only after its batch's
 * COMMIT returned, which is what makes an acknowledgement durable.
 */
export class GroupCommit<T, R> {
  private queue: { input: T; settle: Settle<R> }[] = [];
  private scheduled = false;
  private inFlight: Promise<void> | null = null;

  constructor(private readonly commit: (batch: T[]) => Promise<Outcome<R>[]>) {}

  submit(input: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ input, settle: { resolve, reject } });
      if (!this.scheduled && !this.inFlight) {
        this.scheduled = true;
        setImmediate(() => this.next());
      }
    });
  }

  /** Resolves once everything submitted so far is committed (or refused); used on shutdown. */
  async drain(): Promise<void> {
    while (this.inFlight || this.queue.length > 0) {
      if (!this.inFlight) this.next();
      await this.inFlight;
    }
  }

  private next(): void {
    this.scheduled = false;
    if (this.inFlight || this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.inFlight = this.commit(batch.map((b) => b.input)).then(
      (outcomes) =>
        batch.forEach(({ settle }, i) => {
          const outcome = outcomes[i];
          if (outcome.ok) settle.resolve(outcome.value);
          else settle.reject(outcome.error);
        }),
      // The commit itself failed: nothing of this batch is durable, so nobody gets an ack.
      (error) => batch.forEach(({ settle }) => settle.reject(error)),
    ).finally(() => {
      this.inFlight = null;
      // Whatever arrived during the commit goes out as the next batch at once.
      if (this.queue.length > 0) this.next();
    });
  }
}

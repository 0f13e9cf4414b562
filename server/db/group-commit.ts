import type { Db } from './open';

type Settle<R> = { resolve: (value: R) => void; reject: (error: unknown) => void };
type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** Thrown inside a batch to roll it back and run it again with one savepoint per piece of work. */
class Isolate extends Error {}

/**
 * Group commit: work submitted within one event-loop turn runs in a single SQLite transaction,
 * so durable commits (synchronous=FULL fsyncs once per commit) are shared by every request of
 * the batch. A promise resolves only after the batch's COMMIT returned, which is what makes an
 * acknowledgement durable.
 *
 * `apply` either completes or throws a refusal (`isRefusal`) before it writes anything, so a
 * refused request answers only itself and the batch needs no savepoint per piece (two statements
 * each, the largest cost of a vote). Any other error may come after a partial write: the batch
 * is then rolled back and run again with a savepoint around each piece, so that error too
 * answers only its own request.
 */
export class GroupCommit<T, R> {
  private queue: { input: T; settle: Settle<R> }[] = [];
  private scheduled = false;
  private readonly shared: (batch: readonly T[]) => Outcome<R>[];
  private readonly isolated: (batch: readonly T[]) => Outcome<R>[];

  constructor(
    db: Db,
    apply: (input: T) => R,
    isRefusal: (error: unknown) => boolean,
  ) {
    this.shared = db.transaction((batch: readonly T[]) =>
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
    this.isolated = db.transaction((batch: readonly T[]) =>
      batch.map((input): Outcome<R> => {
        try {
          return { ok: true, value: one(input) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  }

  submit(input: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ input, settle: { resolve, reject } });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits whatever is queued now; used on shutdown so no accepted request is left waiting. */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const inputs = batch.map((b) => b.input);
    let outcomes: Outcome<R>[];
    try {
      try {
        outcomes = this.shared(inputs);
      } catch (error) {
        if (!(error instanceof Isolate)) throw error;
        outcomes = this.isolated(inputs);
      }
    } catch (error) {
      // The commit itself failed: nothing of this batch is durable, so nobody gets an ack.
      for (const { settle } of batch) settle.reject(error);
      return;
    }
    batch.forEach(({ settle }, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) settle.resolve(outcome.value);
      else settle.reject(outcome.error);
    });
  }
}

import type { Db } from './open';

type Settle<R> = { resolve: (value: R) => void; reject: (error: unknown) => void };

/**
 * Group commit: work submitted within one event-loop turn runs in a single SQLite transaction,
 * so durable commits (synchronous=FULL fsyncs once per commit) are shared by every request of
 * the batch. Each piece of work runs in its own savepoint: one that throws (a refused vote)
 * answers only its own request and leaves the rest of the batch to commit. A promise resolves
 * only after the batch's COMMIT returned, which is what makes an acknowledgement durable.
 */
export class GroupCommit<T, R> {
  private queue: { input: T; settle: Settle<R> }[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly apply: (input: T) => R,
  ) {}

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
    const outcomes: ({ ok: true; value: R } | { ok: false; error: unknown })[] = [];
    const one = this.db.transaction((input: T) => this.apply(input));
    try {
      this.db.transaction(() => {
        for (const { input } of batch) {
          try {
            outcomes.push({ ok: true, value: one(input) });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      })();
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

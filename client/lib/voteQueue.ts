/**
 * The listener's outbox. A vote is written to durable browser storage before it is sent and
 * leaves only when the server has acknowledged it (or said it already holds an answer for that
 * trial), so a reload, a dropped connection or a crashed tab loses nothing. Votes go out one at a
 * time in the order they were made; failures back off exponentially with jitter.
 */
import type { VoteAck, VoteBody } from '../../contract/listener';
import { HttpError } from './api';

export interface QueuedVote {
  token: string;
  body: VoteBody;
}

/** Durable storage of the outbox. Every operation re-reads it, so two tabs of one study merge. */
export interface VoteStore {
  read(): QueuedVote[];
  write(votes: QueuedVote[]): void;
  /** Votes the server refused for good (kept for inspection, never silently dropped). */
  reject(vote: QueuedVote, reason: string): void;
}

export type Outcome = 'acked' | 'recorded' | 'given_back' | 'rejected' | 'retry';

/**
 * What a failed send means. 409 already_answered: the server holds an answer for this trial (an
 * earlier attempt whose reply was lost, or another tab) — done. 409 screening_required: the
 * headphone check is still on its way to the server — try again later. Other 4xx except 408/429
 * cannot succeed by repetition. Everything else (network, timeout, 408, 429, 5xx) is retried.
 */
export function classifyFailure(error: unknown): Exclude<Outcome, 'acked'> {
  if (error instanceof HttpError) {
    if (error.status === 409 && error.body?.error === 'already_answered') return 'recorded';
    // The clip got all the answers it needs meanwhile: the server gives the trial back and the
    // session moves on; the listener did nothing wrong, so this is no refusal to show.
    if (error.status === 409 && error.body?.error === 'item_complete') return 'given_back';
    if (error.status === 409 && error.body?.error === 'screening_required') return 'retry';
    if (error.status === 408 || error.status === 429 || error.status >= 500) return 'retry';
    return 'rejected';
  }
  return 'retry';
}

/** Delay before retry number `attempt` (1-based): doubling from `baseMs`, capped, with ±25% jitter. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(raw * (0.75 + random() * 0.5));
}

export type QueueState = 'idle' | 'saving' | 'retrying' | 'offline';

export interface QueueStatus {
  state: QueueState;
  pending: number;
  rejected: number;
}

export interface VoteQueueOptions {
  store: VoteStore;
  send(vote: QueuedVote, signal: AbortSignal): Promise<VoteAck>;
  /** Called once per vote that left the outbox as recorded; ack is null for an already_answered reply. */
  onSettled?(vote: QueuedVote, ack: VoteAck | null): void;
  onRejected?(vote: QueuedVote, error: unknown): void;
  onStatus?(status: QueueStatus): void;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A request with no answer after this long is abandoned and retried (same vote id). */
  timeoutMs?: number;
  isOnline?(): boolean;
}

export class VoteQueue {
  private running = false;
  private failures = 0;
  private rejectedCount = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private wake: (() => void) | null = null;
  private state: QueueState = 'idle';
  private drainedWaiters: Array<() => void> = [];

  constructor(private readonly o: VoteQueueOptions) {}

  pending(): QueuedVote[] {
    return this.o.store.read();
  }

  /**
   * Adds a vote unless this session already has one queued for the same trial (a double click
   * or a second tab): the first answer stands. Returns whether it was added.
   */
  enqueue(vote: QueuedVote): boolean {
    const votes = this.o.store.read();
    if (votes.some((v) => v.token === vote.token && v.body.position === vote.body.position)) return false;
    votes.push(vote);
    this.o.store.write(votes);
    this.emit();
    this.start();
    return true;
  }

  /** Starts draining (idempotent); also called on reload and when the browser comes back online. */
  start(): void {
    if (this.running) {
      this.retryNow();
      return;
    }
    this.running = true;
    void this.loop();
  }

  /** Cuts a backoff wait short, e.g. on the `online` event. */
  retryNow(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Resolves when the outbox is empty. */
  drained(): Promise<void> {
    if (this.o.store.read().length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainedWaiters.push(resolve));
  }

  status(): QueueStatus {
    return { state: this.state, pending: this.o.store.read().length, rejected: this.rejectedCount };
  }

  private emit(state?: QueueState): void {
    if (state) this.state = state;
    else if (this.state === 'idle' && this.o.store.read().length > 0) this.state = 'saving';
    this.o.onStatus?.(this.status());
  }

  private remove(vote: QueuedVote): void {
    this.o.store.write(this.o.store.read().filter((v) => v.body.voteId !== vote.body.voteId));
  }

  private async loop(): Promise<void> {
    for (;;) {
      const head = this.o.store.read()[0];
      if (!head) break;
      this.emit(this.failures > 0 ? this.state : 'saving');
      const outcome = await this.attempt(head);
      if (outcome === 'retry') {
        this.failures += 1;
        const offline = this.o.isOnline ? !this.o.isOnline() : false;
        this.emit(offline ? 'offline' : 'retrying');
        const delay = backoffDelay(this.failures, this.o.baseDelayMs ?? 500, this.o.maxDelayMs ?? 15_000);
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.timer = setTimeout(() => {
            this.timer = null;
            this.wake = null;
            resolve();
          }, delay);
        });
        continue;
      }
      this.failures = 0;
    }
    this.running = false;
    this.emit('idle');
    const waiters = this.drainedWaiters;
    this.drainedWaiters = [];
    for (const w of waiters) w();
  }

  private async attempt(vote: QueuedVote): Promise<Outcome> {
    const controller = new AbortController();
    const timeout = setTimeout(() => controller.abort(), this.o.timeoutMs ?? 10_000);
    try {
      const ack = await this.o.send(vote, controller.signal);
      this.remove(vote);
      this.o.onSettled?.(vote, ack);
      return 'acked';
    } catch (error) {
      const outcome = classifyFailure(error);
      if (outcome === 'recorded' || outcome === 'given_back') {
        this.remove(vote);
        this.o.onSettled?.(vote, null);
      } else if (outcome === 'rejected') {
        this.remove(vote);
        this.rejectedCount += 1;
        this.o.store.reject(vote, error instanceof Error ? error.message : String(error));
        this.o.onRejected?.(vote, error);
      }
      return outcome;
    } finally {
      clearTimeout(timeout);
    }
  }
}

/** The outbox of one study in localStorage (survives reloads; shared by the study's tabs). */
export function localVoteStore(study: string, storage: Storage = localStorage): VoteStore {
  const key = `earmark:votes:${study}`;
  const rejectedKey = `earmark:rejected:${study}`;
  const readList = <T,>(k: string): T[] => {
    try {
      const raw = storage.getItem(k);
      return raw ? (JSON.parse(raw) as T[]) : [];
    } catch {
      return [];
    }
  };
  return {
    read: () => readList<QueuedVote>(key),
    write: (votes) => (votes.length ? storage.setItem(key, JSON.stringify(votes)) : storage.removeItem(key)),
    reject: (vote, reason) =>
      storage.setItem(rejectedKey, JSON.stringify([...readList(rejectedKey), { ...vote, reason }])),
  };
}

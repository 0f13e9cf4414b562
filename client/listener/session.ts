/**
 * One listener's session as the browser sees it: the trials known so far (the current one and up
 * to five upcoming), where the listener stands, the vote outbox and the completion. The listener
 * moves on as soon as a vote is in the outbox, offline too, as long as the next trial is known;
 * after acknowledgements it asks the server where it stands, and catches up when the outbox drains.
 * A React view subscribes to snapshots.
 */
import type { AnswersBody, Completion, ScreeningAttempt, ScreeningReply, ScreeningStartBody, SessionState, Trial, VoteAck, VoteBody } from '../../contract/listener';
import { api, HttpError } from '../lib/api';
import { randomUuid } from '../lib/uuid';
import { backoffDelay, localVoteStore, VoteQueue, type QueueStatus } from '../lib/voteQueue';
import { trialKind, type TrialResponse } from './trials';
import type { TrialFeedback, TrialProblem } from './trials/types';

export interface SessionSnapshot {
  token: string | null;
  /** The trial the listener is on (0-based). */
  position: number;
  total: number;
  trials: ReadonlyMap<number, Trial>;
  completion: Completion | null;
  /** The study was paused or closed, or the listener left it, before they finished: no more trials, and the way out. */
  stopped: { status: 'paused' | 'closed' | 'left'; way: Completion } | null;
  /** Trials answered or skipped, as the server last said. */
  done: number;
  queue: QueueStatus;
  /** The next trial is not known yet and the session is waiting for the server. */
  waiting: boolean;
  /** The study's questions this listener has still to answer, before and after the trials. */
  questionsDue: SessionState['questionsDue'];
}

const tokenKey = (study: string) => `earmark:session:${study}`;

/**
 * Where the listener stands: never behind the server (another tab may have moved on), never
 * before an answer already given. `holding`: the trial on screen was answered here and is still
 * showing (practice feedback); it moves on when the listener says so, not when the server does.
 */
export function resolvePosition(local: number, server: SessionState, pendingPositions: number[], holding: boolean): number {
  if (holding) return local;
  const serverPos = server.trial?.position ?? (server.completion ? server.progress.total : server.progress.done);
  const afterPending = pendingPositions.length ? Math.max(...pendingPositions) + 1 : 0;
  return Math.max(local, serverPos, afterPending);
}

export class ListenerSession {
  private token: string | null;
  private position = 0;
  private total = 0;
  private trials = new Map<number, Trial>();
  private completion: Completion | null = null;
  private stopped: SessionSnapshot['stopped'] = null;
  private done = 0;
  private questionsDue: SessionState['questionsDue'] = { before: false, after: false };
  private readonly queue: VoteQueue;
  private listeners = new Set<() => void>();
  private snap: SessionSnapshot;
  private syncing = false;
  private syncAgain = false;
  private syncFailures = 0;
  private syncTimer: ReturnType<typeof setTimeout> | null = null;
  private feedbackWaiters = new Map<string, (fb: TrialFeedback | null) => void>();
  /** Positions answered in this tab. */
  private answered = new Set<number>();
  private screeningState: SessionState['screening'] = { done: [], usedUp: [], failed: false };

  constructor(
    readonly study: string,
    private readonly storage: Storage = localStorage,
  ) {
    this.token = storage.getItem(tokenKey(study));
    this.queue = new VoteQueue({
      store: localVoteStore(study, storage),
      send: (v, signal) => api.vote(v.token, v.body, { signal }),
      onSettled: (v, ack) => this.settled(v.body.voteId, ack),
      onRejected: (v) => this.settled(v.body.voteId, null),
      onStatus: () => this.emit(),
      isOnline: () => navigator.onLine,
    });
    this.snap = this.makeSnapshot();
    window.addEventListener('online', () => {
      this.queue.retryNow();
      this.sync();
    });
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  snapshot = (): SessionSnapshot => this.snap;

  hasSession(): boolean {
    return this.token !== null;
  }

  /** Picks up a session saved in this browser; false when there is none or the server forgot it. */
  async resume(): Promise<boolean> {
    if (!this.token) return false;
    try {
      const state = await api.session(this.token);
      this.absorb(state);
      this.queue.start();
      return true;
    } catch (error) {
      if (error instanceof HttpError && (error.status === 401 || error.status === 403 || error.status === 404)) {
        this.storage.removeItem(tokenKey(this.study));
        this.token = null;
        return false;
      }
      throw error;
    }
  }

  async start(external: Record<string, string>): Promise<void> {
    if (this.token) return;
    const reply = await api.start(this.study, external);
    this.token = reply.token;
    this.storage.setItem(tokenKey(this.study), reply.token);
    this.absorb(reply.state);
  }

  /** Puts the vote in the outbox; resolves with practice feedback once acknowledged, else at once. */
  vote(trial: Trial, response: TrialResponse): Promise<TrialFeedback | null> {
    if (!this.token) throw new Error('no session');
    // What is left after the listening record is the kind's answer (`choice`, `score`).
    const { playCount, secondsListened, heardToEnd, hiddenMs, responseMs, ...answer } = response;
    const body: VoteBody = {
      voteId: randomUuid(),
      position: trial.position,
      ...answer,
      playCount,
      secondsListened,
      heardToEnd,
      hiddenMs,
      responseMs,
      clientTs: new Date().toISOString(),
    };
    const wantsFeedback = trialKind(trial).practice(trial);
    const feedback = wantsFeedback
      ? new Promise<TrialFeedback | null>((resolve) => this.feedbackWaiters.set(body.voteId, resolve))
      : Promise.resolve(null);
    this.answered.add(trial.position);
    if (!this.queue.enqueue({ token: this.token, body })) {
      this.feedbackWaiters.delete(body.voteId);
      return Promise.resolve(null);
    }
    return feedback;
  }

  /** The trial at `position` is done; show the next one (or wait for it). */
  advance(position: number): void {
    this.position = Math.max(this.position, position + 1);
    this.emit();
    if (!this.trials.has(this.position)) this.sync();
  }

  /**
   * The listener leaves the study part-way: once every answer given is saved (the outbox drained),
   * the server ends the session and says what the way out is.
   */
  async leave(): Promise<void> {
    if (!this.token) throw new Error('no session');
    await this.queue.drained();
    this.absorb(await api.leave(this.token));
  }

  /** A finished listener's optional comments (the study asks for them); throws when the server refuses. */
  /** The answers to one part of the study's questions; a refusal (HttpError 400 naming the question) is the caller's to show. */
  async sendAnswers(when: AnswersBody['when'], answers: AnswersBody['answers']): Promise<void> {
    if (!this.token) throw new Error('no session');
    await api.answers(this.token, { when, answers });
    this.questionsDue = { ...this.questionsDue, [when]: false };
    this.emit();
  }

  async sendComments(text: string): Promise<void> {
    if (!this.token) throw new Error('no session');
    await api.comments(this.token, { text });
  }

  /**
   * The trial's clip would not play: report it (retrying until the server has it) and move on.
   * A refusal (the trial was answered meanwhile, the study stopped) moves on as the server says.
   */
  async reportProblem(trial: Trial, problem: TrialProblem): Promise<void> {
    const body = { position: trial.position, ...problem, clientTs: new Date().toISOString() };
    for (let attempt = 1; this.token; attempt++) {
      try {
        this.absorb(await api.problem(this.token, body));
        break;
      } catch (error) {
        if (error instanceof HttpError && error.status < 500 && error.status !== 408 && error.status !== 429) {
          this.sync();
          break;
        }
        await new Promise((r) => setTimeout(r, backoffDelay(attempt, 500, 10_000)));
      }
    }
    this.advance(trial.position);
  }

  /** This listener's headphone checks as the server last said: recorded, used up, failed (here or in another session). */
  screening(): SessionState['screening'] {
    return this.screeningState;
  }

  /**
   * A request of the headphone check, retried until the server answers; a refusal (409: the check
   * is recorded already, in this browser or another) gives null after asking where the listener stands.
   */
  private async screeningCall<T>(send: (token: string) => Promise<T>): Promise<T | null> {
    for (let attempt = 1; this.token; attempt++) {
      try {
        return await send(this.token);
      } catch (error) {
        if (error instanceof HttpError && error.status < 500 && error.status !== 408 && error.status !== 429) {
          await this.refresh();
          return null;
        }
        await new Promise((r) => setTimeout(r, backoffDelay(attempt, 500, 10_000)));
      }
    }
    return null;
  }

  /** Begins an attempt at a check: the server draws its rounds; null when the server refuses. */
  beginScreening(body: ScreeningStartBody): Promise<ScreeningAttempt | null> {
    return this.screeningCall((token) => api.screeningAttempt(token, body));
  }

  /** Sends an attempt's answers for the server to score: passed, retry or failed; null when refused. */
  async answerScreening(attempt: ScreeningAttempt, answers: number[], device: Pick<ScreeningStartBody, 'userAgent' | 'audioOutput'>): Promise<ScreeningReply['outcome'] | null> {
    const reply = await this.screeningCall((token) => api.screening(token, { kind: attempt.kind, attempt: attempt.attempt, answers, ...device }));
    if (reply) this.absorb(reply.state);
    return reply?.outcome ?? null;
  }

  /** A round's sound, retried until it arrives. */
  async screeningSound(url: string): Promise<ArrayBuffer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await api.screeningSound(this.token!, url);
      } catch {
        await new Promise((r) => setTimeout(r, backoffDelay(attempt, 500, 10_000)));
      }
    }
  }

  /** Where this listener stands, asked now (retried until the server answers). */
  async refresh(): Promise<void> {
    for (let attempt = 1; this.token; attempt++) {
      try {
        this.absorb(await api.session(this.token));
        return;
      } catch (error) {
        if (error instanceof HttpError && error.status < 500 && error.status !== 408 && error.status !== 429) return;
        await new Promise((r) => setTimeout(r, backoffDelay(attempt, 500, 10_000)));
      }
    }
  }

  /** Asks the server where this listener stands (coalesced; retried with backoff on failure). */
  sync(): void {
    if (!this.token) return;
    if (this.syncing) {
      this.syncAgain = true;
      return;
    }
    if (this.syncTimer !== null) clearTimeout(this.syncTimer);
    this.syncTimer = null;
    this.syncing = true;
    api
      .session(this.token)
      .then((state) => {
        this.syncFailures = 0;
        this.absorb(state);
      })
      .catch(() => {
        this.syncFailures += 1;
        this.syncTimer = setTimeout(() => this.sync(), backoffDelay(this.syncFailures, 500, 10_000));
      })
      .finally(() => {
        this.syncing = false;
        if (this.syncAgain) {
          this.syncAgain = false;
          this.sync();
        }
      });
  }

  private settled(voteId: string, ack: VoteAck | null): void {
    const waiter = this.feedbackWaiters.get(voteId);
    this.feedbackWaiters.delete(voteId);
    waiter?.(ack?.feedback ?? null);
    // Where the listener stands now (progress, the next upcoming trials) comes from the server;
    // syncs are coalesced, so a draining outbox asks once, not once per vote.
    this.sync();
  }

  private absorb(state: SessionState): void {
    // Keep the objects already on screen: a trial's content never changes, and a new object
    // would restart the trial the listener is in the middle of.
    const served = [state.trial, ...state.upcoming].filter((t): t is Trial => t !== null);
    for (const t of served) if (!this.trials.has(t.position)) this.trials.set(t.position, t);
    // A trial ahead of the listener, inside the server's window, that the server no longer lists was
    // given back (its clip got all its answers elsewhere): it is not shown.
    if (served.length > 0) {
      const [low, high] = [served[0].position, served[served.length - 1].position];
      for (const p of this.trials.keys()) if (p > this.position && p >= low && p <= high && !served.some((t) => t.position === p)) this.trials.delete(p);
    }
    this.total = state.progress.total;
    this.screeningState = state.screening;
    this.completion = state.completion;
    this.done = state.progress.done;
    this.questionsDue = state.questionsDue;
    const stoppedBy = state.left ? 'left' : state.status === 'open' ? null : state.status;
    this.stopped = state.stopped && stoppedBy ? { status: stoppedBy, way: state.stopped } : null;
    const pending = this.queue
      .pending()
      .filter((v) => v.token === this.token)
      .map((v) => v.body.position);
    this.position = resolvePosition(this.position, state, pending, this.answered.has(this.position));
    for (const p of this.trials.keys()) if (p < this.position - 1) this.trials.delete(p);
    this.emit();
  }

  private makeSnapshot(): SessionSnapshot {
    const queue = this.queue.status();
    return {
      token: this.token,
      position: this.position,
      total: this.total,
      trials: new Map(this.trials),
      completion: this.completion,
      stopped: this.stopped,
      done: this.done,
      queue,
      waiting: !this.trials.has(this.position) && !(this.completion && queue.pending === 0),
      questionsDue: this.questionsDue,
    };
  }

  private emit(): void {
    this.snap = this.makeSnapshot();
    for (const fn of this.listeners) fn();
  }
}

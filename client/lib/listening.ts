/**
 * What a listener did with one clip: how often they pressed play, how many seconds they actually
 * heard (seeks excluded), which parts of the clip they covered, whether playback reached the end,
 * how long the tab was hidden. Fed from media events; time is injected so tests drive it.
 */
import type { ListeningRequirement } from '../../contract/study-definition';

/** Coverage is tracked in bins this long (seconds). */
const BIN = 0.1;
/** Gaps between two position updates longer than this are seeks, not listening. */
const MAX_STEP = 1;
/** Share of the clip that counts as "the whole clip" (position updates are coarse). */
const WHOLE = 0.95;

export interface ListeningRecord {
  playCount: number;
  secondsListened: number;
  heardToEnd: boolean;
  hiddenMs: number;
  /** From the first play to `at`, or 0 if the clip was never played. */
  responseMs: number;
}

export class ListeningTracker {
  private playCount = 0;
  private seconds = 0;
  private heardToEnd = false;
  private firstPlayAt: number | null = null;
  private last: number | null = null;
  private hiddenSince: number | null = null;
  private hiddenMs = 0;
  private readonly covered: Uint8Array;

  constructor(
    readonly duration: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.covered = new Uint8Array(Math.max(1, Math.ceil(duration / BIN)));
  }

  play(position: number): void {
    this.playCount += 1;
    this.firstPlayAt ??= this.now();
    this.last = position;
  }

  pause(): void {
    this.last = null;
  }

  /** A position update while playing. */
  time(position: number): void {
    if (this.last !== null) {
      const step = position - this.last;
      if (step > 0 && step <= MAX_STEP) {
        this.seconds += step;
        this.cover(this.last, position);
      }
    }
    this.last = position;
  }

  ended(): void {
    this.time(this.duration);
    this.heardToEnd = true;
    this.last = null;
  }

  visibility(hidden: boolean): void {
    if (hidden && this.hiddenSince === null) this.hiddenSince = this.now();
    if (!hidden && this.hiddenSince !== null) {
      this.hiddenMs += this.now() - this.hiddenSince;
      this.hiddenSince = null;
    }
  }

  coverage(): number {
    let n = 0;
    for (const b of this.covered) n += b;
    return n / this.covered.length;
  }

  /** Whether the study's listening requirement is met, so a choice may be made. */
  satisfies(requirement: ListeningRequirement): boolean {
    if (requirement.mode === 'whole' || requirement.seconds >= this.duration * WHOLE)
      return this.heardToEnd && this.coverage() >= WHOLE;
    return this.seconds >= requirement.seconds;
  }

  record(): ListeningRecord {
    const at = this.now();
    const hidden = this.hiddenMs + (this.hiddenSince === null ? 0 : at - this.hiddenSince);
    return {
      playCount: this.playCount,
      secondsListened: Math.round(this.seconds * 1000) / 1000,
      heardToEnd: this.heardToEnd,
      hiddenMs: Math.round(hidden),
      responseMs: this.firstPlayAt === null ? 0 : Math.round(at - this.firstPlayAt),
    };
  }

  private cover(from: number, to: number): void {
    const a = Math.max(0, Math.floor(from / BIN));
    const b = Math.min(this.covered.length, Math.ceil(to / BIN));
    for (let i = a; i < b; i++) this.covered[i] = 1;
  }
}

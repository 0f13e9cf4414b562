/**
 * The multi-stimulus player every comparison kind shares (A/B now, MUSHRA and ABX next): N decoded
 * stimuli on ONE timeline, plain Web Audio and no React, so the very same graph renders on an
 * OfflineAudioContext in the tests.
 *
 * How it sounds (ITU-R BS.1534-3 §5.1 and its Attachment on switching):
 * - All N sources of a "run" start at the same context time with the same offset, so switching is
 *   a matter of gains only and the position is kept to the sample.
 * - Every switch is a 5 ms raised-cosine fade-out of the stimulus sounding, THEN a 5 ms
 *   raised-cosine fade-in of the next one: never a cross-fade (two stimuli never sound at the same
 *   sample), and no silence beyond the point where the two fades meet. Play, pause, seek and every
 *   wrap of a loop region fade the same way.
 * - Optionally each switch restarts from zero (or from the loop's start) instead of keeping the
 *   position (Go Listen PR #54's "restart on switch").
 * - A loop region (>= 500 ms) wraps natively in every source; its fades are scheduled ahead of the
 *   audio clock (`horizon`) and renewed by `update()`.
 *
 * What was heard is derived from the schedule itself (not from coarse timer events): each interval
 * in which a stimulus's gain is up feeds that stimulus's ListeningTracker, so plays, seconds heard,
 * coverage and "heard to end" are exact, and the study's listening rule is checked per stimulus.
 *
 * Time model: calls are made in non-decreasing time order. Each action takes an optional `at` (a
 * context time; default: now plus a short lookahead so a fade never starts in the past) and returns
 * the context time at which its first fade begins. Actions never overlap: one that falls inside an
 * earlier transition or a loop wrap's fades waits for it (by at most 4 fades, 20 ms).
 */
import type { ListeningRequirement } from '../../../contract/study-definition';
import { ListeningTracker, type ListeningRecord } from '../../lib/listening';

/** BS.1534-3: 5 ms raised-cosine ramps on switches and loop boundaries. */
export const FADE_SECONDS = 0.005;
/** BS.1534-3 loops of a region; shorter regions are refused (they would be mostly fades). */
export const MIN_LOOP_SECONDS = 0.5;

/** What the vote's `listening` array holds for one stimulus (ab-contract.md, screen order). */
export interface StimulusListening {
  plays: number;
  secondsHeard: number;
  heardToEnd: boolean;
}

export interface LoopRegion {
  start: number;
  end: number;
}

export interface MultiPlayerOptions {
  /** Start the next stimulus from zero (or the loop's start) on each switch instead of keeping the position. */
  restartOnSwitch?: boolean;
  /** Seconds between "now" and the first fade of an action without `at` (a fade must not begin in the past). */
  lookahead?: number;
  /** How far ahead of the audio clock loop fades are scheduled; `update()` renews them. */
  horizon?: number;
  /** Where the player's output goes; default the context's destination. */
  destination?: AudioNode;
  /** The clock of the listening trackers (response time, hidden time); default performance.now. */
  now?: () => number;
  /** The playing stimulus reached its end and playback stopped (not called for pause). */
  onEnded?(stimulus: number): void;
}

/** One start of all sources at a position; a seek, a loop change, a restart or a play makes a new one. */
interface Run {
  t0: number;
  p0: number;
  loop: LoopRegion | null;
  sources: AudioBufferSourceNode[];
  gains: GainNode[];
  /** Context time at which the playing stimulus reaches its end (Infinity while looping). */
  end: number;
  /** Loop wraps with fades scheduled on the playing stimulus's gain up to (exclusive) this time. */
  wrapsUntil: number;
}

/** An interval in which one stimulus's gain is up: what its tracker is fed from. */
interface Segment {
  stimulus: number;
  run: Run;
  from: number;
  to: number;
  /** Closed by the stimulus reaching its end (heardToEnd), not by a fade-out. */
  toEnd: boolean;
  /** A seek or loop change resumed the same stimulus: not a new play. */
  continues: boolean;
  /** Fed to the tracker up to this time; null before its first feed. */
  fed: number | null;
}

/** Steps between two tracker updates inside one interval (ListeningTracker treats > 1 s as a seek). */
const FEED_STEP = 0.25;

export class MultiPlayer {
  readonly output: GainNode;
  readonly trackers: ListeningTracker[];
  private readonly rate: number;
  private readonly fade: number;
  /** Two frames between automation curves on one gain, so no two curves ever touch. */
  private readonly guard: number;
  private readonly fadeIn: Float32Array;
  private readonly fadeOut: Float32Array;
  private readonly lookahead: number;
  private readonly horizon: number;
  private run: Run | null = null;
  private current = 0;
  private pausedAt = 0;
  private loopRegion: LoopRegion | null = null;
  /** Each switch restarts from zero (or the loop's start); the listener may turn it on and off (MUSHRA). */
  restartOnSwitch: boolean;
  /** No new transition may start before this time. */
  private busy = 0;
  private readonly segments: Segment[] = [];

  constructor(
    private readonly ctx: BaseAudioContext,
    private readonly buffers: readonly AudioBuffer[],
    private readonly options: MultiPlayerOptions = {},
  ) {
    if (buffers.length === 0) throw new Error('MultiPlayer: at least one stimulus is needed');
    this.rate = ctx.sampleRate;
    const frames = Math.max(1, Math.round(FADE_SECONDS * this.rate));
    this.fade = frames / this.rate;
    this.guard = 2 / this.rate;
    // One curve point per frame: the gain at each sample is the raised cosine itself, not an interpolation of it.
    this.fadeIn = Float32Array.from({ length: frames + 1 }, (_, k) => 0.5 - 0.5 * Math.cos((Math.PI * k) / frames));
    this.fadeOut = this.fadeIn.slice().reverse();
    this.restartOnSwitch = options.restartOnSwitch ?? false;
    this.lookahead = options.lookahead ?? 0.03;
    this.horizon = options.horizon ?? 1;
    this.output = new GainNode(ctx, { gain: 1 });
    this.output.connect(options.destination ?? ctx.destination);
    const now = options.now;
    this.trackers = buffers.map((b) => new ListeningTracker(b.duration, now));
  }

  /** The fade length actually used: 5 ms rounded to whole frames at the context's rate. */
  get fadeSeconds(): number {
    return this.fade;
  }

  get stimulusCount(): number {
    return this.buffers.length;
  }

  /** The selected stimulus: the one sounding, or the one the next play starts. */
  get active(): number {
    return this.current;
  }

  /** Whether playback is on (as scheduled; call `update()` first to notice a stimulus that ended). */
  get playing(): boolean {
    return this.run !== null;
  }

  get loop(): LoopRegion | null {
    return this.loopRegion;
  }

  duration(stimulus = this.current): number {
    return this.buffers[stimulus].duration;
  }

  /** The timeline's position at context time `t` (default now). */
  position(t = this.ctx.currentTime): number {
    const run = this.run;
    if (!run || t < run.t0) return this.pausedAt;
    return Math.min(this.at(run, Math.min(t, run.end)), this.duration());
  }

  /** Play `stimulus` (default the selected one) from the current position; switches if already playing. */
  play(stimulus = this.current, at?: number): number | null {
    this.check(stimulus);
    if (this.run) return this.select(stimulus, at);
    const s = this.earliest(at);
    this.current = stimulus;
    this.startRun(s, this.startPosition(this.pausedAt, stimulus), false);
    this.busy = s + this.fade + this.guard;
    return s;
  }

  /** Fade out and stop; the next play resumes here. */
  pause(at?: number): number | null {
    const s = this.earliest(at);
    this.settle(s);
    const run = this.run;
    if (!run) return null;
    const t = s + this.fade;
    this.fadeDown(run, this.current, s);
    this.close(t, false);
    this.pausedAt = this.at(run, t);
    this.stopRun(run, t + this.guard);
    this.run = null;
    this.busy = t + this.guard;
    return s;
  }

  /**
   * Make `stimulus` the one heard. Playing: the sounding one fades out, then this one fades in at
   * the same position (or from the start with restartOnSwitch, or when it is shorter than the
   * position). Paused: only selects it. Returns the time the switch begins (null: nothing to do).
   */
  select(stimulus: number, at?: number): number | null {
    this.check(stimulus);
    if (stimulus === this.current) return null;
    if (!this.run) {
      this.current = stimulus;
      return null;
    }
    const s = this.earliest(at);
    this.settle(s);
    const run = this.run as Run | null;
    if (!run) {
      this.current = stimulus;
      return null;
    }
    const t = s + this.fade;
    const keep = this.at(run, t);
    if (this.restartOnSwitch || keep >= this.duration(stimulus) - this.fade) {
      this.restart(s, stimulus, this.startPosition(0, stimulus), false);
      return s;
    }
    this.fadeDown(run, this.current, s);
    this.close(t, false);
    this.current = stimulus;
    this.fadeUp(run, stimulus, t);
    this.open(run, t, false);
    run.end = run.loop ? Infinity : run.t0 + this.duration(stimulus) - run.p0;
    run.wrapsUntil = t + this.fade;
    this.scheduleWraps(run, t + this.horizon);
    this.busy = t + this.fade + this.guard;
    return s;
  }

  /** Move the position (a click on the waveform); playing, with fades around the jump. */
  seek(position: number, at?: number): number | null {
    const p = this.frame(Math.max(0, Math.min(position, this.duration())));
    if (!this.run) {
      this.pausedAt = this.startPosition(p, this.current);
      return null;
    }
    const s = this.earliest(at);
    this.settle(s);
    if (!this.run) {
      this.pausedAt = this.startPosition(p, this.current);
      return null;
    }
    this.restart(s, this.current, this.startPosition(p, this.current), true);
    return s;
  }

  /** Loop a region of every stimulus (>= 500 ms, inside the shortest), or stop looping (null). */
  setLoop(region: LoopRegion | null, at?: number): number | null {
    if (region) {
      const shortest = Math.min(...this.buffers.map((b) => b.duration));
      const start = this.frame(region.start);
      const end = this.frame(region.end);
      if (!(start >= 0 && end <= shortest + 1e-9 && end - start >= MIN_LOOP_SECONDS - 1e-9))
        throw new RangeError(
          `loop region ${region.start}–${region.end} s: needs start >= 0, end <= ${shortest.toFixed(3)} s (the shortest stimulus) and at least ${MIN_LOOP_SECONDS * 1000} ms`,
        );
      this.loopRegion = { start, end };
    } else this.loopRegion = null;
    const run = this.run;
    if (!run) {
      this.pausedAt = this.startPosition(this.pausedAt, this.current);
      return null;
    }
    const s = this.earliest(at);
    this.settle(s);
    if (!this.run) return null;
    this.restart(s, this.current, this.startPosition(this.at(run, s + this.fade), this.current), true);
    return s;
  }

  /**
   * Bring the schedule up to context time `now`: notice a stimulus that reached its end, renew the
   * loop fades out to the horizon, feed the listening trackers. Call it often while playing (each
   * animation frame) and before reading the listening record.
   */
  update(now = this.ctx.currentTime): void {
    this.settle(now);
    if (this.run) this.scheduleWraps(this.run, now + this.horizon);
    this.feed(now);
  }

  /** Per stimulus, in the order the buffers were given (the screen order). */
  listening(now = this.ctx.currentTime): StimulusListening[] {
    this.update(now);
    return this.trackers.map((tr) => {
      const r = tr.record();
      return { plays: r.playCount, secondsHeard: r.secondsListened, heardToEnd: r.heardToEnd };
    });
  }

  /**
   * The vote's common listening fields over all stimuli (ab-contract.md): plays and seconds
   * summed, heard to end when every one was; the response time from the first play of any; the
   * hidden time as every tracker recorded it (they all hear of each visibility change).
   */
  record(now = this.ctx.currentTime): ListeningRecord & { listening: StimulusListening[] } {
    const listening = this.listening(now);
    const records = this.trackers.map((tr) => tr.record());
    return {
      playCount: listening.reduce((n, l) => n + l.plays, 0),
      secondsListened: Math.round(listening.reduce((n, l) => n + l.secondsHeard, 0) * 1000) / 1000,
      heardToEnd: listening.every((l) => l.heardToEnd),
      hiddenMs: Math.max(...records.map((r) => r.hiddenMs)),
      responseMs: Math.max(...records.map((r) => r.responseMs)),
      listening,
    };
  }

  /** Whether every stimulus was heard as the study's listening rule asks. */
  satisfies(requirement: ListeningRequirement, now = this.ctx.currentTime): boolean {
    this.update(now);
    return this.trackers.every((tr) => tr.satisfies(requirement));
  }

  /** A tab hidden or shown (the trial pauses on hide; the hidden time is part of the vote). */
  visibility(hidden: boolean): void {
    for (const tr of this.trackers) tr.visibility(hidden);
  }

  /** Stop at once (no fade: the trial is leaving the screen) and disconnect. */
  dispose(): void {
    if (this.run) {
      const t = this.ctx.currentTime;
      this.close(t, false);
      this.stopRun(this.run, t);
      this.run = null;
    }
    this.output.disconnect();
  }

  // --- the schedule -------------------------------------------------------------------------

  private check(stimulus: number): void {
    if (!Number.isInteger(stimulus) || stimulus < 0 || stimulus >= this.buffers.length)
      throw new RangeError(`stimulus ${stimulus}: there are ${this.buffers.length} (0..${this.buffers.length - 1})`);
  }

  /** Context times and positions on whole frames, so fades and offsets are sample-exact. */
  private frame(t: number): number {
    return Math.round(t * this.rate) / this.rate;
  }

  /** The position at context time t within a run (loop wraps applied). */
  private at(run: Run, t: number): number {
    const raw = run.p0 + (t - run.t0);
    const loop = run.loop;
    if (!loop || raw < loop.end) return raw;
    return loop.start + ((raw - loop.end) % (loop.end - loop.start));
  }

  /** Where a play of `stimulus` from p really starts: inside the loop, before the stimulus's end. */
  private startPosition(p: number, stimulus: number): number {
    const loop = this.loopRegion;
    // So close to the loop's end that its wrap would fall inside the fade-in: from the loop's start.
    if (loop && (p < loop.start || p > loop.end - 2 * this.fade - 2 * this.guard)) return loop.start;
    if (p >= this.duration(stimulus) - this.fade) return loop ? loop.start : 0;
    return this.frame(p);
  }

  /**
   * The first time an action may begin: not before `at` (or now + lookahead), not inside an
   * earlier transition, and never so that its two fades would touch a loop wrap's two fades.
   */
  private earliest(at?: number): number {
    const wanted = at ?? this.ctx.currentTime + this.lookahead;
    let s = Math.ceil(Math.max(wanted, this.busy) * this.rate - 1e-6) / this.rate;
    const run = this.run;
    if (run?.loop && s >= run.t0) {
      const span = 2 * this.fade + this.guard;
      for (const w of this.wrapsBetween(run, s - span, s + span + this.fade)) {
        if (s + span > w - this.fade - this.guard && s < w + this.fade + this.guard) s = this.frame(w + this.fade + 2 * this.guard);
      }
    }
    return s;
  }

  /** Context times of a run's loop wraps in [from, to). */
  private wrapsBetween(run: Run, from: number, to: number): number[] {
    const loop = run.loop;
    if (!loop) return [];
    const length = loop.end - loop.start;
    const first = run.t0 + (loop.end - run.p0);
    const out: number[] = [];
    let k = Math.max(0, Math.ceil((from - first) / length - 1e-9));
    for (let w = first + k * length; w < to; w = first + ++k * length) out.push(w);
    return out;
  }

  private startRun(t: number, p: number, continues: boolean): void {
    const loop = this.loopRegion;
    const sources = this.buffers.map((buffer) => {
      const source = new AudioBufferSourceNode(this.ctx, { buffer });
      if (loop) {
        source.loop = true;
        source.loopStart = loop.start;
        source.loopEnd = loop.end;
      }
      return source;
    });
    const gains = sources.map((source) => {
      const gain = new GainNode(this.ctx, { gain: 0 });
      source.connect(gain).connect(this.output);
      source.onended = () => gain.disconnect();
      return gain;
    });
    for (const source of sources) source.start(t, p);
    const run: Run = { t0: t, p0: p, loop, sources, gains, end: loop ? Infinity : t + this.duration() - p, wrapsUntil: t + this.fade };
    this.run = run;
    this.fadeUp(run, this.current, t);
    this.open(run, t, continues);
    this.scheduleWraps(run, t + this.horizon);
  }

  /** Fade out what sounds at s, then start a new run at p with `stimulus` fading in. */
  private restart(s: number, stimulus: number, p: number, continues: boolean): void {
    const old = this.run!;
    const was = this.current;
    const t = s + this.fade;
    this.fadeDown(old, was, s);
    this.close(t, false);
    this.stopRun(old, t + this.guard);
    this.current = stimulus;
    this.startRun(t, p, continues && stimulus === was);
    this.busy = t + this.fade + this.guard;
  }

  private stopRun(run: Run, t: number): void {
    for (const source of run.sources) source.stop(t);
  }

  /** The playing stimulus reached its end before `t`: close the run there. */
  private settle(t: number): void {
    const run = this.run;
    if (!run || run.end > t) return;
    this.close(run.end, true);
    this.stopRun(run, Math.max(run.end, this.ctx.currentTime));
    this.run = null;
    this.pausedAt = this.loopRegion ? this.loopRegion.start : 0;
    this.busy = Math.max(this.busy, run.end);
    this.options.onEnded?.(this.current);
  }

  private fadeUp(run: Run, stimulus: number, t: number): void {
    const g = run.gains[stimulus].gain;
    g.cancelScheduledValues(t);
    g.setValueCurveAtTime(this.fadeIn, t, this.fade);
  }

  private fadeDown(run: Run, stimulus: number, t: number): void {
    const g = run.gains[stimulus].gain;
    // Drops the loop fades scheduled ahead for this stimulus; none straddles t (earliest() saw to that).
    g.cancelScheduledValues(t);
    g.setValueCurveAtTime(this.fadeOut, t, this.fade);
  }

  /** Fades around each loop wrap of the playing stimulus, from run.wrapsUntil up to `until`. */
  private scheduleWraps(run: Run, until: number): void {
    if (!run.loop || until <= run.wrapsUntil) return;
    const g = run.gains[this.current].gain;
    for (const w of this.wrapsBetween(run, run.wrapsUntil + this.fade, until + this.fade)) {
      g.setValueCurveAtTime(this.fadeOut, w - this.fade, this.fade);
      g.setValueCurveAtTime(this.fadeIn, w, this.fade);
    }
    run.wrapsUntil = until;
  }

  private open(run: Run, t: number, continues: boolean): void {
    this.segments.push({ stimulus: this.current, run, from: t, to: Infinity, toEnd: false, continues, fed: null });
  }

  private close(t: number, toEnd: boolean): void {
    const last = this.segments.at(-1);
    if (last && last.to === Infinity) {
      last.to = t;
      last.toEnd = toEnd;
    }
  }

  /** Feed each stimulus's tracker with what its gain let through up to `now`. */
  private feed(now: number): void {
    for (const seg of this.segments) {
      if (seg.from > now || (seg.fed !== null && seg.fed >= seg.to)) continue;
      const tracker = this.trackers[seg.stimulus];
      const duration = this.duration(seg.stimulus);
      const pos = (t: number) => Math.min(this.at(seg.run, t), duration);
      if (seg.fed === null) {
        if (seg.continues) {
          tracker.pause();
          tracker.time(pos(seg.from));
        } else tracker.play(pos(seg.from));
        seg.fed = seg.from;
      }
      const until = Math.min(now, seg.to);
      // A wrap exactly at `until` is taken now (the next feed starts after it).
      const wraps = this.wrapsBetween(seg.run, seg.fed, until + 0.5 / this.rate);
      let t = seg.fed;
      while (t < until) {
        const wrap = wraps.find((w) => w > t && w <= Math.min(until, t + FEED_STEP));
        const next = wrap ?? Math.min(until, t + FEED_STEP);
        if (wrap !== undefined) {
          // The loop's end was heard, then playback goes on from its start.
          tracker.time(seg.run.loop!.end);
          tracker.time(seg.run.loop!.start);
        } else tracker.time(pos(next));
        t = next;
      }
      seg.fed = until;
      if (until >= seg.to) {
        if (seg.toEnd) tracker.ended();
        else tracker.pause();
      }
    }
    // Fully fed segments are done with; keep the open one.
    while (this.segments.length > 1 && this.segments[0].fed !== null && this.segments[0].fed >= this.segments[0].to) this.segments.shift();
  }
}

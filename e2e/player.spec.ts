import { expect, test, type Page } from '@playwright/test';
import { bundle } from './support/bundle';

/**
 * The shared multi-stimulus player's audio graph (client/listener/players/multiPlayer.ts), the
 * module itself, rendered on an OfflineAudioContext in Chromium and checked sample by sample.
 *
 * The two test stimuli carry their own position and identity: stimulus A is a rising ramp on the
 * left channel only, B the same ramp on the right only, so every output sample says which stimulus
 * sounds (the channel), where in its timeline (the ramp's value) and how loud (value / ramp). The
 * test states, from the times the player returns for each action, the gain and position each
 * frame must have, and compares every frame of the render: positions kept across a switch to the
 * frame, 5 ms raised-cosine fades (240 frames at 48 kHz) out then in, never both channels at once,
 * no silence beyond the point where the fades meet, loop wraps faded, restart-from-zero.
 */
const RATE = 48_000;
const FADE = 240;
/** Stimulus length in frames (1.5 s). */
const N = 72_000;
const ramp = (n: number) => 0.1 + (0.8 * n) / N;
/** The second pair of stimuli: two test tones, 440 Hz on the left (A) and 1 kHz on the right (B). */
const TONES = [440, 1000];
const tone = (side: 0 | 1, n: number) => 0.5 * Math.sin((2 * Math.PI * TONES[side] * n) / RATE);
type Signal = (side: 0 | 1, n: number) => number;

interface Rendered {
  left: number[];
  right: number[];
  /** The context time each action's first fade begins (or null), in call order. */
  times: Array<number | null>;
  listening: Array<{ plays: number; secondsHeard: number; heardToEnd: boolean }>;
  record: { playCount: number; secondsListened: number; heardToEnd: boolean };
  errors: string[];
}

type Action = ['play', number, number] | ['select', number, number] | ['pause', number] | ['seek', number, number] | ['loop', number, number] | ['loop', number, number, number];

let code = '';
test.beforeAll(async () => {
  code = await bundle('client/listener/players/multiPlayer.ts', 'Players');
});

async function render(page: Page, actions: Action[], opts: { seconds: number; restartOnSwitch?: boolean; lengths?: [number, number]; tones?: boolean }): Promise<Rendered> {
  await page.goto('about:blank');
  await page.addScriptTag({ content: code });
  return page.evaluate(
    async ({ actions, opts, N, RATE, TONES }) => {
      const { MultiPlayer } = (window as unknown as { Players: typeof import('../client/listener/players/multiPlayer') }).Players;
      const ctx = new OfflineAudioContext(2, Math.round(opts.seconds * RATE), RATE);
      const lengths = opts.lengths ?? [N, N];
      const buffers = lengths.map((len, side) => {
        const b = ctx.createBuffer(2, len, RATE);
        const data = b.getChannelData(side);
        for (let n = 0; n < len; n++) data[n] = opts.tones ? 0.5 * Math.sin((2 * Math.PI * TONES[side] * n) / RATE) : 0.1 + (0.8 * n) / N;
        return b;
      });
      const player = new MultiPlayer(ctx, buffers, { restartOnSwitch: opts.restartOnSwitch, horizon: opts.seconds + 1 });
      const times: Array<number | null> = [];
      const errors: string[] = [];
      for (const a of actions) {
        try {
          if (a[0] === 'play') times.push(player.play(a[1], a[2]));
          else if (a[0] === 'select') times.push(player.select(a[1], a[2]));
          else if (a[0] === 'pause') times.push(player.pause(a[1]));
          else if (a[0] === 'seek') times.push(player.seek(a[1], a[2]));
          else times.push(player.setLoop({ start: a[1], end: a[2] }, a[3]));
        } catch (e) {
          errors.push(String(e));
          times.push(null);
        }
      }
      const out = await ctx.startRendering();
      const record = player.record(opts.seconds);
      return {
        left: Array.from(out.getChannelData(0)),
        right: Array.from(out.getChannelData(1)),
        times,
        listening: record.listening,
        record: { playCount: record.playCount, secondsListened: record.secondsListened, heardToEnd: record.heardToEnd },
        errors,
      };
    },
    { actions, opts, N, RATE, TONES },
  );
}

/** What one frame of one channel must be: silent, or stimulus at `pos` (frames) with `gain`. */
type Expect = { gain: number; pos: number } | null;

const up = (k: number) => 0.5 - 0.5 * Math.cos((Math.PI * k) / FADE);
const down = (k: number) => 0.5 + 0.5 * Math.cos((Math.PI * k) / FADE);

/** A span in which one stimulus sounds: from its fade-in start to its fade-out end, with its position function. */
interface Span {
  side: 0 | 1;
  from: number;
  /** Frame its fade-out starts (it is silent from out + FADE on); Infinity: plays to its end. */
  out: number;
  pos(m: number): number;
  /** No fade-in (a loop wrap's fade-in is given as its own span). */
  fadeIn?: boolean;
  /** The stimulus's length in frames (default N). */
  len?: number;
}

function expected(spans: Span[], side: 0 | 1, m: number): Expect {
  for (const s of spans) {
    if (s.side !== side || m < s.from || m >= s.out + FADE) continue;
    const pos = s.pos(m);
    if (pos >= (s.len ?? N)) return null;
    let gain = 1;
    if (s.fadeIn !== false && m - s.from < FADE) gain = up(m - s.from);
    if (m >= s.out) gain = Math.min(gain, down(m - s.out));
    return { gain, pos };
  }
  return null;
}

/** Every frame against the spans: steady parts to 2e-6 (a one-frame position error is 1.1e-5), fades to 1e-5 of the raised cosine (a linear ramp is off by 0.1). */
function check(r: Rendered, spans: Span[], signal: Signal = (_, n) => ramp(n)) {
  const frames = r.left.length;
  let worstSteady = 0;
  let worstFade = 0;
  let both = 0;
  for (let m = 0; m < frames; m++) {
    for (const side of [0, 1] as const) {
      const x = side === 0 ? r.left[m] : r.right[m];
      const e = expected(spans, side, m);
      const want = e ? e.gain * signal(side, e.pos) : 0;
      const err = Math.abs(x - want);
      if (e && e.gain < 1) worstFade = Math.max(worstFade, err);
      else worstSteady = Math.max(worstSteady, err);
      if (err > (e && e.gain < 1 ? 1e-5 : 2e-6)) throw new Error(`frame ${m} (${(m / RATE).toFixed(5)} s) ${side ? 'right/B' : 'left/A'}: ${x}, expected ${want} (${JSON.stringify(e)})`);
    }
    if (Math.abs(r.left[m]) > 1e-7 && Math.abs(r.right[m]) > 1e-7) both++;
  }
  expect(both, 'frames in which both stimuli sound (BS.1534-3: no cross-fade)').toBe(0);
  return { worstSteady, worstFade };
}

/** The longest run of silent frames between `from` and `to` (frames). */
function longestSilence(r: Rendered, from: number, to: number): number {
  let run = 0;
  let worst = 0;
  for (let m = from; m < to; m++) {
    run = Math.abs(r.left[m]) < 1e-7 && Math.abs(r.right[m]) < 1e-7 ? run + 1 : 0;
    worst = Math.max(worst, run);
  }
  return worst;
}

const f = (t: number | null) => Math.round(t! * RATE);

test('switching keeps the position to the frame, with 5 ms raised-cosine fades out then in, never both, no gap; pause resumes; the end is heard', async ({ page }) => {
  const r = await render(page, [['play', 0, 0.1], ['select', 1, 0.5], ['select', 0, 0.8], ['pause', 1.0], ['play', 1, 1.3]], { seconds: 2 });
  expect(r.errors).toEqual([]);
  const [s0, s1, s2, s3, s4] = r.times.map(f);
  expect([s0, s1, s2, s3, s4]).toEqual([4800, 24000, 38400, 48000, 62400]);
  // Run 1 starts at s0 from 0; the pause leaves the position at s3 + FADE; run 2 resumes there.
  const run1 = (m: number) => m - s0;
  const resume = s3 + FADE - s0;
  const spans: Span[] = [
    { side: 0, from: s0, out: s1, pos: run1 },
    { side: 1, from: s1 + FADE, out: s2, pos: run1 },
    { side: 0, from: s2 + FADE, out: s3, pos: run1 },
    { side: 1, from: s4, out: Infinity, pos: (m) => resume + (m - s4) },
  ];
  const worst = check(r, spans);
  console.log(`keep position: worst steady error ${worst.worstSteady.toExponential(2)}, worst fade error ${worst.worstFade.toExponential(2)}`);
  // Where the fades meet, at most one frame is silent: the out-fade's last (0) and the in-fade's first (0) are one frame.
  expect(longestSilence(r, s0 + FADE, s3)).toBeLessThanOrEqual(1);
  // B played to its end (frame N of its timeline), then silence.
  const end = s4 + (N - resume);
  expect(Math.abs(r.right[end - 1])).toBeGreaterThan(0.8);
  expect(r.right.slice(end).every((x) => x === 0)).toBe(true);
  // Heard, per stimulus, as the schedule played it: A from s0 to s1+F and s2+F to s3+F; B s1+F..s2+F and s4..end.
  const sec = (frames: number) => frames / RATE;
  expect(r.listening[0].plays).toBe(2);
  expect(r.listening[1].plays).toBe(2);
  expect(r.listening[0].secondsHeard).toBeCloseTo(sec(s1 + FADE - s0 + (s3 - s2)), 2);
  expect(r.listening[1].secondsHeard).toBeCloseTo(sec(s2 - s1 + (end - s4)), 2);
  expect(r.listening.map((l) => l.heardToEnd)).toEqual([false, true]);
  expect(r.record).toEqual({
    playCount: 4,
    secondsListened: Math.round((r.listening[0].secondsHeard + r.listening[1].secondsHeard) * 1000) / 1000,
    heardToEnd: false,
  });
});

test('two test tones (440 Hz left, 1 kHz right): each switch continues the other tone in phase with the timeline, faded out then in', async ({ page }) => {
  const r = await render(page, [['play', 0, 0.1], ['select', 1, 0.35], ['select', 0, 0.6], ['select', 1, 0.85]], { seconds: 1.2, tones: true });
  expect(r.errors).toEqual([]);
  const [s0, s1, s2, s3] = r.times.map(f);
  const run = (m: number) => m - s0;
  check(
    r,
    [
      { side: 0, from: s0, out: s1, pos: run },
      { side: 1, from: s1 + FADE, out: s2, pos: run },
      { side: 0, from: s2 + FADE, out: s3, pos: run },
      { side: 1, from: s3 + FADE, out: Infinity, pos: run },
    ],
    tone,
  );
});

test('restart-from-zero: each switch starts the next stimulus at 0, after the fade-out', async ({ page }) => {
  const r = await render(page, [['play', 0, 0.1], ['select', 1, 0.5], ['select', 0, 0.9]], { seconds: 1.2, restartOnSwitch: true });
  expect(r.errors).toEqual([]);
  const [s0, s1, s2] = r.times.map(f);
  const spans: Span[] = [
    { side: 0, from: s0, out: s1, pos: (m) => m - s0 },
    { side: 1, from: s1 + FADE, out: s2, pos: (m) => m - (s1 + FADE) },
    { side: 0, from: s2 + FADE, out: Infinity, pos: (m) => m - (s2 + FADE) },
  ];
  check(r, spans);
  // The first frames after each restart are the ramp's start, faded in.
  expect(r.right[s1 + FADE + FADE]).toBeCloseTo(ramp(FADE), 6);
  expect(longestSilence(r, s0 + FADE, r.left.length)).toBeLessThanOrEqual(1);
});

test('a loop region wraps with a fade-out before its end and a fade-in after its start; a switch keeps the looped position; one inside a wrap waits for it', async ({ page }) => {
  // Region 0.3–0.8 s: a play from 0 starts at the region's start; wraps every 0.5 s of timeline.
  const r = await render(page, [['loop', 0.3, 0.8], ['play', 0, 0.1], ['select', 1, 0.9], ['select', 0, 1.098]], { seconds: 1.7 });
  expect(r.errors).toEqual([]);
  const [, s0, s1, s2] = r.times.map(f);
  const a = 0.3 * RATE;
  const len = 0.5 * RATE;
  const pos = (m: number) => a + ((m - s0) % len);
  const wraps = [s0 + len, s0 + 2 * len, s0 + 3 * len];
  expect(wraps).toEqual([28800, 52800, 76800]);
  // The second switch asked for 1.098 s, inside the wrap at 1.1 s's fades: it begins after the wrap's fade-in.
  expect(s2).toBeGreaterThanOrEqual(wraps[1] + FADE);
  expect(s2 - wraps[1]).toBeLessThanOrEqual(FADE + 4);
  const spans: Span[] = [
    { side: 0, from: s0, out: wraps[0] - FADE, pos },
    { side: 0, from: wraps[0], out: s1, pos },
    { side: 1, from: s1 + FADE, out: wraps[1] - FADE, pos },
    { side: 1, from: wraps[1], out: s2, pos },
    { side: 0, from: s2 + FADE, out: wraps[2] - FADE, pos },
    { side: 0, from: wraps[2], out: Infinity, pos },
  ];
  check(r, spans);
  expect(longestSilence(r, s0 + FADE, r.left.length)).toBeLessThanOrEqual(1);
  // Looping never reaches the end.
  expect(r.listening.map((l) => l.heardToEnd)).toEqual([false, false]);
  expect(r.listening[0].secondsHeard + r.listening[1].secondsHeard).toBeCloseTo((r.left.length - s0) / RATE, 2);
});

test('a loop set while playing: the position goes on (a fade-out and fade-in around the change, not a new play) and wraps at the region\'s end', async ({ page }) => {
  const r = await render(page, [['play', 0, 0.1], ['loop', 0.2, 0.9, 0.5]], { seconds: 1.3 });
  expect(r.errors).toEqual([]);
  const [s0, s1] = r.times.map(f);
  const t = s1 + FADE;
  const w = t + (0.9 * RATE - (t - s0));
  expect(w).toBe(48_000);
  check(r, [
    { side: 0, from: s0, out: s1, pos: (m) => m - s0 },
    { side: 0, from: t, out: w - FADE, pos: (m) => m - s0 },
    { side: 0, from: w, out: Infinity, pos: (m) => 0.2 * RATE + ((m - w) % (0.7 * RATE)) },
  ]);
  expect(r.listening[0].plays).toBe(1);
});

test('a loop shorter than 500 ms, or past the shortest stimulus, is refused with the reason', async ({ page }) => {
  const r = await render(page, [['loop', 0.3, 0.7], ['loop', 1.0, 1.6]], { seconds: 0.1 });
  expect(r.errors).toHaveLength(2);
  expect(r.errors[0]).toMatch(/at least 500 ms/);
  expect(r.errors[1]).toMatch(/end <= 1\.500 s \(the shortest stimulus\)/);
});

test('switching to a stimulus shorter than the position starts it from zero; a seek jumps with fades', async ({ page }) => {
  const r = await render(page, [['play', 0, 0.1], ['select', 1, 1.0], ['seek', 0.25, 1.2]], { seconds: 1.8, lengths: [N, 36_000] });
  expect(r.errors).toEqual([]);
  const [s0, s1, s2] = r.times.map(f);
  const spans: Span[] = [
    { side: 0, from: s0, out: s1, pos: (m) => m - s0 },
    { side: 1, from: s1 + FADE, out: s2, pos: (m) => m - (s1 + FADE), len: 36_000 },
    { side: 1, from: s2 + FADE, out: Infinity, pos: (m) => 0.25 * RATE + (m - (s2 + FADE)), len: 36_000 },
  ];
  check(r, spans);
  // B (0.75 s) is heard to its end after the seek; the seek was not a new play.
  expect(r.listening[1]).toMatchObject({ plays: 1, heardToEnd: true });
});

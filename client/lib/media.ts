/**
 * Prefetch of a trial's clip and waveform peaks. The audio element created here starts buffering
 * at once (preload=auto) and is the very element the trial later plays, so the next clip is
 * playable the moment the listener moves on. Multi-stimulus trials (A/B, MUSHRA) play decoded
 * buffers on one Web Audio timeline instead: `stimulus()` fetches and decodes each clip once.
 */
import type { TrialClip } from '../../contract/trials/clip';

export interface Peaks {
  resolution: number;
  data: number[];
}

export interface PreparedClip {
  audio: HTMLAudioElement;
  peaks: Promise<Peaks>;
}

/** A stimulus of a multi-stimulus trial: its samples decoded at the context's rate, and its peaks. */
export interface PreparedStimulus {
  buffer: Promise<AudioBuffer>;
  peaks: Promise<Peaks>;
}

/** A GET retried on failure (a brief outage must not fail a trial); `what` names it in the error. */
async function fetchRetrying<T>(url: string, what: string, read: (res: Response) => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${what}: HTTP ${res.status}`);
      return await read(res);
    } catch (error) {
      if (i >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 400 * i));
    }
  }
}

const fetchPeaks = (url: string) => fetchRetrying(url, 'peaks', async (res) => (await res.json()) as Peaks);

/** Fetched with retries; a file the browser cannot decode fails at once (retrying would not help). */
async function decodeClip(url: string, ctx: BaseAudioContext): Promise<AudioBuffer> {
  const bytes = await fetchRetrying(url, 'audio', (res) => res.arrayBuffer());
  return ctx.decodeAudioData(bytes);
}

export class ClipCache {
  private readonly clips = new Map<string, PreparedClip>();
  private readonly stimuli = new Map<string, PreparedStimulus & { failed: { buffer: boolean; peaks: boolean } }>();

  constructor(private readonly keep = 4) {}

  prepare(trial: { clip: TrialClip }): PreparedClip {
    const { id, audioUrl, peaksUrl } = trial.clip;
    let clip = this.clips.get(id);
    if (clip) {
      // Most recently used last: a clip can return later in a session (an attention check reuses
      // an item's clip), and the one on screen must never be the one evicted.
      this.clips.delete(id);
      this.clips.set(id, clip);
    } else {
      const audio = new Audio();
      audio.preload = 'auto';
      audio.src = audioUrl;
      const peaks = fetchPeaks(peaksUrl);
      peaks.catch(() => {}); // a failed prefetch is retried when the trial itself asks
      clip = { audio, peaks };
      this.clips.set(id, clip);
      this.evict();
    }
    return clip;
  }

  /**
   * A fresh audio element for a clip that failed to load or play: a media element that has
   * errored stays errored, so "Try again" must not reuse it. Peaks already fetched are kept.
   */
  reload(trial: { clip: TrialClip }): PreparedClip {
    const old = this.prepare(trial);
    old.audio.removeAttribute('src');
    old.audio.load();
    const audio = new Audio();
    audio.preload = 'auto';
    audio.src = trial.clip.audioUrl;
    const clip = { audio, peaks: old.peaks };
    this.clips.set(trial.clip.id, clip);
    return clip;
  }

  /** Peaks again after a failure (e.g. the prefetch ran while offline). */
  retryPeaks(trial: { clip: TrialClip }): Promise<Peaks> {
    const clip = this.prepare(trial);
    clip.peaks = fetchPeaks(trial.clip.peaksUrl);
    return clip.peaks;
  }

  /**
   * A clip decoded once for a multi-stimulus player (cached by its opaque id, most recently used
   * kept), its peaks fetched beside it. `retry` fetches again what failed (the samples, the peaks
   * or both) and keeps what arrived.
   */
  stimulus(clip: TrialClip, ctx: BaseAudioContext, retry = false): PreparedStimulus {
    let entry = this.stimuli.get(clip.id);
    if (!entry || (retry && entry.failed.buffer)) {
      const buffer = decodeClip(clip.audioUrl, ctx);
      entry = { buffer, peaks: entry?.peaks ?? fetchPeaks(clip.peaksUrl), failed: { buffer: false, peaks: entry?.failed.peaks ?? false } };
      const e = entry;
      // A failed prefetch is retried when the trial asks again; no unhandled rejection meanwhile.
      buffer.catch(() => (e.failed.buffer = true));
      if (!e.failed.peaks) e.peaks.catch(() => (e.failed.peaks = true));
    }
    if (retry && entry.failed.peaks) {
      const e = entry;
      e.failed.peaks = false;
      e.peaks = fetchPeaks(clip.peaksUrl);
      e.peaks.catch(() => (e.failed.peaks = true));
    }
    this.stimuli.delete(clip.id);
    this.stimuli.set(clip.id, entry);
    // A MUSHRA page holds up to 12 stimuli; keep this and the next pages' (buffers on screen are held by the player anyway).
    while (this.stimuli.size > Math.max(16, this.keep * 4)) this.stimuli.delete(this.stimuli.keys().next().value as string);
    return { buffer: entry.buffer, peaks: entry.peaks };
  }

  private evict(): void {
    while (this.clips.size > this.keep) {
      const [oldest, clip] = this.clips.entries().next().value as [string, PreparedClip];
      if (!clip.audio.paused) return;
      clip.audio.removeAttribute('src');
      clip.audio.load();
      this.clips.delete(oldest);
    }
  }
}

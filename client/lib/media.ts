/**
 * Prefetch of a trial's clip and waveform peaks. The audio element created here starts buffering
 * at once (preload=auto) and is the very element the trial later plays, so the next clip is
 * playable the moment the listener moves on.
 */
import type { Trial } from '../../contract/listener';

export interface Peaks {
  resolution: number;
  data: number[];
}

export interface PreparedClip {
  audio: HTMLAudioElement;
  peaks: Promise<Peaks>;
}

async function fetchPeaks(url: string, attempts = 3): Promise<Peaks> {
  for (let i = 1; ; i++) {
    try {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`peaks: HTTP ${res.status}`);
      return (await res.json()) as Peaks;
    } catch (error) {
      if (i >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 400 * i));
    }
  }
}

export class ClipCache {
  private readonly clips = new Map<string, PreparedClip>();

  constructor(private readonly keep = 4) {}

  prepare(trial: Pick<Trial, 'clip'>): PreparedClip {
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
  reload(trial: Pick<Trial, 'clip'>): PreparedClip {
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
  retryPeaks(trial: Pick<Trial, 'clip'>): Promise<Peaks> {
    const clip = this.prepare(trial);
    clip.peaks = fetchPeaks(trial.clip.peaksUrl);
    return clip.peaks;
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

import { useEffect, useRef } from 'react';
import WaveSurfer from 'wavesurfer.js';
import type { Peaks } from '../lib/media';

export interface WaveformProps {
  /** The element that plays the clip; absent when a Web Audio player plays it and reports `position`. */
  media?: HTMLAudioElement;
  /** Where a Web Audio player is, in seconds (drawn as the progress); only without `media`. */
  position?: number;
  /** A click or drag on the waveform asks for this position (seconds); only without `media`. */
  onSeek?(seconds: number): void;
  peaks: Peaks;
  duration: number;
  /** Called once the waveform has been drawn. */
  onDrawn(): void;
  onReady?(ws: WaveSurfer): void;
}

/** The server's CSP allows inline <style> (wavesurfer's shadow DOM) only with this page's nonce. */
const styleNonce = () => document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content || undefined;

/** The clip's waveform from precomputed peaks: drawn at once, no download or decoding first. */
export function Waveform({ media, position, onSeek, peaks, duration, onDrawn, onReady }: WaveformProps) {
  const box = useRef<HTMLDivElement>(null);
  const wave = useRef<WaveSurfer | null>(null);
  const callbacks = useRef({ onDrawn, onReady, onSeek });
  callbacks.current = { onDrawn, onReady, onSeek };

  useEffect(() => {
    if (!box.current) return;
    const ws = WaveSurfer.create({
      container: box.current,
      media,
      peaks: [peaks.data],
      duration,
      // Phones get a flatter waveform so the captions and Confirm fit one screen (styles.css, same query).
      height: matchMedia('(max-width: 30rem), (max-height: 40rem)').matches ? 48 : 96,
      waveColor: '#9fb0c8',
      progressColor: '#1d4ed8',
      cursorColor: '#0f172a',
      cursorWidth: 2,
      barWidth: 2,
      barGap: 1,
      barRadius: 2,
      // Not normalised: the peaks are the served copy's, so the waveform shows the level listeners hear.
      normalize: false,
      dragToSeek: true,
      cspNonce: styleNonce(),
    });
    let drawn = false;
    const unsub = ws.on('redrawcomplete', () => {
      if (drawn) return;
      drawn = true;
      callbacks.current.onDrawn();
    });
    // Without a media element wavesurfer's own stays silent: a seek is handed to the Web Audio player.
    const unseek = media ? () => {} : ws.on('interaction', (t) => callbacks.current.onSeek?.(t));
    wave.current = ws;
    callbacks.current.onReady?.(ws);
    return () => {
      unsub();
      unseek();
      wave.current = null;
      ws.destroy();
    };
  }, [media, peaks, duration]);

  useEffect(() => {
    if (!media && position !== undefined && duration > 0) wave.current?.getRenderer().renderProgress(Math.min(1, position / duration));
  }, [media, position, duration, peaks]);

  return <div ref={box} className="waveform" aria-hidden="true" />;
}

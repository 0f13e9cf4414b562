import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type WaveSurfer from 'wavesurfer.js';
import type { Trial } from '../../../server/contract';
import { ListeningTracker, type ListeningRecord } from '../../lib/listening';
import { Markdown } from '../../lib/markdown';
import type { Peaks } from '../../lib/media';
import { Waveform } from '../Waveform';
import type { TrialFeedback, TrialProps } from './types';

export type PairResponse = ListeningRecord & { choice: 1 | 2 };

function clock(seconds: number): string {
  const s = Math.max(0, seconds);
  return `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, '0')}`;
}

function requirementText(env: TrialProps<Trial, PairResponse>['env'], duration: number): string {
  const r = env.listening;
  if (r.mode === 'whole' || r.seconds >= duration * 0.95) return 'Listen to the whole clip to unlock the choice.';
  return `Listen to at least ${r.seconds} seconds to unlock the choice.`;
}

/**
 * Pair choice: hear the clip, pick the caption that fits better. Attention checks look exactly
 * like this; practice trials are the same screen with feedback after the answer.
 */
export function PairTrial({ spec, env, finish, advance }: TrialProps<Trial, PairResponse>) {
  // Keyed on the clip, not the spec object: a re-sent copy of the same trial must not reset listening.
  const clip = useMemo(() => env.clips.prepare(spec), [env.clips, spec.clip.id]);
  const tracker = useMemo(() => new ListeningTracker(spec.clip.duration), [spec.clip.id, spec.clip.duration]);
  const [peaks, setPeaks] = useState<Peaks | null>(null);
  const [peaksFailed, setPeaksFailed] = useState(false);
  const [playing, setPlaying] = useState(false);
  const [time, setTime] = useState(0);
  const [unlocked, setUnlocked] = useState(false);
  const [selected, setSelected] = useState<1 | 2 | null>(null);
  const [audioReady, setAudioReady] = useState(clip.audio.readyState >= 3);
  const [drawn, setDrawn] = useState(false);
  const [playError, setPlayError] = useState(false);
  const [feedback, setFeedback] = useState<TrialFeedback | null>(null);
  const [sending, setSending] = useState(false);
  const answered = useRef(false);
  const root = useRef<HTMLElement>(null);
  const continueButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    let live = true;
    clip.peaks.then(
      (p) => live && setPeaks(p),
      () => live && setPeaksFailed(true),
    );
    return () => {
      live = false;
    };
  }, [clip]);

  useEffect(() => {
    root.current?.focus({ preventScroll: true });
  }, [spec.position]);

  useEffect(() => {
    const a = clip.audio;
    const check = () => setUnlocked(tracker.satisfies(env.listening));
    const handlers: Array<[string, () => void]> = [
      ['play', () => (tracker.play(a.currentTime), setPlaying(true), setPlayError(false))],
      // At the end of the clip the element pauses before 'ended': keep the last stretch counted.
      ['pause', () => (a.ended ? undefined : tracker.pause(), setPlaying(false))],
      ['seeking', () => tracker.pause()],
      ['timeupdate', () => (a.paused && !a.ended ? undefined : tracker.time(a.currentTime), setTime(a.currentTime), check())],
      ['ended', () => (tracker.ended(), setPlaying(false), check())],
      ['canplay', () => setAudioReady(true)],
    ];
    for (const [e, h] of handlers) a.addEventListener(e, h);
    if (a.readyState >= 3) setAudioReady(true);
    const onVisibility = () => tracker.visibility(document.hidden);
    document.addEventListener('visibilitychange', onVisibility);
    onVisibility();
    return () => {
      for (const [e, h] of handlers) a.removeEventListener(e, h);
      document.removeEventListener('visibilitychange', onVisibility);
      a.pause();
    };
  }, [clip, tracker, env.listening]);

  const ready = audioReady && drawn;
  useEffect(() => {
    if (ready) performance.mark(`earmark:ready:${spec.position}`);
  }, [ready, spec.position]);

  const toggle = useCallback(() => {
    if (answered.current) return;
    const a = clip.audio;
    if (a.paused) a.play().catch(() => setPlayError(true));
    else a.pause();
  }, [clip]);

  const confirm = useCallback(() => {
    if (answered.current || selected === null || !tracker.satisfies(env.listening)) return;
    answered.current = true;
    clip.audio.pause();
    performance.mark(`earmark:choice:${spec.position}`);
    setSending(true);
    void finish({ choice: selected, ...tracker.record() }).then((fb) => {
      setSending(false);
      if (fb) setFeedback(fb);
      else advance();
    });
  }, [selected, tracker, env.listening, clip, spec.position, finish, advance]);

  const choose = useCallback(
    (c: 1 | 2) => {
      if (!answered.current && tracker.satisfies(env.listening)) setSelected(c);
    },
    [tracker, env.listening],
  );

  useEffect(() => {
    if (feedback) continueButton.current?.focus();
  }, [feedback]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (feedback) return; // the focused Continue button handles Enter/Space itself
      const k = e.key;
      if (k === ' ' || k === 'Spacebar') {
        e.preventDefault();
        if (e.type === 'keydown' && !e.repeat) toggle();
      } else if (e.type !== 'keydown') return;
      else if (k === '1' || k === 'ArrowLeft') (e.preventDefault(), choose(1));
      else if (k === '2' || k === 'ArrowRight') (e.preventDefault(), choose(2));
      else if (k === 'Enter') {
        e.preventDefault();
        if (!e.repeat) confirm();
      }
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('keyup', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('keyup', onKey);
    };
  }, [toggle, choose, confirm, feedback]);

  const seek = useCallback((ws: WaveSurfer) => ws.on('interaction', () => setPlayError(false)), []);

  return (
    <section
      ref={root}
      className="trial"
      tabIndex={-1}
      aria-label={spec.kind === 'practice' ? 'Practice trial' : 'Trial'}
      data-position={spec.position}
      data-ready={ready ? 'true' : 'false'}
      data-unlocked={unlocked ? 'true' : 'false'}
    >
      {spec.kind === 'practice' && <p className="badge badge-practice">Practice</p>}
      <Markdown text={env.question} className="prose question" />

      <div className="player">
        <button
          type="button"
          className="play"
          onClick={toggle}
          aria-label={playing ? 'Pause clip' : 'Play clip'}
          disabled={answered.current}
        >
          <span aria-hidden="true" className={playing ? 'icon-pause' : 'icon-play'} />
        </button>
        <div className="wave-area">
          {peaks ? (
            <Waveform media={clip.audio} peaks={peaks} duration={spec.clip.duration} onDrawn={() => setDrawn(true)} onReady={seek} />
          ) : peaksFailed ? (
            <button type="button" className="link" onClick={() => (setPeaksFailed(false), env.clips.retryPeaks(spec).then(setPeaks, () => setPeaksFailed(true)))}>
              Waveform unavailable — retry
            </button>
          ) : (
            <div className="waveform waveform-loading" />
          )}
          <div className="time" aria-live="off">
            <span>{clock(time)}</span>
            <span>{clock(spec.clip.duration)}</span>
          </div>
        </div>
      </div>
      {playError && <p className="notice">The clip could not start. Press play again.</p>}

      <p className={unlocked ? 'requirement met' : 'requirement'} role="status">
        {unlocked ? 'Now choose the caption that fits better.' : requirementText(env, spec.clip.duration)}
      </p>

      <div className="captions" role="radiogroup" aria-label="Captions">
        {spec.captions.map((text, i) => {
          const c = (i + 1) as 1 | 2;
          return (
            <button
              key={c}
              type="button"
              role="radio"
              aria-checked={selected === c}
              className={selected === c ? 'caption selected' : 'caption'}
              disabled={!unlocked || answered.current}
              onClick={() => choose(c)}
            >
              <span className="key" aria-hidden="true">
                {c}
              </span>
              <span className="caption-text">{text}</span>
            </button>
          );
        })}
      </div>

      {feedback ? (
        <div className={feedback.correct ? 'feedback correct' : 'feedback wrong'} role="alert">
          <p>
            {feedback.correct
              ? 'Correct — that caption describes the delivery better.'
              : 'Not quite — the other caption describes the delivery better.'}
          </p>
          <button ref={continueButton} type="button" className="primary" onClick={advance}>
            Continue
          </button>
        </div>
      ) : (
        <div className="actions">
          <button type="button" className="primary" onClick={confirm} disabled={selected === null || sending || answered.current}>
            {sending ? 'Checking…' : 'Confirm choice'}
          </button>
          <p className="keys">
            <kbd>Space</kbd> play/pause · <kbd>1</kbd>/<kbd>2</kbd> or <kbd>←</kbd>/<kbd>→</kbd> choose · <kbd>Enter</kbd> confirm
          </p>
        </div>
      )}
    </section>
  );
}

import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type WaveSurfer from 'wavesurfer.js';
import type { Trial } from '../../../contract/listener';
import { isTextEntry, setShortcutsOn, shortcutsOn, touchFirst } from '../../lib/input';
import { ListeningTracker, type ListeningRecord } from '../../lib/listening';
import { Markdown } from '../../lib/markdown';
import type { Peaks } from '../../lib/media';
import { useMessages, type Messages } from '../messages';
import { Waveform } from '../Waveform';
import type { TrialFeedback, TrialProblem, TrialProps } from './types';

export type PairResponse = ListeningRecord & { choice: 1 | 2 };

function clock(seconds: number): string {
  const s = Math.max(0, seconds);
  return `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, '0')}`;
}

/** The browser's reason a clip failed, in words the researcher can look up. */
function mediaError(error: MediaError | null): string | null {
  if (!error) return null;
  const names = ['', 'MEDIA_ERR_ABORTED', 'MEDIA_ERR_NETWORK', 'MEDIA_ERR_DECODE', 'MEDIA_ERR_SRC_NOT_SUPPORTED'];
  return (names[error.code] ?? `MEDIA_ERR_${error.code}`) + (error.message ? `: ${error.message}`.slice(0, 200) : '');
}

function requirementText(m: Messages, env: TrialProps<Trial, PairResponse>['env'], duration: number): string {
  const r = env.listening;
  if (r.mode === 'whole' || r.seconds >= duration * 0.95) return m.listenWhole;
  return m.listenSeconds(r.seconds);
}

/**
 * Pair choice: hear the clip, pick the caption that fits better. Attention checks look exactly
 * like this; practice trials are the same screen with feedback after the answer.
 */
export function PairTrial({ spec, env, finish, advance, skip, label }: TrialProps<Trial, PairResponse>) {
  const m = useMessages();
  // "Try again" after a failure asks for a fresh audio element (an errored one stays errored).
  const [reloads, setReloads] = useState(0);
  // Keyed on the clip, not the spec object: a re-sent copy of the same trial must not reset listening.
  const clip = useMemo(
    () => (reloads === 0 ? env.clips.prepare(spec) : env.clips.reload(spec)),
    [env.clips, spec.clip.id, reloads],
  );
  const tracker = useMemo(() => new ListeningTracker(spec.clip.duration), [spec.clip.id, spec.clip.duration]);
  const [peaks, setPeaks] = useState<Peaks | null>(null);
  const [peaksFailed, setPeaksFailed] = useState(false);
  const [playing, setPlaying] = useState(false);
  /** Play was pressed and the clip is not sounding yet (still loading or buffering). */
  const [buffering, setBuffering] = useState(false);
  const [time, setTime] = useState(0);
  const [unlocked, setUnlocked] = useState(false);
  const [selected, setSelected] = useState<1 | 2 | null>(null);
  const [audioReady, setAudioReady] = useState(clip.audio.readyState >= 3);
  const [drawn, setDrawn] = useState(false);
  const [failure, setFailure] = useState<TrialProblem | null>(null);
  const [skipping, setSkipping] = useState(false);
  const [shortcuts, setShortcuts] = useState(shortcutsOn);
  const touch = useMemo(touchFirst, []);
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
    // Each trial starts at its top (on a phone the last one ended scrolled down at Confirm).
    window.scrollTo(0, 0);
    root.current?.focus({ preventScroll: true });
  }, [spec.position]);

  useEffect(() => {
    const a = clip.audio;
    const check = () => setUnlocked(tracker.satisfies(env.listening));
    const handlers: Array<[string, () => void]> = [
      ['play', () => (tracker.play(a.currentTime), setBuffering(true), setFailure(null))],
      ['playing', () => (setBuffering(false), setPlaying(true))],
      ['waiting', () => setBuffering(true)],
      // At the end of the clip the element pauses before 'ended': keep the last stretch counted.
      ['pause', () => (a.ended ? undefined : tracker.pause(), setPlaying(false), setBuffering(false))],
      ['error', () => (setPlaying(false), setBuffering(false), setFailure({ problem: 'load_failed', detail: mediaError(a.error) }))],
      ['seeking', () => tracker.pause()],
      ['timeupdate', () => (a.paused && !a.ended ? undefined : tracker.time(a.currentTime), setTime(a.currentTime), check())],
      ['ended', () => (tracker.ended(), setPlaying(false), check())],
      ['canplay', () => setAudioReady(true)],
    ];
    // The same clip may have been heard in an earlier trial: start this one from the beginning.
    if (a.currentTime > 0) a.currentTime = 0;
    for (const [e, h] of handlers) a.addEventListener(e, h);
    setAudioReady(a.readyState >= 3);
    if (a.error) setFailure({ problem: 'load_failed', detail: mediaError(a.error) });
    // A clip heard in a hidden tab was not listened to: stop it; the hidden time is recorded (hiddenMs).
    const onVisibility = () => {
      tracker.visibility(document.hidden);
      if (document.hidden) a.pause();
    };
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
    if (a.paused)
      a.play().catch((e: unknown) => {
        // AbortError: a pause or a new source interrupted this play, which is no failure.
        if (e instanceof DOMException && e.name === 'AbortError') return;
        setBuffering(false);
        setFailure((f) => f ?? { problem: 'play_failed', detail: e instanceof Error ? e.name : null });
      });
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

  /**
   * Shortcuts only while focus is inside this trial, never in a text field, and not at all when
   * the listener turned them off. A focused button keeps its native Enter/Space.
   */
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (!shortcuts || feedback || e.ctrlKey || e.metaKey || e.altKey || isTextEntry(e.target)) return;
    const k = e.key;
    if (k === '1' || k === '2') {
      e.preventDefault();
      choose(k === '1' ? 1 : 2);
      return;
    }
    if (e.target instanceof HTMLButtonElement || e.target instanceof HTMLInputElement) return;
    if (k === ' ') {
      e.preventDefault();
      if (!e.repeat) toggle();
    } else if (k === 'ArrowLeft' || k === 'ArrowRight') {
      e.preventDefault();
      choose(k === 'ArrowLeft' ? 1 : 2);
    } else if (k === 'Enter') {
      e.preventDefault();
      if (!e.repeat) confirm();
    }
  };

  /** The two captions are one radio group: arrow keys move focus and the choice (always, as native radios do). */
  const captionRefs = useRef<Array<HTMLButtonElement | null>>([]);
  const onCaptionKey = (e: KeyboardEvent<HTMLElement>) => {
    const next = { ArrowLeft: 1, ArrowUp: 1, ArrowRight: 2, ArrowDown: 2 }[e.key] as 1 | 2 | undefined;
    if (!next) return;
    e.preventDefault();
    e.stopPropagation();
    choose(next);
    captionRefs.current[next - 1]?.focus();
  };

  const tryAgain = () => {
    setFailure(null);
    setAudioReady(false);
    setDrawn(false);
    setPeaks(null);
    setReloads((n) => n + 1);
    root.current?.focus({ preventScroll: true });
  };

  const reportAndSkip = () => {
    if (!skip || !failure || answered.current) return;
    answered.current = true;
    setSkipping(true);
    void skip(failure);
  };

  const seek = useCallback((ws: WaveSurfer) => ws.on('interaction', () => setFailure(null)), []);

  return (
    <section
      ref={root}
      className="trial"
      tabIndex={-1}
      aria-label={spec.kind === 'practice' ? m.practiceLabel(label ?? m.trial) : (label ?? m.trial)}
      aria-describedby={`question-${spec.position}`}
      data-position={spec.position}
      data-ready={ready ? 'true' : 'false'}
      data-unlocked={unlocked ? 'true' : 'false'}
      data-failed={failure ? 'true' : 'false'}
      onKeyDown={onKeyDown}
    >
      {spec.kind === 'practice' && <p className="badge badge-practice">{m.practice}</p>}
      <div id={`question-${spec.position}`}>
        <Markdown text={env.question} className="prose question" />
      </div>

      <div className="player">
        <button
          type="button"
          className="play"
          onClick={toggle}
          aria-label={buffering ? m.loadingClip : playing ? m.pauseClip : m.playClip}
          aria-busy={buffering}
          disabled={answered.current || failure !== null}
        >
          <span aria-hidden="true" className={buffering ? 'icon-loading' : playing ? 'icon-pause' : 'icon-play'} />
        </button>
        <div className="wave-area">
          {peaks ? (
            <Waveform media={clip.audio} peaks={peaks} duration={spec.clip.duration} onDrawn={() => setDrawn(true)} onReady={seek} />
          ) : peaksFailed ? (
            <button type="button" className="link" onClick={() => (setPeaksFailed(false), env.clips.retryPeaks(spec).then(setPeaks, () => setPeaksFailed(true)))}>
              {m.waveformRetry}
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
      {failure ? (
        <div className="notice failure" role="alert">
          <p>
            {failure.problem === 'load_failed' ? m.loadFailed : m.playFailed} {reloads === 0 || !skip ? m.pleaseTryAgain : m.reportIfStill}
          </p>
          <div className="actions">
            <button type="button" className="primary" onClick={tryAgain} disabled={skipping}>
              {m.tryAgain}
            </button>
            {reloads > 0 && skip && (
              <button type="button" className="secondary" onClick={reportAndSkip} disabled={skipping}>
                {skipping ? m.reporting : m.reportAndSkip}
              </button>
            )}
          </div>
        </div>
      ) : (
        !audioReady && <p className="muted loading-note">{m.loadingTheClip}</p>
      )}

      <p className={unlocked ? 'requirement met' : 'requirement'} role="status">
        {unlocked
          ? m.nowChoose
          : tracker.record().heardToEnd
            ? m.skippedAhead
            : requirementText(m, env, spec.clip.duration)}
      </p>

      <div className="captions" role="radiogroup" aria-label={m.captions} onKeyDown={onCaptionKey}>
        {spec.captions.map((text, i) => {
          const c = (i + 1) as 1 | 2;
          return (
            <button
              key={c}
              ref={(el) => void (captionRefs.current[i] = el)}
              type="button"
              role="radio"
              aria-checked={selected === c}
              tabIndex={(selected ?? 1) === c ? 0 : -1}
              className={selected === c ? 'caption selected' : 'caption'}
              disabled={!unlocked || answered.current}
              onClick={() => choose(c)}
            >
              <span className="key" aria-hidden="true">
                {c}
              </span>
              <span className="caption-text">{text}</span>
              <span className="chosen-mark" aria-hidden="true">
                {m.yourChoice}
              </span>
            </button>
          );
        })}
      </div>

      {feedback ? (
        <div className={feedback.correct ? 'feedback correct' : 'feedback wrong'} role="alert">
          <p>
            {feedback.correct ? m.correct : m.wrong}
          </p>
          <button
            ref={continueButton}
            type="button"
            className="primary"
            onClick={() => {
              // For practice the listener's move on is this press, not the choice before the feedback.
              performance.mark(`earmark:choice:${spec.position}`);
              advance();
            }}
          >
            {m.continue}
          </button>
        </div>
      ) : (
        <div className="actions">
          <button type="button" className="primary" onClick={confirm} disabled={selected === null || sending || answered.current}>
            {sending ? m.checking : m.confirmChoice}
          </button>
          {touch ? (
            <p className="keys">{m.touchHints}</p>
          ) : (
            <div className="keys">
              {shortcuts && (
                <span>
                  <kbd>Space</kbd> {m.keysPlayPause} · <kbd>1</kbd>/<kbd>2</kbd> {m.keysOr} <kbd>←</kbd>/<kbd>→</kbd> {m.keysChoose} · <kbd>Enter</kbd>{' '}
                  {m.keysConfirm}
                </span>
              )}
              <label className="shortcut-switch">
                <input
                  type="checkbox"
                  checked={shortcuts}
                  onChange={(e) => (setShortcutsOn(e.target.checked), setShortcuts(e.target.checked))}
                />
                {m.shortcutsSwitch}
              </label>
            </div>
          )}
        </div>
      )}
    </section>
  );
}

/**
 * What every trial with a clip shares, whatever its answer: the clip prepared (and re-made on
 * "Try again"), the listening tracker and the study's listening requirement that unlocks the
 * answer, playing and buffering, load/play failures with report-and-skip, focus on each new trial,
 * the selection, sending the answer once with the listening record, practice feedback, and the
 * keyboard model (Space plays, the kind's keys pick, Enter confirms; only while focus is inside
 * the trial, never in a text field, never when the listener turned shortcuts off).
 */
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type WaveSurfer from 'wavesurfer.js';
import type { TrialClip } from '../../../contract/trials/clip';
import { isTextEntry, shortcutsOn } from '../../lib/input';
import { ListeningTracker, type ListeningRecord } from '../../lib/listening';
import type { Peaks } from '../../lib/media';
import type { TrialFeedback, TrialProblem, TrialProps } from './types';

/** The browser's reason a clip failed, in words the researcher can look up. */
function mediaError(error: MediaError | null): string | null {
  if (!error) return null;
  const names = ['', 'MEDIA_ERR_ABORTED', 'MEDIA_ERR_NETWORK', 'MEDIA_ERR_DECODE', 'MEDIA_ERR_SRC_NOT_SUPPORTED'];
  return (names[error.code] ?? `MEDIA_ERR_${error.code}`) + (error.message ? `: ${error.message}`.slice(0, 200) : '');
}

export interface ClipTrialSpec {
  position: number;
  clip: TrialClip;
}

/** How a kind answers: the answer a vote carries for a selection, and what its shortcut keys pick. */
export interface AnswerModel<Value, Answer> {
  answer(selected: Value): Answer;
  /** A key that picks wherever focus is in the trial (the digits), or null. */
  keyPick(key: string): Value | null;
  /** ArrowLeft/ArrowRight outside the answer group, from the current selection. */
  arrowPick(key: 'ArrowLeft' | 'ArrowRight', selected: Value | null): Value;
}

export function useClipTrial<Value, Answer>(
  { spec, env, finish, advance, skip }: TrialProps<ClipTrialSpec, ListeningRecord & Answer>,
  model: AnswerModel<Value, Answer>,
) {
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
  const [selected, setSelected] = useState<Value | null>(null);
  const [audioReady, setAudioReady] = useState(clip.audio.readyState >= 3);
  const [drawn, setDrawn] = useState(false);
  const [failure, setFailure] = useState<TrialProblem | null>(null);
  const [skipping, setSkipping] = useState(false);
  const [shortcuts, setShortcuts] = useState(shortcutsOn);
  const [feedback, setFeedback] = useState<TrialFeedback | null>(null);
  const [sending, setSending] = useState(false);
  /** The optional comment (study.yaml trialComments), sent with the answer. */
  const [comment, setComment] = useState('');
  const answered = useRef(false);
  const root = useRef<HTMLElement>(null);

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
    // Answered: no more listening, except to hear a practice clip again beside its feedback.
    if (answered.current && !feedback) return;
    const a = clip.audio;
    if (a.paused)
      a.play().catch((e: unknown) => {
        // AbortError: a pause or a new source interrupted this play, which is no failure.
        if (e instanceof DOMException && e.name === 'AbortError') return;
        setBuffering(false);
        setFailure((f) => f ?? { problem: 'play_failed', detail: e instanceof Error ? e.name : null });
      });
    else a.pause();
  }, [clip, feedback]);

  const { answer } = model;
  const confirm = useCallback(() => {
    if (answered.current || selected === null || !tracker.satisfies(env.listening)) return;
    answered.current = true;
    clip.audio.pause();
    performance.mark(`earmark:choice:${spec.position}`);
    setSending(true);
    const note = env.trialComments ? comment.trim() : '';
    void finish({ ...answer(selected), ...tracker.record(), ...(note && { comment: note }) }).then((fb) => {
      setSending(false);
      if (fb) setFeedback(fb);
      else advance();
    });
  }, [selected, tracker, env.listening, env.trialComments, comment, clip, spec.position, finish, advance, answer]);

  const choose = useCallback(
    (v: Value) => {
      if (!answered.current && tracker.satisfies(env.listening)) setSelected(v);
    },
    [tracker, env.listening],
  );

  /** A focused button keeps its native Enter/Space; the digits pick wherever focus is. */
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (!shortcuts || feedback || e.ctrlKey || e.metaKey || e.altKey || isTextEntry(e.target)) return;
    const k = e.key;
    const picked = model.keyPick(k);
    if (picked !== null) {
      e.preventDefault();
      choose(picked);
      return;
    }
    if (e.target instanceof HTMLButtonElement || e.target instanceof HTMLInputElement) return;
    if (k === ' ') {
      e.preventDefault();
      if (!e.repeat) toggle();
    } else if (k === 'ArrowLeft' || k === 'ArrowRight') {
      e.preventDefault();
      choose(model.arrowPick(k, selected));
    } else if (k === 'Enter') {
      e.preventDefault();
      if (!e.repeat) confirm();
    }
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

  const retryPeaks = () => (setPeaksFailed(false), env.clips.retryPeaks(spec).then(setPeaks, () => setPeaksFailed(true)));
  const seek = useCallback((ws: WaveSurfer) => ws.on('interaction', () => setFailure(null)), []);

  return {
    spec,
    env,
    advance,
    canSkip: skip !== undefined,
    clip,
    tracker,
    peaks,
    peaksFailed,
    retryPeaks,
    playing,
    buffering,
    time,
    unlocked,
    audioReady,
    ready,
    setDrawn,
    seek,
    failure,
    reloads,
    skipping,
    tryAgain,
    reportAndSkip,
    shortcuts,
    setShortcuts,
    selected,
    choose,
    confirm,
    comment,
    setComment,
    sending,
    feedback,
    answered: answered.current,
    root,
    toggle,
    onKeyDown,
  };
}

export type ClipTrialState<Value> = ReturnType<typeof useClipTrial<Value, unknown>>;

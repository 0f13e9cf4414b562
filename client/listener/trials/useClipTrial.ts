/**
 * What every trial with one clip shares, whatever its answer: the clip prepared (and re-made on
 * "Try again"), the listening tracker and the study's listening requirement that unlocks the
 * answer, playing and buffering, load/play failures; the answer's life (selection, sending once,
 * feedback, skip, keys) is useTrialAnswer's.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type WaveSurfer from 'wavesurfer.js';
import type { TrialClip } from '../../../contract/trials/clip';
import { ListeningTracker, type ListeningRecord } from '../../lib/listening';
import type { Peaks } from '../../lib/media';
import type { TrialProps } from './types';
import { useTrialAnswer } from './useTrialAnswer';

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
  props: TrialProps<ClipTrialSpec, ListeningRecord & Answer>,
  model: AnswerModel<Value, Answer>,
) {
  const { spec, env } = props;
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
  const [audioReady, setAudioReady] = useState(clip.audio.readyState >= 3);
  const [drawn, setDrawn] = useState(false);

  const ans = useTrialAnswer(props, {
    answer: model.answer,
    listened: () => tracker.satisfies(env.listening),
    record: () => tracker.record(),
    stop: () => clip.audio.pause(),
    toggle: () => toggle(),
    key: (k) => {
      const picked = model.keyPick(k);
      return picked === null ? null : { pick: picked };
    },
    arrowPick: model.arrowPick,
  });
  const { setFailure, answeredRef, feedback } = ans;

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
  }, [clip, tracker, env.listening, setFailure]);

  const ready = audioReady && drawn;
  useEffect(() => {
    if (ready) performance.mark(`earmark:ready:${spec.position}`);
  }, [ready, spec.position]);

  const toggle = useCallback(() => {
    // Answered: no more listening, except to hear a practice clip again beside its feedback.
    if (answeredRef.current && !feedback) return;
    const a = clip.audio;
    if (a.paused)
      a.play().catch((e: unknown) => {
        // AbortError: a pause or a new source interrupted this play, which is no failure.
        if (e instanceof DOMException && e.name === 'AbortError') return;
        setBuffering(false);
        setFailure((f) => f ?? { problem: 'play_failed', detail: e instanceof Error ? e.name : null });
      });
    else a.pause();
  }, [clip, feedback, answeredRef, setFailure]);

  const tryAgain = () => {
    setFailure(null);
    setAudioReady(false);
    setDrawn(false);
    setPeaks(null);
    setReloads((n) => n + 1);
    ans.root.current?.focus({ preventScroll: true });
  };

  const retryPeaks = () => (setPeaksFailed(false), env.clips.retryPeaks(spec).then(setPeaks, () => setPeaksFailed(true)));
  const seek = useCallback((ws: WaveSurfer) => ws.on('interaction', () => setFailure(null)), [setFailure]);

  return {
    ...ans,
    spec,
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
    reloads,
    tryAgain,
    toggle,
  };
}

export type ClipTrialState<Value> = ReturnType<typeof useClipTrial<Value, unknown>>;

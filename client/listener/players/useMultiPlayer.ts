/**
 * The multi-stimulus player on a trial screen: each stimulus fetched and decoded once through the
 * clip cache, one MultiPlayer on the session's AudioContext, its state (playing, which stimulus,
 * position, which stimuli are heard as the study's rule asks) refreshed every animation frame while
 * it plays, a hidden tab pausing it, failures handed to the trial (load_failed / play_failed).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { TrialClip } from '../../../contract/trials/clip';
import type { Peaks } from '../../lib/media';
import type { TrialEnv, TrialProblem } from '../trials/types';
import { MultiPlayer, type LoopRegion, type MultiPlayerOptions } from './multiPlayer';

/** The screen's position is redrawn at most this often (a re-render per frame would be waste). */
const REDRAW_MS = 50;

export interface MultiPlayerView {
  playing: boolean;
  active: number;
  position: number;
  /** Per stimulus: heard as the study's listening rule asks. */
  heard: boolean[];
}

function problemText(e: unknown): string | null {
  if (e instanceof DOMException || e instanceof Error) return `${e.name}: ${e.message}`.slice(0, 200);
  return null;
}

export function useMultiPlayer(
  env: Pick<TrialEnv, 'audio' | 'clips' | 'listening'>,
  stimuli: readonly TrialClip[],
  onFailure: (problem: TrialProblem | null) => void,
  options: Pick<MultiPlayerOptions, 'restartOnSwitch'> = {},
) {
  // Keyed on the clips, not the spec object: a re-sent copy of the same trial must not reset listening.
  const key = stimuli.map((s) => s.id).join('\n');
  const [reloads, setReloads] = useState(0);
  const prepared = useMemo(
    () => stimuli.map((clip) => env.clips.stimulus(clip, env.audio, reloads > 0)),
    // `key` stands for the clips (ids), `reloads` for "Try again".
    [env.clips, env.audio, key, reloads],
  );
  const [player, setPlayer] = useState<MultiPlayer | null>(null);
  const [peaks, setPeaks] = useState<Array<Peaks | null>>(() => stimuli.map(() => null));
  const [peaksFailed, setPeaksFailed] = useState(false);
  const [view, setView] = useState<MultiPlayerView>(() => ({ playing: false, active: 0, position: 0, heard: stimuli.map(() => false) }));
  const failure = useRef(onFailure);
  failure.current = onFailure;
  const restartOnSwitch = options.restartOnSwitch;
  const lastDraw = useRef(0);

  const refresh = useCallback(
    (p: MultiPlayer, force = false) => {
      p.update();
      const next: MultiPlayerView = {
        playing: p.playing,
        active: p.active,
        position: p.position(),
        heard: p.trackers.map((tr) => tr.satisfies(env.listening)),
      };
      const now = performance.now();
      setView((v) => {
        const changed = v.playing !== next.playing || v.active !== next.active || v.heard.some((h, i) => h !== next.heard[i]);
        if (!changed && !force && now - lastDraw.current < REDRAW_MS) return v;
        lastDraw.current = now;
        return next;
      });
    },
    [env.listening],
  );

  useEffect(() => {
    let live = true;
    let made: MultiPlayer | null = null;
    Promise.all(prepared.map((p) => p.buffer)).then(
      (buffers) => {
        if (!live) return;
        made = new MultiPlayer(env.audio, buffers, { restartOnSwitch, onEnded: () => made && refresh(made, true) });
        setPlayer(made);
        refresh(made, true);
      },
      (e: unknown) => live && failure.current({ problem: 'load_failed', detail: problemText(e) }),
    );
    prepared.forEach((p, i) =>
      p.peaks.then(
        (data) => live && setPeaks((all) => all.map((d, j) => (j === i ? data : d))),
        () => live && setPeaksFailed(true),
      ),
    );
    return () => {
      live = false;
      made?.dispose();
      setPlayer(null);
    };
  }, [prepared, env.audio, restartOnSwitch, refresh]);

  // While it plays: the schedule fed and the screen redrawn each frame (a stimulus may end on its own).
  useEffect(() => {
    if (!player || !view.playing) return;
    let frame = requestAnimationFrame(function tick() {
      refresh(player);
      frame = requestAnimationFrame(tick);
    });
    return () => cancelAnimationFrame(frame);
  }, [player, view.playing, refresh]);

  // A stimulus heard in a hidden tab was not listened to: pause; the hidden time is part of the vote.
  useEffect(() => {
    if (!player) return;
    const onVisibility = () => {
      player.visibility(document.hidden);
      if (document.hidden) {
        player.pause();
        refresh(player, true);
      }
    };
    document.addEventListener('visibilitychange', onVisibility);
    onVisibility();
    return () => document.removeEventListener('visibilitychange', onVisibility);
  }, [player, refresh]);

  /** Browsers keep a context suspended until a gesture (or after a device change): resume on each press. */
  const resume = useCallback(async (): Promise<boolean> => {
    if (env.audio.state === 'running') return true;
    try {
      await env.audio.resume();
      return true;
    } catch (e) {
      failure.current({ problem: 'play_failed', detail: problemText(e) });
      return false;
    }
  }, [env.audio]);

  /** Hear stimulus i: start it, or switch to it at the same position. */
  const hear = useCallback(
    async (i: number) => {
      if (!player || !(await resume())) return;
      failure.current(null);
      player.play(i);
      refresh(player, true);
    },
    [player, resume, refresh],
  );

  const toggle = useCallback(async () => {
    if (!player) return;
    if (player.playing) player.pause();
    else if (!(await resume())) return;
    else player.play();
    refresh(player, true);
  }, [player, resume, refresh]);

  const pause = useCallback(() => {
    if (!player) return;
    player.pause();
    refresh(player, true);
  }, [player, refresh]);

  /** Loop a region of every stimulus (>= 500 ms, MultiPlayer.setLoop), or stop looping (null). */
  const setLoop = useCallback(
    (region: LoopRegion | null) => {
      if (!player) return;
      player.setLoop(region);
      refresh(player, true);
    },
    [player, refresh],
  );

  /** Restart each switch from zero (or the loop's start) instead of keeping the position; listening so far is kept. */
  const setRestartOnSwitch = useCallback(
    (on: boolean) => {
      if (player) player.restartOnSwitch = on;
    },
    [player],
  );

  const seek = useCallback(
    (seconds: number) => {
      if (!player) return;
      player.seek(seconds);
      refresh(player, true);
    },
    [player, refresh],
  );

  const retryPeaks = () => {
    setPeaksFailed(false);
    stimuli.forEach((clip, i) =>
      env.clips.stimulus(clip, env.audio, true).peaks.then(
        (data) => setPeaks((all) => all.map((d, j) => (j === i ? data : d))),
        () => setPeaksFailed(true),
      ),
    );
  };

  const tryAgain = () => {
    failure.current(null);
    setPeaks(stimuli.map(() => null));
    setPeaksFailed(false);
    setReloads((n) => n + 1);
  };

  return {
    ready: player !== null,
    ...view,
    unlocked: view.heard.every(Boolean),
    peaks,
    peaksFailed,
    retryPeaks,
    reloads,
    tryAgain,
    hear,
    toggle,
    pause,
    seek,
    setLoop,
    setRestartOnSwitch,
    /** The shortest stimulus's duration: a loop region must fit in it. */
    shortest: player ? Math.min(...stimuli.map((_, i) => player.duration(i))) : Math.min(...stimuli.map((s) => s.duration)),
    /** The listening of each stimulus, as of now. */
    listening: () => player?.listening() ?? stimuli.map(() => ({ plays: 0, secondsHeard: 0, heardToEnd: false })),
    /** Whether every stimulus was heard as the study asks, as of now (not the last redraw). */
    listened: () => player?.satisfies(env.listening) ?? false,
    /** The vote's listening fields, the per-stimulus `listening` array included. */
    record: () =>
      player?.record() ?? {
        playCount: 0,
        secondsListened: 0,
        heardToEnd: false,
        hiddenMs: 0,
        responseMs: 0,
        listening: stimuli.map(() => ({ plays: 0, secondsHeard: 0, heardToEnd: false })),
      },
  };
}

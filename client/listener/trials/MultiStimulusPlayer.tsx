/**
 * The transport of a multi-stimulus page (MUSHRA now; any kind that plays many stimuli on one
 * timeline): play/stop, the waveform of the stimulus playing (a click seeks), a loop of a chosen
 * region (≥ 500 ms, inside the shortest stimulus; every wrap faded 5 ms by the shared player) and the
 * option to restart each switch from zero. The stimulus buttons are the kind's; this is their player.
 */
import { useEffect, useId, useState } from 'react';
import { clock, WaveArea } from './ClipTrialScreen';
import type { useMultiPlayer } from '../players/useMultiPlayer';
import { MIN_LOOP_SECONDS } from '../players/multiPlayer';
import { Waveform } from '../Waveform';

export type MultiPlayerState = ReturnType<typeof useMultiPlayer>;

export interface TransportWords {
  playStop: string;
  loop: string;
  loopFrom: string;
  loopTo: string;
  loopTooShort: string;
  restart: string;
}

/** Whether the loop is on: the page holds it, so a key (L) can turn it on and off too. */
export function MultiStimulusTransport({ p, label, words, disabled, onDrawn, looping, setLooping }: {
  p: MultiPlayerState; label: string; words: TransportWords; disabled: boolean; onDrawn(): void; looping: boolean; setLooping(on: boolean): void;
}) {
  const id = useId();
  const [from, setFrom] = useState(0);
  const [to, setTo] = useState<number | null>(null);
  const [restart, setRestart] = useState(false);
  const end = to ?? p.shortest;
  const tooShort = end - from < MIN_LOOP_SECONDS;
  const apply = (on: boolean, start: number, stop: number) => p.setLoop(on && stop - start >= MIN_LOOP_SECONDS ? { start, end: stop } : null);
  // The key's toggle reaches the player through the page's state.
  useEffect(() => apply(looping, from, end), [looping]);
  const peaks = p.peaks[p.active];
  return (
    <div className="multi-transport">
      <div className="player">
        <button type="button" className="play" onClick={() => void p.toggle()} aria-label={words.playStop} aria-pressed={p.playing} disabled={disabled}>
          <span aria-hidden="true" className={p.playing ? 'icon-pause' : 'icon-play'} />
        </button>
        <WaveArea
          wave={peaks && <Waveform key={p.active} peaks={peaks} duration={p.shortest} position={p.position} onSeek={(s) => !disabled && p.seek(s)} onDrawn={onDrawn} />}
          failed={p.peaksFailed}
          retry={p.retryPeaks}
          now={`${label} · ${clock(p.position)}`}
          duration={p.shortest}
        />
      </div>
      <div className="loop-controls">
        <label>
          <input
            type="checkbox"
            checked={looping}
            disabled={disabled}
            onChange={(e) => setLooping(e.target.checked)}
          />{' '}
          {words.loop}
        </label>
        <label htmlFor={`${id}-from`}>{words.loopFrom}</label>
        <input
          id={`${id}-from`}
          type="number"
          min={0}
          max={Math.max(0, p.shortest - MIN_LOOP_SECONDS)}
          step={0.1}
          value={from}
          disabled={disabled}
          onChange={(e) => {
            const v = Math.max(0, Math.min(Number(e.target.value), p.shortest));
            setFrom(v);
            apply(looping, v, end);
          }}
        />
        <label htmlFor={`${id}-to`}>{words.loopTo}</label>
        <input
          id={`${id}-to`}
          type="number"
          min={MIN_LOOP_SECONDS}
          max={p.shortest}
          step={0.1}
          value={Math.round(end * 10) / 10}
          disabled={disabled}
          onChange={(e) => {
            const v = Math.max(0, Math.min(Number(e.target.value), p.shortest));
            setTo(v);
            apply(looping, from, v);
          }}
        />
        {looping && tooShort && <p role="alert">{words.loopTooShort}</p>}
        <label>
          <input
            type="checkbox"
            checked={restart}
            disabled={disabled}
            onChange={(e) => {
              setRestart(e.target.checked);
              p.setRestartOnSwitch(e.target.checked);
            }}
          />{' '}
          {words.restart}
        </label>
      </div>
    </div>
  );
}

/**
 * A trial screen of several stimuli on one Web Audio timeline and one closed answer (A/B, ABX,
 * CCR): a button per stimulus plays or switches (the position is kept, 5 ms fades, no overlap: the
 * shared multi-stimulus player), Space plays and pauses, the waveform shows the stimulus playing.
 * Every stimulus must be heard as the study's listening rule says before the answer unlocks; then
 * one of the kind's options and Confirm. Keys: the kind's keys switch, ←/→ walk the options, Enter
 * confirms. Practice trials show the kind's feedback. The kinds give their labels, options and words.
 */
import { useState, type ReactNode } from 'react';
import { clock, AnswerGroup, FailureNotice, TrialFooter, WaveArea } from './ClipTrialScreen';
import type { TrialProps } from './types';
import { useTrialAnswer } from './useTrialAnswer';
import { useMultiPlayer } from '../players/useMultiPlayer';
import { useMessages } from '../messages';
import { Markdown } from '../../lib/markdown';
import type { ListeningRecord } from '../../lib/listening';
import { Waveform } from '../Waveform';
import type { TrialClip } from '../../../contract/trials/clip';

/** How one stimulus was listened to (one per stimulus, screen order: the vote's `listening`). */
export interface StimulusRecord {
  plays: number;
  secondsHeard: number;
  heardToEnd: boolean;
}

/** The words a stimuli screen needs from its kind. */
export interface StimuliWords {
  versions: string;
  listenTo: string;
  heard: string;
  notHeard: string;
  playing: (label: string) => string;
  loading: string;
  listenWhole: string;
  listenSeconds: (seconds: number) => string;
  nowChoose: string;
  touchHints: string;
  /** beside practice feedback, when the kind names what may be heard again (default: the shared words' clip) */
  listenAgain?: string;
}

export interface StimuliTrialConfig<Value extends string, Answer> {
  /** the screen's class (e.g. `ab-trial`) */
  className: string;
  /** each stimulus's label, screen order (A, B, X …) */
  labels: readonly string[];
  /** the key that switches to each stimulus (lower case), beside 1…n */
  keys: readonly string[];
  words: StimuliWords;
  /** the answer group's label and its options, left to right */
  question: string;
  options: readonly { value: Value; content: ReactNode }[];
  choicesClass: string;
  answer: (value: Value) => Answer;
  /** After practice feedback: the intended option, from the one chosen and whether it was right. */
  intended: (chosen: Value, correct: boolean) => Value | null;
  feedback: (correct: boolean, intended: Value | null) => string;
  keyHints: ReactNode;
}

export function StimuliTrial<Value extends string, Answer, R extends ListeningRecord & Answer & { listening: StimulusRecord[] }>(
  props: TrialProps<{ position: number; practice: boolean; stimuli: TrialClip[] }, R>,
  c: StimuliTrialConfig<Value, Answer>,
) {
  const m = useMessages();
  const w = c.words;
  const { spec, env, label } = props;
  const values = c.options.map((o) => o.value);
  // Answered: no more listening, except to hear a practice trial again beside its feedback.
  const mayListen = () => !t.answeredRef.current || t.feedback !== null;
  const t = useTrialAnswer<Value, Answer, ListeningRecord & { listening: StimulusRecord[] }>(props as never, {
    answer: c.answer,
    listened: () => p.listened(),
    record: () => p.record(),
    stop: () => p.pause(),
    toggle: () => mayListen() && void p.toggle(),
    key: (k) => {
      const key = k.toLowerCase();
      const byLetter = c.keys.indexOf(key);
      const i = byLetter >= 0 ? byLetter : /^[1-9]$/.test(key) && Number(key) <= c.labels.length ? Number(key) - 1 : -1;
      if (i < 0 || !p.ready) return null;
      if (mayListen()) void p.hear(i);
      return 'done';
    },
    arrowPick: (k, selected) => {
      if (selected === null) return k === 'ArrowLeft' ? values[0] : values[values.length - 1];
      const at = values.indexOf(selected) + (k === 'ArrowLeft' ? -1 : 1);
      return values[Math.max(0, Math.min(values.length - 1, at))];
    },
  });
  const p = useMultiPlayer(env, spec.stimuli, t.setFailure);
  const [drawn, setDrawn] = useState(false);
  const ready = p.ready && drawn;

  const durations = spec.stimuli.map((s) => s.duration);
  const r = env.listening;
  const requirement = r.mode === 'whole' || r.seconds >= Math.min(...durations) * 0.95 ? w.listenWhole : w.listenSeconds(r.seconds);
  const locked = !p.ready || t.failure !== null || (t.answered && !t.feedback);
  const fb = t.feedback;
  const intended = fb && t.selected !== null ? c.intended(t.selected, fb.correct) : null;
  const active = spec.stimuli[p.active];
  const peaks = p.peaks[p.active];

  return (
    <section
      ref={t.root}
      className={`trial ${c.className}`}
      tabIndex={-1}
      aria-label={spec.practice ? m.practiceLabel(label ?? m.trial) : (label ?? m.trial)}
      aria-describedby={`question-${spec.position}`}
      data-position={spec.position}
      data-ready={ready ? 'true' : 'false'}
      data-unlocked={p.unlocked ? 'true' : 'false'}
      data-failed={t.failure ? 'true' : 'false'}
      onKeyDown={t.onKeyDown}
    >
      {spec.practice && <p className="badge badge-practice">{m.practice}</p>}
      <div id={`question-${spec.position}`}>
        <Markdown text={env.question} className="prose question" />
      </div>

      <div className="ab-stimuli" role="group" aria-label={w.versions}>
        {c.labels.map((side, i) => (
          <button
            key={side}
            type="button"
            className={['stimulus', p.active === i && 'selected', p.playing && p.active === i && 'playing'].filter(Boolean).join(' ')}
            aria-pressed={p.playing && p.active === i}
            data-heard={p.heard[i] ? 'true' : 'false'}
            disabled={locked}
            onClick={() => void p.hear(i)}
          >
            <span className="sr-only">{w.listenTo} </span>
            <span className="stimulus-letter">{side}</span>
            <span className="stimulus-heard">
              <span className="sr-only">, </span>
              {p.heard[i] ? (
                <>
                  <span aria-hidden="true">✓ </span>
                  {w.heard}
                </>
              ) : (
                w.notHeard
              )}
            </span>
          </button>
        ))}
      </div>

      {/* A switch by key moves no focus: say which version now plays. */}
      <p className="sr-only" aria-live="polite" data-testid="now-playing">
        {p.playing ? w.playing(c.labels[p.active]) : ''}
      </p>

      <div className="player">
        <button
          type="button"
          className="play"
          onClick={() => void p.toggle()}
          aria-label={p.playing ? m.pauseClip : m.playClip}
          disabled={locked}
        >
          <span aria-hidden="true" className={p.playing ? 'icon-pause' : 'icon-play'} />
        </button>
        <WaveArea
          wave={
            peaks && (
              <Waveform
                key={p.active}
                peaks={peaks}
                duration={active.duration}
                position={p.position}
                onSeek={(s) => !locked && p.seek(s)}
                onDrawn={() => setDrawn(true)}
              />
            )
          }
          failed={p.peaksFailed}
          retry={p.retryPeaks}
          now={`${c.labels[p.active]} · ${clock(p.position)}`}
          duration={active.duration}
        />
      </div>
      {t.failure ? <FailureNotice t={{ ...t, reloads: p.reloads, tryAgain: p.tryAgain }} /> : !p.ready && <p className="muted loading-note">{w.loading}</p>}

      <p className={p.unlocked ? 'requirement met' : 'requirement'} role="status">
        {p.unlocked ? w.nowChoose : requirement}
      </p>

      <AnswerGroup
        t={{ ...t, unlocked: p.unlocked }}
        className={c.choicesClass}
        optionClass="ab-choice"
        label={c.question}
        intended={intended}
        options={[...c.options]}
      />

      <TrialFooter
        t={t}
        texts={{
          confirm: m.confirmChoice,
          touchHints: w.touchHints,
          keyHints: c.keyHints,
          feedback: (f) => c.feedback(f.correct, intended),
          listenAgain: w.listenAgain,
        }}
      />
    </section>
  );
}

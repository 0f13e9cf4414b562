import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import {
  antiphaseTrial,
  calibrationTone,
  hugginsTrial,
  SCREENING_RULES,
  shuffled,
  type AntiphaseTone,
  type Stereo,
} from '../../lib/headphone';
import { isTextEntry, shortcutsOn } from '../../lib/input';
import { useMessages, type Messages } from '../messages';
import type { TrialProps } from './types';

export interface ScreeningSpec {
  kind: 'antiphase' | 'huggins';
  /** Where this browser counts the attempts begun, so a reload is not a fresh try. */
  attemptsKey?: string;
}

export interface ScreeningResponse {
  kind: 'antiphase' | 'huggins';
  passed: boolean;
  correct: number;
  trials: number;
  attempts: number;
}

interface Round {
  /** 0-based index of the interval that is the right answer. */
  answer: number;
  make(sampleRate: number): Stereo;
}

function rounds(kind: ScreeningSpec['kind']): Round[] {
  const n = SCREENING_RULES[kind].trials;
  return Array.from({ length: n }, () => {
    if (kind === 'antiphase') {
      const order = shuffled<AntiphaseTone>(['standard', 'quiet', 'antiphase']);
      return { answer: order.indexOf('quiet'), make: (rate) => antiphaseTrial(order, rate) };
    }
    const target = Math.floor(Math.random() * 3);
    return { answer: target, make: (rate) => hugginsTrial(target, rate) };
  });
}

function toBuffer(ctx: AudioContext, s: Stereo): AudioBuffer {
  const buf = ctx.createBuffer(2, s.left.length, ctx.sampleRate);
  buf.copyToChannel(s.left as Float32Array<ArrayBuffer>, 0);
  buf.copyToChannel(s.right as Float32Array<ArrayBuffer>, 1);
  return buf;
}

const texts = (m: Messages) => ({
  antiphase: { title: m.antiphaseTitle, question: m.antiphaseQuestion, task: m.antiphaseTask },
  huggins: { title: m.hugginsTitle, question: m.hugginsQuestion, task: m.hugginsTask },
});

/**
 * Headphone screening as a trial type: volume calibration, then six rounds, each sound playable
 * once. Nothing on screen reveals which interval is the right one.
 */
export function ScreeningTrial({ spec, env, finish, advance }: TrialProps<ScreeningSpec, ScreeningResponse>) {
  const m = useMessages();
  const rules = SCREENING_RULES[spec.kind];
  // Attempts begun before a reload count: the check is not retried without limit by reloading.
  const begun = useMemo(() => Number((spec.attemptsKey && localStorage.getItem(spec.attemptsKey)) || 0), [spec.attemptsKey]);
  const [attempt, setAttempt] = useState(Math.min(begun + 1, rules.attempts));
  const usedUp = begun >= rules.attempts;
  const beginAttempt = (n: number) => spec.attemptsKey && localStorage.setItem(spec.attemptsKey, String(n));
  // A new attempt draws new rounds, so a second try is not a replay of the first.
  const plan = useMemo(() => rounds(spec.kind), [spec.kind, attempt]);
  const [stage, setStage] = useState<'calibrate' | 'rounds' | 'retry'>('calibrate');
  const [index, setIndex] = useState(0);
  const [played, setPlayed] = useState<'no' | 'playing' | 'done'>('no');
  const [calibrating, setCalibrating] = useState(false);
  /** The calibration sound has been played on this screen (it must be, before the volume is said to be set). */
  const [calibrated, setCalibrated] = useState(false);
  const correct = useRef(0);
  const source = useRef<AudioBufferSourceNode | null>(null);
  const done = useRef(false);

  useEffect(() => {
    if (!usedUp || done.current) return;
    // Every attempt was begun and left by reloading: the check counts as not passed.
    done.current = true;
    void finish({ kind: spec.kind, passed: false, correct: 0, trials: rules.trials, attempts: begun }).then(() => advance());
  }, [usedUp, begun, finish, advance, spec.kind, rules.trials]);

  const stop = () => {
    source.current?.stop();
    source.current = null;
  };
  useEffect(() => stop, []);

  const play = (s: Stereo, loop: boolean, onEnded?: () => void) => {
    stop();
    const ctx = env.audio;
    void ctx.resume();
    const node = ctx.createBufferSource();
    node.buffer = toBuffer(ctx, s);
    node.loop = loop;
    node.connect(ctx.destination);
    node.onended = () => onEnded?.();
    node.start();
    source.current = node;
  };

  const toggleCalibration = () => {
    if (calibrating) {
      stop();
      setCalibrating(false);
    } else {
      play(calibrationTone(env.audio.sampleRate), true);
      setCalibrating(true);
      setCalibrated(true);
    }
  };
  // Once the sound plays, the next step is to say the volume is set (the sound keeps playing until then).
  const volumeSet = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (calibrating) volumeSet.current?.focus();
  }, [calibrating]);

  const playRound = () => {
    if (played !== 'no') return;
    setPlayed('playing');
    play(plan[index].make(env.audio.sampleRate), false, () => setPlayed('done'));
  };

  const answer = useCallback(
    (choice: number) => {
      if (played !== 'done' || done.current) return;
      if (choice === plan[index].answer) correct.current += 1;
      if (index + 1 < plan.length) {
        setIndex(index + 1);
        setPlayed('no');
        return;
      }
      const passed = correct.current >= rules.passAt;
      if (!passed && attempt < rules.attempts) {
        setStage('retry');
        return;
      }
      done.current = true;
      void finish({ kind: spec.kind, passed, correct: correct.current, trials: plan.length, attempts: attempt }).then(() => advance());
    },
    [played, plan, index, rules, attempt, finish, advance, spec.kind],
  );

  const root = useRef<HTMLElement>(null);
  const playButton = useRef<HTMLButtonElement>(null);
  const firstChoice = useRef<HTMLButtonElement>(null);
  // Focus follows the round: Play, then (the Play button disabled while sounding) the check itself,
  // then the first answer, so keys keep working and a screen reader hears what comes next.
  useEffect(() => {
    if (stage !== 'rounds') return;
    if (played === 'no') playButton.current?.focus();
    else if (played === 'playing') root.current?.focus();
    else firstChoice.current?.focus();
  }, [stage, played, index]);

  /** 1/2/3 answer while focus is in the check (never in a text field, not when turned off); buttons keep Enter/Space. */
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (stage !== 'rounds' || e.repeat || !shortcutsOn() || e.ctrlKey || e.metaKey || e.altKey || isTextEntry(e.target)) return;
    if (['1', '2', '3'].includes(e.key)) answer(Number(e.key) - 1);
  };

  const text = texts(m)[spec.kind];
  if (usedUp)
    return (
      <section className="trial screening" aria-label={text.title} aria-busy="true">
        <h2>{text.title}</h2>
        <p>{m.checkUsedUp}</p>
      </section>
    );
  return (
    <section className="trial screening" aria-label={text.title} ref={root} tabIndex={-1} onKeyDown={onKeyDown}>
      <h2>{text.title}</h2>
      {stage === 'calibrate' && (
        <>
          <p>{m.putOnHeadphones}</p>
          <p>{m.setVolume}</p>
          <div className="actions">
            {/* The sound first: Enter on arrival plays it, and "Volume is set" waits until it has been heard. */}
            <button type="button" className="secondary" autoFocus onClick={toggleCalibration} aria-pressed={calibrating}>
              {calibrating ? m.stopSound : m.playCalibration}
            </button>
            <button
              ref={volumeSet}
              type="button"
              className="primary"
              disabled={!calibrated}
              onClick={() => {
                stop();
                setCalibrating(false);
                beginAttempt(attempt);
                setStage('rounds');
              }}
            >
              {m.volumeSet}
            </button>
          </div>
          <p className="muted">
            {text.task} {m.playableOnce}
          </p>
        </>
      )}
      {stage === 'rounds' && (
        <>
          <p className="step">{m.soundOf(index + 1, plan.length)}</p>
          <p>{text.task}</p>
          <button ref={playButton} type="button" className="primary" onClick={playRound} disabled={played !== 'no'}>
            {played === 'playing' ? m.playing : played === 'done' ? m.played : m.playSounds}
          </button>
          <p className="question-text">{text.question}</p>
          <div className="choices3" role="group" aria-label={text.question}>
            {[0, 1, 2].map((i) => (
              <button
                key={i}
                ref={i === 0 ? firstChoice : undefined}
                type="button"
                className="choice3"
                disabled={played !== 'done'}
                onClick={() => answer(i)}
              >
                {m.ordinals[i]}
                <span className="key" aria-hidden="true">
                  {i + 1}
                </span>
              </button>
            ))}
          </div>
        </>
      )}
      {stage === 'retry' && (
        <>
          <p>{m.checkRetry}</p>
          <button
            type="button"
            className="primary"
            autoFocus
            onClick={() => {
              correct.current = 0;
              setIndex(0);
              setPlayed('no');
              beginAttempt(attempt + 1);
              setAttempt(attempt + 1);
              setStage('rounds');
            }}
          >
            {m.tryAgain}
          </button>
        </>
      )}
    </section>
  );
}

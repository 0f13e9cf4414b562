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

const TEXT = {
  antiphase: {
    title: 'Headphone check',
    question: 'Which of the three sounds was the quietest?',
    task: 'You will hear three tones. One of them is quieter than the other two. Pick the quietest one.',
  },
  huggins: {
    title: 'Headphone check: hidden tone',
    question: 'Which of the three noises had a faint tone in it?',
    task: 'You will hear three bursts of noise. One of them contains a faint tone. Pick that one.',
  },
};

/**
 * Headphone screening as a trial type: volume calibration, then six rounds, each sound playable
 * once. Nothing on screen reveals which interval is the right one.
 */
export function ScreeningTrial({ spec, env, finish, advance }: TrialProps<ScreeningSpec, ScreeningResponse>) {
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
    }
  };

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

  const text = TEXT[spec.kind];
  if (usedUp)
    return (
      <section className="trial screening" aria-label={text.title} aria-busy="true">
        <h2>{text.title}</h2>
        <p>This check was already started in this browser and cannot be taken again.</p>
      </section>
    );
  return (
    <section className="trial screening" aria-label={text.title} ref={root} tabIndex={-1} onKeyDown={onKeyDown}>
      <h2>{text.title}</h2>
      {stage === 'calibrate' && (
        <>
          <p>Please put on your headphones now. This check makes sure sounds reach each ear separately.</p>
          <p>Play the sound below and set your computer's volume so that it is clearly audible but comfortable.</p>
          <div className="actions">
            <button type="button" className="secondary" onClick={toggleCalibration} aria-pressed={calibrating}>
              {calibrating ? 'Stop sound' : 'Play calibration sound'}
            </button>
            <button
              type="button"
              className="primary"
              autoFocus
              onClick={() => {
                stop();
                setCalibrating(false);
                beginAttempt(attempt);
                setStage('rounds');
              }}
            >
              Volume is set — continue
            </button>
          </div>
          <p className="muted">{text.task} Each sound can be played only once.</p>
        </>
      )}
      {stage === 'rounds' && (
        <>
          <p className="step">
            Sound {index + 1} of {plan.length}
          </p>
          <p>{text.task}</p>
          <button ref={playButton} type="button" className="primary" onClick={playRound} disabled={played !== 'no'}>
            {played === 'playing' ? 'Playing…' : played === 'done' ? 'Played' : 'Play the sounds'}
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
                {['First', 'Second', 'Third'][i]}
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
          <p>That did not quite work. Please check that both headphone sides are on and try once more.</p>
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
            Try again
          </button>
        </>
      )}
    </section>
  );
}

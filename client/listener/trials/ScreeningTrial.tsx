import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ScreeningAttempt, ScreeningReply } from '../../../contract/listener';
import { isTextEntry, shortcutsOn } from '../../lib/input';
import { useMessages, type Messages } from '../messages';
import type { TrialEnv } from './types';

export interface ScreeningSpec {
  kind: 'antiphase' | 'huggins';
}

/**
 * The server's side of a check (client/listener/session.ts): it draws each attempt's rounds,
 * serves each round's sound and scores the answers. `begin` and `answer` give null when the
 * server refuses (the check is recorded already, e.g. from another browser).
 */
export interface ScreeningServer {
  begin(kind: ScreeningSpec['kind']): Promise<ScreeningAttempt | null>;
  answer(attempt: ScreeningAttempt, answers: number[]): Promise<ScreeningReply['outcome'] | null>;
  sound(url: string): Promise<ArrayBuffer>;
}

export interface ScreeningProps {
  spec: ScreeningSpec;
  env: TrialEnv;
  server: ScreeningServer;
  /** The check is over (recorded, or refused by the server): the page asks where the listener stands. */
  done(): void;
}

const texts = (m: Messages) => ({
  antiphase: { title: m.antiphaseTitle, question: m.antiphaseQuestion, task: m.antiphaseTask },
  huggins: { title: m.hugginsTitle, question: m.hugginsQuestion, task: m.hugginsTask },
});

/**
 * Headphone screening: volume calibration, then the server's rounds, each sound playable once.
 * Nothing here knows which interval is the right one: the answers go to the server, which scores them.
 */
export function ScreeningTrial({ spec, env, server, done }: ScreeningProps) {
  const m = useMessages();
  const [stage, setStage] = useState<'calibrate' | 'starting' | 'rounds' | 'sending' | 'retry'>('calibrate');
  const [attempt, setAttempt] = useState<ScreeningAttempt | null>(null);
  const [index, setIndex] = useState(0);
  /**
   * The last round sound that arrived, with the round it is for. Only the current round's is
   * playable: the one before stays in state until the next arrives, and playing it (or focusing Play
   * for it) would give the listener the previous round's sound for this round's answer.
   */
  const [fetched, setFetched] = useState<{ url: string; buffer: AudioBuffer } | null>(null);
  const [played, setPlayed] = useState<'no' | 'playing' | 'done'>('no');
  const [calibrating, setCalibrating] = useState(false);
  /** The calibration sound has been played on this screen (it must be, before the volume is said to be set). */
  const [calibrated, setCalibrated] = useState(false);
  const answers = useRef<number[]>([]);
  const source = useRef<AudioBufferSourceNode | null>(null);
  const calibration = useRef<Promise<AudioBuffer> | null>(null);

  const stop = () => {
    source.current?.stop();
    source.current = null;
  };
  useEffect(() => stop, []);

  const decode = useCallback((bytes: Promise<ArrayBuffer>) => bytes.then((b) => env.audio.decodeAudioData(b)), [env.audio]);

  // The round's sound, fetched as soon as the round is shown so Play starts at once.
  const roundUrl = stage === 'rounds' && attempt ? attempt.rounds[index].audioUrl : null;
  const sound = fetched && fetched.url === roundUrl ? fetched.buffer : null;
  useEffect(() => {
    if (roundUrl === null) return;
    let live = true;
    void decode(server.sound(roundUrl)).then((buffer) => live && setFetched({ url: roundUrl, buffer }));
    return () => {
      live = false;
    };
  }, [roundUrl, server, decode]);

  const play = (buffer: AudioBuffer, loop: boolean, onEnded?: () => void) => {
    stop();
    const ctx = env.audio;
    void ctx.resume();
    const node = ctx.createBufferSource();
    node.buffer = buffer;
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
      return;
    }
    setCalibrating(true);
    setCalibrated(true);
    calibration.current ??= decode(server.sound('/api/session/screening/calibration'));
    void calibration.current.then((buffer) => play(buffer, true));
  };

  const begin = async () => {
    setStage('starting');
    const next = await server.begin(spec.kind);
    if (!next) return done();
    answers.current = [];
    setAttempt(next);
    setIndex(0);
    setPlayed('no');
    setStage('rounds');
  };
  // Once the sound plays, the next step is to say the volume is set (the sound keeps playing until then).
  const volumeSet = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (calibrating) volumeSet.current?.focus();
  }, [calibrating]);

  const playRound = () => {
    if (played !== 'no' || !sound) return;
    setPlayed('playing');
    play(sound, false, () => setPlayed('done'));
  };

  const answer = useCallback(
    (choice: number) => {
      if (played !== 'done' || stage !== 'rounds' || !attempt) return;
      answers.current = [...answers.current, choice];
      if (index + 1 < attempt.rounds.length) {
        setIndex(index + 1);
        setPlayed('no');
        return;
      }
      setStage('sending');
      void server.answer(attempt, answers.current).then((outcome) => (outcome === 'retry' && attempt.attempt < attempt.attempts ? setStage('retry') : done()));
    },
    [played, stage, attempt, index, server, done],
  );

  const root = useRef<HTMLElement>(null);
  const playButton = useRef<HTMLButtonElement>(null);
  const firstChoice = useRef<HTMLButtonElement>(null);
  // Focus follows the round: Play, then (the Play button disabled while sounding) the check itself,
  // then the first answer, so keys keep working and a screen reader hears what comes next.
  useEffect(() => {
    if (stage !== 'rounds') return;
    if (played === 'no' && sound) playButton.current?.focus();
    else if (played !== 'done') root.current?.focus();
    else firstChoice.current?.focus();
  }, [stage, played, index, sound]);

  /** 1/2/3 answer while focus is in the check (never in a text field, not when turned off); buttons keep Enter/Space. */
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (stage !== 'rounds' || e.repeat || !shortcutsOn() || e.ctrlKey || e.metaKey || e.altKey || isTextEntry(e.target)) return;
    if (['1', '2', '3'].includes(e.key)) answer(Number(e.key) - 1);
  };

  const text = texts(m)[spec.kind];
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
                void begin();
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
      {(stage === 'starting' || stage === 'sending') && (
        <p aria-busy="true">{m.loading}</p>
      )}
      {stage === 'rounds' && attempt && (
        <>
          <p className="step">{m.soundOf(index + 1, attempt.rounds.length)}</p>
          <p>{text.task}</p>
          <button ref={playButton} type="button" className="primary" onClick={playRound} disabled={played !== 'no' || !sound}>
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
            onClick={() => void begin()}
          >
            {m.tryAgain}
          </button>
        </>
      )}
    </section>
  );
}

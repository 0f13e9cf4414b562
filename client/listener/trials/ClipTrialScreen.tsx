import { useEffect, useMemo, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { setShortcutsOn, touchFirst } from '../../lib/input';
import { Markdown } from '../../lib/markdown';
import { useMessages, type Messages } from '../messages';
import { Waveform } from '../Waveform';
import type { TrialFeedback, TrialEnv } from './types';
import type { ClipTrialState } from './useClipTrial';
import type { TrialAnswerState } from './useTrialAnswer';

/** A position as m:ss.s (the player's time line). */
export function clock(seconds: number): string {
  const s = Math.max(0, seconds);
  return `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, '0')}`;
}

function requirementText(m: Messages, env: TrialEnv, duration: number): string {
  const r = env.listening;
  if (r.mode === 'whole' || r.seconds >= duration * 0.95) return m.listenWhole;
  return m.listenSeconds(r.seconds);
}

/** The words that differ between kinds of trial on the shared screen. */
export interface ClipTrialTexts {
  /** Shown once the listening requirement is met. */
  unlocked: string;
  confirm: string;
  touchHints: string;
  /** The keyboard hint after Space's (the kind's pick keys and Enter). */
  keyHints: ReactNode;
  feedback(fb: TrialFeedback): string;
  /** Beside practice feedback: what may be heard again (default: the clip). */
  listenAgain?: string;
}

/**
 * The screen every clip trial shares: the trial's name and question, the player with its failure
 * notice, the listening requirement, the kind's answer group (children), then Confirm with the
 * key or touch hints, or the practice feedback with Continue.
 */
export function ClipTrialScreen<Value>({
  t,
  practice,
  label,
  texts,
  children,
}: {
  t: ClipTrialState<Value>;
  practice: boolean;
  label: string | undefined;
  texts: ClipTrialTexts;
  children: ReactNode;
}) {
  const m = useMessages();
  const { spec, env, clip, feedback } = t;

  return (
    <section
      ref={t.root}
      className="trial"
      tabIndex={-1}
      aria-label={practice ? m.practiceLabel(label ?? m.trial) : (label ?? m.trial)}
      aria-describedby={`question-${spec.position}`}
      data-position={spec.position}
      data-ready={t.ready ? 'true' : 'false'}
      data-unlocked={t.unlocked ? 'true' : 'false'}
      data-failed={t.failure ? 'true' : 'false'}
      onKeyDown={t.onKeyDown}
    >
      {practice && <p className="badge badge-practice">{m.practice}</p>}
      <div id={`question-${spec.position}`}>
        <Markdown text={env.question} className="prose question" />
      </div>

      <div className="player">
        <button
          type="button"
          className="play"
          onClick={t.toggle}
          aria-label={t.buffering ? m.loadingClip : t.playing ? m.pauseClip : m.playClip}
          aria-busy={t.buffering}
          // After practice feedback the clip may be heard again, with the intended answer in view.
          disabled={(t.answered && !feedback) || t.failure !== null}
        >
          <span aria-hidden="true" className={t.buffering ? 'icon-loading' : t.playing ? 'icon-pause' : 'icon-play'} />
        </button>
        <WaveArea
          wave={t.peaks && <Waveform media={clip.audio} peaks={t.peaks} duration={spec.clip.duration} onDrawn={() => t.setDrawn(true)} onReady={t.seek} />}
          failed={t.peaksFailed}
          retry={t.retryPeaks}
          now={clock(t.time)}
          duration={spec.clip.duration}
        />
      </div>
      {t.failure ? <FailureNotice t={t} /> : !t.audioReady && <p className="muted loading-note">{m.loadingTheClip}</p>}

      <p className={t.unlocked ? 'requirement met' : 'requirement'} role="status">
        {t.unlocked
          ? texts.unlocked
          : t.tracker.record().heardToEnd
            ? m.skippedAhead
            : requirementText(m, env, spec.clip.duration)}
      </p>

      {children}

      <TrialFooter t={t} texts={texts} />
    </section>
  );
}

/** The waveform (or its placeholder, or a retry when its peaks would not load) over the time line. */
export function WaveArea({ wave, failed, retry, now, duration }: { wave: ReactNode; failed: boolean; retry(): void; now: ReactNode; duration: number }) {
  const m = useMessages();
  return (
    <div className="wave-area">
      {wave ||
        (failed ? (
          <button type="button" className="link" onClick={retry}>
            {m.waveformRetry}
          </button>
        ) : (
          <div className="waveform waveform-loading" />
        ))}
      <div className="time" aria-live="off">
        <span>{now}</span>
        <span>{clock(duration)}</span>
      </div>
    </div>
  );
}

/** What the answer parts of a trial share: the optional comment, then Confirm with the key or touch hints, or the practice feedback with Continue. */
export function TrialFooter({
  t,
  texts,
}: {
  t: Pick<
    TrialAnswerState<unknown>,
    'spec' | 'env' | 'advance' | 'comment' | 'setComment' | 'answered' | 'feedback' | 'confirm' | 'selected' | 'sending' | 'shortcuts' | 'setShortcuts'
  >;
  texts: Omit<ClipTrialTexts, 'unlocked'>;
}) {
  const m = useMessages();
  const touch = useMemo(touchFirst, []);
  const continueButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (t.feedback) continueButton.current?.focus();
  }, [t.feedback]);
  return (
    <>
      {t.env.trialComments && !t.feedback && (
        <div className="trial-comment">
          <label htmlFor={`comment-${t.spec.position}`}>{m.trialCommentLabel}</label>
          <textarea
            id={`comment-${t.spec.position}`}
            rows={2}
            maxLength={1000}
            value={t.comment}
            disabled={t.answered}
            onChange={(e) => t.setComment(e.target.value)}
          />
        </div>
      )}

      {t.feedback ? (
        <div className={t.feedback.correct ? 'feedback correct' : 'feedback wrong'} role="alert">
          <p>{texts.feedback(t.feedback)}</p>
          <span className="muted listen-again">{texts.listenAgain ?? m.listenAgain}</span>
          <button
            ref={continueButton}
            type="button"
            className="primary"
            onClick={() => {
              // For practice the listener's move on is this press, not the choice before the feedback.
              performance.mark(`earmark:choice:${t.spec.position}`);
              t.advance();
            }}
          >
            {m.continue}
          </button>
        </div>
      ) : (
        <div className="actions">
          <button type="button" className="primary" onClick={t.confirm} disabled={t.selected === null || t.sending || t.answered}>
            {t.sending ? m.checking : texts.confirm}
          </button>
          {touch ? (
            <p className="keys">{texts.touchHints}</p>
          ) : (
            <div className="keys">
              {t.shortcuts && (
                <span>
                  <kbd>Space</kbd> {m.keysPlayPause} · {texts.keyHints} · <kbd>Enter</kbd> {m.keysConfirm}
                </span>
              )}
              <label className="shortcut-switch">
                <input
                  type="checkbox"
                  checked={t.shortcuts}
                  onChange={(e) => (setShortcutsOn(e.target.checked), t.setShortcuts(e.target.checked))}
                />
                {m.shortcutsSwitch}
              </label>
            </div>
          )}
        </div>
      )}
    </>
  );
}

/** A clip that would not load or play: Try again, then (once tried) report it and skip the trial. */
export function FailureNotice({
  t,
}: {
  t: Pick<TrialAnswerState<unknown>, 'failure' | 'canSkip' | 'skipping' | 'reportAndSkip'> & { reloads: number; tryAgain(): void };
}) {
  const m = useMessages();
  if (!t.failure) return null;
  return (
    <div className="notice failure" role="alert">
      <p>
        {t.failure.problem === 'load_failed' ? m.loadFailed : m.playFailed} {t.reloads === 0 || !t.canSkip ? m.pleaseTryAgain : m.reportIfStill}
      </p>
      <div className="actions">
        <button type="button" className="primary" onClick={t.tryAgain} disabled={t.skipping}>
          {m.tryAgain}
        </button>
        {t.reloads > 0 && t.canSkip && (
          <button type="button" className="secondary" onClick={t.reportAndSkip} disabled={t.skipping}>
            {t.skipping ? m.reporting : m.reportAndSkip}
          </button>
        )}
      </div>
    </div>
  );
}

/**
 * The answer as one radio group of buttons: arrow keys move focus and the choice (always, as
 * native radios do), the selected option (else the first) is the group's one tab stop.
 */
export function AnswerGroup<Value>({
  t,
  className,
  optionClass,
  label,
  options,
  intended = null,
}: {
  t: Pick<ClipTrialState<Value>, 'unlocked' | 'answered' | 'selected' | 'choose'>;
  className: string;
  optionClass: string;
  label: string;
  options: Array<{ value: Value; content: ReactNode }>;
  /** After practice feedback: the intended answer, marked in words on its option. */
  intended?: Value | null;
}) {
  const m = useMessages();
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const at = (v: Value | null) => options.findIndex((o) => o.value === v);
  const onKey = (e: KeyboardEvent<HTMLElement>) => {
    const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[e.key];
    if (!step) return;
    e.preventDefault();
    e.stopPropagation();
    const from = Math.max(0, refs.current.indexOf(e.target as HTMLButtonElement));
    const next = Math.min(options.length - 1, Math.max(0, from + step));
    t.choose(options[next].value);
    refs.current[next]?.focus();
  };
  const tabStop = Math.max(0, at(t.selected));
  return (
    <div className={className} role="radiogroup" aria-label={label} onKeyDown={onKey}>
      {options.map((o, i) => (
        <button
          key={String(o.value)}
          ref={(el) => void (refs.current[i] = el)}
          type="button"
          role="radio"
          aria-checked={t.selected === o.value}
          tabIndex={tabStop === i ? 0 : -1}
          className={[optionClass, t.selected === o.value && 'selected', intended === o.value && 'intended'].filter(Boolean).join(' ')}
          disabled={!t.unlocked || t.answered}
          onClick={() => t.choose(o.value)}
        >
          {o.content}
          {intended === o.value && <span className="intended-mark">{m.intendedMark}</span>}
        </button>
      ))}
    </div>
  );
}

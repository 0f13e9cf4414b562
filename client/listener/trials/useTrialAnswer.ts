/**
 * The answer's life on every trial, whatever plays the audio (one clip element, or a multi-stimulus
 * player): focus on each new trial, the selection (only once listening allows it), sending the
 * answer exactly once with the listening record, practice feedback then Continue, the optional
 * comment, a load/play failure reported and skipped (never a vote), and the keyboard model (Space
 * plays, the kind's keys act wherever focus is in the trial, ←/→ pick, Enter confirms; never in a
 * text field, never when the listener turned shortcuts off).
 */
import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { isTextEntry, shortcutsOn } from '../../lib/input';
import type { TrialFeedback, TrialProblem, TrialProps } from './types';

export interface AnswerHooks<Value, Answer, Listened> {
  answer(selected: Value): Answer;
  /** Whether the study's listening rule is met, so a choice may be made and sent. */
  listened(): boolean;
  /** The listening fields the vote carries, taken when the answer is sent. */
  record(): Listened;
  /** Silence the audio when the answer is sent. */
  stop(): void;
  /** Play or pause (Space). */
  toggle(): void;
  /**
   * A key the kind handles wherever focus is in the trial: an answer it picks (the digits of a
   * rating), 'done' when it did something else (A/B switching the stimulus), null if not its key.
   */
  key(key: string): { pick: Value } | 'done' | null;
  /** ArrowLeft/ArrowRight outside the answer group, from the current selection. */
  arrowPick(key: 'ArrowLeft' | 'ArrowRight', selected: Value | null): Value;
}

export function useTrialAnswer<Value, Answer, Listened>(
  { spec, env, finish, advance, skip }: Pick<TrialProps<{ position: number }, Answer & Listened & { comment?: string }>, 'spec' | 'env' | 'finish' | 'advance' | 'skip'>,
  hooks: AnswerHooks<Value, Answer, Listened>,
) {
  const [selected, setSelected] = useState<Value | null>(null);
  const [failure, setFailure] = useState<TrialProblem | null>(null);
  const [skipping, setSkipping] = useState(false);
  const [shortcuts, setShortcuts] = useState(shortcutsOn);
  const [feedback, setFeedback] = useState<TrialFeedback | null>(null);
  const [sending, setSending] = useState(false);
  /** The optional comment (study.yaml trialComments), sent with the answer. */
  const [comment, setComment] = useState('');
  const answered = useRef(false);
  const root = useRef<HTMLElement>(null);
  const h = useRef(hooks);
  h.current = hooks;

  useEffect(() => {
    // Each trial starts at its top (on a phone the last one ended scrolled down at Confirm).
    window.scrollTo(0, 0);
    root.current?.focus({ preventScroll: true });
  }, [spec.position]);

  const confirm = useCallback(() => {
    if (answered.current || selected === null || !h.current.listened()) return;
    answered.current = true;
    h.current.stop();
    performance.mark(`earmark:choice:${spec.position}`);
    setSending(true);
    const note = env.trialComments ? comment.trim() : '';
    void finish({ ...h.current.answer(selected), ...h.current.record(), ...(note && { comment: note }) }).then((fb) => {
      setSending(false);
      if (fb) setFeedback(fb);
      else advance();
    });
  }, [selected, env.trialComments, comment, spec.position, finish, advance]);

  const choose = useCallback((v: Value) => {
    if (!answered.current && h.current.listened()) setSelected(v);
  }, []);

  /** A focused button keeps its native Enter/Space; the kind's keys act wherever focus is. */
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (!shortcuts || feedback || e.ctrlKey || e.metaKey || e.altKey || isTextEntry(e.target)) return;
    const k = e.key;
    const done = h.current.key(k);
    if (done !== null) {
      e.preventDefault();
      if (done !== 'done') choose(done.pick);
      return;
    }
    if (e.target instanceof HTMLButtonElement || e.target instanceof HTMLInputElement) return;
    if (k === ' ') {
      e.preventDefault();
      if (!e.repeat) h.current.toggle();
    } else if (k === 'ArrowLeft' || k === 'ArrowRight') {
      e.preventDefault();
      choose(h.current.arrowPick(k, selected));
    } else if (k === 'Enter') {
      e.preventDefault();
      if (!e.repeat) confirm();
    }
  };

  const reportAndSkip = () => {
    if (!skip || !failure || answered.current) return;
    answered.current = true;
    setSkipping(true);
    void skip(failure);
  };

  return {
    spec,
    env,
    advance,
    canSkip: skip !== undefined,
    failure,
    setFailure,
    skipping,
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
    answeredRef: answered,
    root,
    onKeyDown,
  };
}

export type TrialAnswerState<Value> = ReturnType<typeof useTrialAnswer<Value, unknown, unknown>>;

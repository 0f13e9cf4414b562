/**
 * The describe trial (analysis-spec §5.6): one clip on the shared clip screen, the study's
 * instruction, and a labelled textarea with a live character count tied to it by
 * aria-describedby. The box unlocks once the study's listening requirement is met (must-listen);
 * Confirm once the trimmed text reaches the study's minLength (the server refuses shorter ones
 * too). Ctrl/⌘+Enter in the box confirms; plain Enter is a new line.
 */
import { useMemo, useState } from 'react';
import type { ListeningRecord } from '../../client/lib/listening';
import { ClipTrialScreen } from '../../client/listener/trials/ClipTrialScreen';
import type { TrialProps } from '../../client/listener/trials/types';
import { useClipTrial, type AnswerModel } from '../../client/listener/trials/useClipTrial';
import type { DescribeAnswer, DescribeTrial as DescribeSpec } from './contract';
import { useDescribeWords } from './words';

export type DescribeResponse = ListeningRecord & DescribeAnswer;

export function DescribeTrial(props: TrialProps<DescribeSpec, DescribeResponse>) {
  const w = useDescribeWords();
  const { spec } = props;
  const model = useMemo<AnswerModel<string | null, DescribeAnswer>>(
    () => ({
      answer: (description) => ({ description: description! }),
      // Keys type into the box: no digit or arrow shortcuts.
      keyPick: () => null,
      arrowPick: (_key, selected) => selected,
    }),
    [],
  );
  const t = useClipTrial(props, model);
  const [text, setText] = useState('');
  const length = text.trim().length;
  const id = `describe-${spec.position}`;
  const change = (next: string) => {
    setText(next);
    t.choose(next.trim().length >= spec.minLength ? next.trim() : null);
  };

  return (
    <ClipTrialScreen
      t={t}
      practice={spec.practice}
      label={props.label}
      texts={{
        unlocked: w.nowWrite,
        confirm: w.confirm,
        touchHints: w.touchHints,
        keyHints: <>{w.keyHints}</>,
        feedback: () => w.thanks,
      }}
    >
      <div className="describe-box">
        <p className="describe-instruction" id={`${id}-instruction`}>
          {spec.instruction}
        </p>
        <label htmlFor={id}>{w.label}</label>
        <textarea
          id={id}
          rows={5}
          value={text}
          maxLength={spec.maxLength}
          disabled={!t.unlocked || t.answered}
          aria-describedby={`${id}-instruction ${id}-count`}
          onChange={(e) => change(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.repeat) {
              e.preventDefault();
              t.confirm();
            }
          }}
        />
        <p className="muted describe-count" id={`${id}-count`} aria-live="polite">
          {w.count(length, spec.minLength, spec.maxLength)}
          {length < spec.minLength && <> {w.tooShort(spec.minLength - length)}</>}
        </p>
      </div>
    </ClipTrialScreen>
  );
}

/** The instructions screen's word on a describe trial's controls: touch, or keys. */
export function DescribeHints({ touch }: { touch: boolean }) {
  const w = useDescribeWords();
  return <p className="muted">{touch ? w.touchHints : `${w.keyHints}.`}</p>;
}

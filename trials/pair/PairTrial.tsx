import type { PairAnswer, PairTrial as PairSpec } from './contract';
import type { ListeningRecord } from '../../client/lib/listening';
import { useMessages } from '../../client/listener/messages';
import { usePairWords } from './words';
import { AnswerGroup, ClipTrialScreen } from '../../client/listener/trials/ClipTrialScreen';
import type { TrialProps } from '../../client/listener/trials/types';
import { useClipTrial, type AnswerModel } from '../../client/listener/trials/useClipTrial';

export type PairResponse = ListeningRecord & PairAnswer;

type Side = PairAnswer['choice'];
const pairAnswers: AnswerModel<Side, PairAnswer> = {
  answer: (choice) => ({ choice }),
  keyPick: (key) => (key === '1' ? 1 : key === '2' ? 2 : null),
  arrowPick: (key) => (key === 'ArrowLeft' ? 1 : 2),
};

/**
 * Pair choice: hear the clip, pick the caption that fits better. Attention checks look exactly
 * like this; practice trials are the same screen with feedback after the answer.
 */
export function PairTrial(props: TrialProps<PairSpec, PairResponse>) {
  const m = useMessages();
  const w = usePairWords();
  const t = useClipTrial(props, pairAnswers);
  const { spec } = props;
  // Practice feedback says which caption was intended: the one chosen if right, else the other.
  const intended: Side | null = t.feedback && t.selected !== null ? (t.feedback.correct ? t.selected : ((3 - t.selected) as Side)) : null;
  return (
    <ClipTrialScreen
      t={t}
      practice={spec.kind === 'practice'}
      label={props.label}
      texts={{
        unlocked: w.nowChoose,
        confirm: m.confirmChoice,
        touchHints: w.touchHints,
        keyHints: (
          <>
            <kbd>1</kbd>/<kbd>2</kbd> {m.keysOr} <kbd>←</kbd>/<kbd>→</kbd> {m.keysChoose}
          </>
        ),
        feedback: (fb) => (fb.correct ? w.correct(intended!) : w.wrong(intended!)),
      }}
    >
      <AnswerGroup
        t={t}
        className="captions"
        optionClass="caption"
        label={w.captions}
        intended={intended}
        options={spec.captions.map((text, i) => ({
          value: (i + 1) as Side,
          content: (
            <>
              <span className="key" aria-hidden="true">
                {i + 1}
              </span>
              <span className="caption-text">{text}</span>
              <span className="chosen-mark" aria-hidden="true">
                {w.yourChoice}
              </span>
            </>
          ),
        }))}
      />
    </ClipTrialScreen>
  );
}

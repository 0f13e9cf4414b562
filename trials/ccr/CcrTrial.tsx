/**
 * The CCR trial (analysis-spec §5.4, ITU-T P.800 Annex E): versions 1 and 2 on the shared stimuli
 * screen (one Web Audio timeline, switching at the same position); the second rated against the
 * first on P.800's seven categories (−3 Much worse … +3 Much better), and Confirm. Keys: 1/2
 * switch, ←/→ walk the scale, Enter confirms. Practice feedback says which one was worse.
 */
import type { TrialProps } from '../../client/listener/trials/types';
import { StimuliTrial, type StimulusRecord } from '../../client/listener/trials/StimuliTrial';
import { useMessages } from '../../client/listener/messages';
import type { ListeningRecord } from '../../client/lib/listening';
import type { CcrAnswer, CcrTrial as CcrSpec } from './contract';
import { useCcrWords } from './words';

/** What a CCR trial answers with: the comparison, the listening totals and one listening entry per version (screen order). */
export type CcrResponse = ListeningRecord & CcrAnswer & { listening: StimulusRecord[] };

const VALUES = ['-3', '-2', '-1', '0', '1', '2', '3'] as const;
type Value = (typeof VALUES)[number];

export function CcrTrial(props: TrialProps<CcrSpec, CcrResponse>) {
  const m = useMessages();
  const w = useCcrWords();
  return StimuliTrial<Value, CcrAnswer, CcrResponse>(props, {
    className: 'ab-trial ccr-trial',
    labels: ['1', '2'],
    keys: [],
    words: w,
    question: w.question,
    options: VALUES.map((value, i) => ({ value, content: <span>{w.scale[i]}</span> })),
    choicesClass: 'ab-choices ccr-choices',
    answer: (value) => ({ comparison: Number(value) }),
    // The right answer is a sign, not one category: feedback marks the chosen one when right and says it in words.
    intended: (chosen, correct) => (correct ? chosen : null),
    feedback: (correct) => (correct ? w.correct : w.wrong),
    keyHints: (
      <>
        <kbd>1</kbd>/<kbd>2</kbd> {w.keysSwitch} · <kbd>←</kbd>/<kbd>→</kbd> {m.keysChoose}
      </>
    ),
  });
}

/** The instructions screen's word on a CCR trial's controls: touch, or keys. */
export function CcrHints({ touch }: { touch: boolean }) {
  const m = useMessages();
  const w = useCcrWords();
  if (touch) return <p className="muted">{w.touchHints}</p>;
  return (
    <p className="muted">
      {m.keysIntro} <kbd>1</kbd>/<kbd>2</kbd> {w.keysSwitch}, <kbd>Space</kbd> {m.keysPlayPause}, <kbd>←</kbd>/<kbd>→</kbd> {m.keysChoose}, <kbd>Enter</kbd> {m.keysConfirm}{' '}
      {m.keysCanBeOff}
    </p>
  );
}

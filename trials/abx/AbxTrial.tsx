/**
 * The ABX trial (analysis-spec §5.2): A, B and X (one of the two again) on the shared stimuli
 * screen (one Web Audio timeline, switching at the same position); "X is A" or "X is B", and
 * Confirm. Keys: A/B/X or 1/2/3 switch, ←/→ choose, Enter confirms. Practice trials say which X was.
 */
import type { TrialProps } from '../../client/listener/trials/types';
import { StimuliTrial, type StimulusRecord } from '../../client/listener/trials/StimuliTrial';
import { useMessages } from '../../client/listener/messages';
import type { ListeningRecord } from '../../client/lib/listening';
import type { AbxAnswer, AbxTrial as AbxSpec } from './contract';
import { useAbxWords } from './words';

/** What an ABX trial answers with: X is A or B, the listening totals and one listening entry per stimulus (A, B, X). */
export type AbxResponse = ListeningRecord & AbxAnswer & { listening: StimulusRecord[] };

type Side = AbxAnswer['xIs'];

export function AbxTrial(props: TrialProps<AbxSpec, AbxResponse>) {
  const m = useMessages();
  const w = useAbxWords();
  return StimuliTrial<Side, AbxAnswer, AbxResponse>(props, {
    className: 'ab-trial abx-trial',
    labels: ['A', 'B', 'X'],
    keys: ['a', 'b', 'x'],
    words: w,
    question: w.question,
    options: (['A', 'B'] as const).map((value) => ({ value, content: <span>{w.xIs(value)}</span> })),
    choicesClass: 'ab-choices ab-choices-2',
    answer: (xIs) => ({ xIs }),
    intended: (chosen, correct) => (correct ? chosen : chosen === 'A' ? 'B' : 'A'),
    feedback: (correct, intended) => (correct ? w.correct(intended!) : w.wrong(intended!)),
    keyHints: (
      <>
        <kbd>A</kbd>/<kbd>B</kbd>/<kbd>X</kbd> {m.keysOr} <kbd>1</kbd>/<kbd>2</kbd>/<kbd>3</kbd> {w.keysSwitch} · <kbd>←</kbd>/<kbd>→</kbd> {m.keysChoose}
      </>
    ),
  });
}

/** The instructions screen's word on an ABX trial's controls: touch, or keys. */
export function AbxHints({ touch }: { touch: boolean }) {
  const m = useMessages();
  const w = useAbxWords();
  if (touch) return <p className="muted">{w.touchHints}</p>;
  return (
    <p className="muted">
      {m.keysIntro} <kbd>A</kbd>/<kbd>B</kbd>/<kbd>X</kbd> {m.keysOr} <kbd>1</kbd>/<kbd>2</kbd>/<kbd>3</kbd> {w.keysSwitch}, <kbd>Space</kbd> {m.keysPlayPause},{' '}
      <kbd>←</kbd>/<kbd>→</kbd> {m.keysChoose}, <kbd>Enter</kbd> {m.keysConfirm} {m.keysCanBeOff}
    </p>
  );
}

/**
 * The A/B preference trial (analysis-spec §5.1): two renditions of one utterance on the shared
 * stimuli screen (client/listener/trials/StimuliTrial.tsx: one Web Audio timeline, switching at the
 * same position). "A is better", "B is better" (and "No preference" between them when the study
 * offers a tie), and Confirm. Keys: A/B or 1/2 switch, ←/→ choose, Enter confirms. Practice trials
 * show feedback naming the better version.
 */
import type { TrialProps } from '../../client/listener/trials/types';
import { StimuliTrial } from '../../client/listener/trials/StimuliTrial';
import { useMessages } from '../../client/listener/messages';
import type { ListeningRecord } from '../../client/lib/listening';
import type { AbAnswer, AbTrial as AbSpec, StimulusListening } from './contract';
import { useAbWords } from './words';

/** What an A/B trial answers with: the preference, the listening totals and one listening entry per stimulus (screen order). */
export type AbResponse = ListeningRecord & AbAnswer & { listening: StimulusListening[] };

type Preference = AbAnswer['preference'];

export function AbTrial(props: TrialProps<AbSpec, AbResponse>) {
  const m = useMessages();
  const w = useAbWords();
  const order: Preference[] = props.spec.tie ? ['A', 'tie', 'B'] : ['A', 'B'];
  return StimuliTrial<Preference, AbAnswer, AbResponse>(props, {
    className: 'ab-trial',
    labels: ['A', 'B'],
    keys: ['a', 'b'],
    words: w,
    question: w.preference,
    options: order.map((value) => ({ value, content: <span>{value === 'tie' ? w.tie : w.better(value)}</span> })),
    choicesClass: `ab-choices ab-choices-${order.length}`,
    answer: (preference) => ({ preference }),
    // The better version: the one chosen if right, else the other (a wrong "no preference" names none).
    intended: (chosen, correct) => (correct ? chosen : chosen === 'A' ? 'B' : chosen === 'B' ? 'A' : null),
    feedback: (correct, intended) => (correct ? w.correct(intended as 'A' | 'B') : intended ? w.wrong(intended as 'A' | 'B') : w.wrongTie),
    keyHints: (
      <>
        <kbd>A</kbd>/<kbd>B</kbd> {m.keysOr} <kbd>1</kbd>/<kbd>2</kbd> {w.keysSwitch} · <kbd>←</kbd>/<kbd>→</kbd> {m.keysChoose}
      </>
    ),
  });
}

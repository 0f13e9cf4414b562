import type { AbSettings } from './contract';
import { useMessages } from '../../client/listener/messages';
import { useAbWords } from './words';

/** The instructions screen's word on an A/B trial's controls: touch, or keys (A/B or 1/2 switch, Space, ←/→, Enter). */
export function AbHints({ touch }: { settings: AbSettings; touch: boolean }) {
  const m = useMessages();
  const w = useAbWords();
  if (touch) return <p className="muted">{w.touchHints}</p>;
  return (
    <p className="muted">
      {m.keysIntro} <kbd>A</kbd>/<kbd>B</kbd> {m.keysOr} <kbd>1</kbd>/<kbd>2</kbd> {w.keysSwitch}, <kbd>Space</kbd> {m.keysPlayPause},{' '}
      <kbd>←</kbd>/<kbd>→</kbd> {m.keysChoose}, <kbd>Enter</kbd> {m.keysConfirm} {m.keysCanBeOff}
    </p>
  );
}

import { useMemo, useState } from 'react';
import type { TrialPreviewList } from '../../contract/studio';
import { ClipCache } from '../lib/media';
import { trialKind } from '../listener/trials';
import type { TrialEnv } from '../listener/trials/types';
import { errorText, studio } from './api';

type PreviewItem = TrialPreviewList['trials'][number];

/** What the researcher may know of a trial and the listener must not: its systems and right answer. */
function previewMeta(item: PreviewItem): string {
  return trialKind(item.trial).reveal(item);
}

/**
 * Any trial exactly as a listener sees it: the listener's own trial component, fed the same
 * Trial object the listener API sends (caption a shown first). Practice answers are checked
 * here against the known answer; nothing is sent: a preview writes no vote.
 */
export function Preview({ study }: { study: string }) {
  const [list, setList] = useState<TrialPreviewList | null>(null);
  const [index, setIndex] = useState(0);
  const [audio, setAudio] = useState<AudioContext | null>(null);
  const [error, setError] = useState<string | null>(null);
  const clips = useMemo(() => new ClipCache(), []);

  const start = async () => {
    try {
      // Created on this click: browsers keep audio silent until a gesture.
      const ctx = new AudioContext();
      await ctx.resume();
      setAudio(ctx);
      setList(await studio.preview(study));
    } catch (err) {
      setError(errorText(err));
    }
  };

  if (!list || !audio) {
    return (
      <div className="preview-start">
        <button type="button" className="secondary" onClick={() => void start()}>
          Preview trials
        </button>
        {error && <p className="notice">{error}</p>}
      </div>
    );
  }
  const item = list.trials[index];
  if (!item) return <p className="muted">This study has no trials.</p>;
  const env: TrialEnv = { audio, clips, listening: list.listening, question: list.question, trial: list.trial };
  const kind = trialKind(item.trial);
  const Component = kind.component;
  return (
    <div className="preview" data-testid="preview">
      <div className="preview-bar">
        <label>
          Trial{' '}
          <select value={index} onChange={(e) => setIndex(Number(e.target.value))} aria-label="trial to preview">
            {list.trials.map((t, i) => (
              <option key={t.seq} value={i}>
                {i + 1} · {t.kind}
              </option>
            ))}
          </select>
        </label>
        <span className="muted small" data-testid="preview-meta">
          {item.kind} · {previewMeta(item)}
        </span>
        <span className="muted small">Preview: nothing is recorded.</span>
      </div>
      <Component
        key={item.seq}
        spec={item.trial}
        env={env}
        finish={async (response) =>
          // Only practice trials give feedback, as in the listener's session; attention checks look like any trial.
          item.kind === 'practice' && item.expected !== null ? kind.check(response, item.expected) : null
        }
        advance={() => setIndex((i) => Math.min(i + 1, list.trials.length - 1))}
      />
    </div>
  );
}

import { useMemo } from 'react';
import type { RatingAnswer, RatingTrial as RatingSpec } from './contract';
import type { ListeningRecord } from '../../client/lib/listening';
import { useMessages } from '../../client/listener/messages';
import { AnswerGroup, ClipTrialScreen } from '../../client/listener/trials/ClipTrialScreen';
import { pointText, scalePoints } from './scale';
import { useRatingWords } from './words';
import type { TrialFeedback, TrialProps } from '../../client/listener/trials/types';
import { useClipTrial, type AnswerModel } from '../../client/listener/trials/useClipTrial';

export type RatingResponse = ListeningRecord & RatingAnswer;

/**
 * Rating (absolute category rating, MOS): hear the clip, rate it, or the caption shown with it,
 * on the study's scale. Same listening rules and keys as the pair: Space plays, the digits 1..N
 * (or ←/→) pick, Enter confirms. Attention checks look exactly like this; practice trials show
 * the intended score after the answer.
 */
export function RatingTrial(props: TrialProps<RatingSpec, RatingResponse>) {
  const m = useMessages();
  const w = useRatingWords();
  const { spec, env } = props;
  // A rating trial only ever comes from a rating study; the contract's default scale covers the rest.
  const scale = env.trial.kind === 'rating' ? env.trial.scale : { points: 5 as const };
  const points = useMemo(() => scalePoints(scale, w.acrLabels), [scale, w]);
  const top = points.length;
  const model = useMemo<AnswerModel<number, RatingAnswer>>(
    () => ({
      answer: (score) => ({ score }),
      keyPick: (key) => (/^[1-9]$/.test(key) && Number(key) <= top ? Number(key) : null),
      arrowPick: (key, selected) => (selected === null ? 1 : Math.min(top, Math.max(1, selected + (key === 'ArrowLeft' ? -1 : 1)))),
    }),
    [top],
  );
  const t = useClipTrial(props, model);
  const intended = (fb: TrialFeedback) => {
    const point = points.find((p) => p.value === fb.score);
    return point ? pointText(point) : '—';
  };

  return (
    <ClipTrialScreen
      t={t}
      practice={spec.practice}
      label={props.label}
      texts={{
        unlocked: w.nowRate,
        confirm: w.confirmRating,
        touchHints: w.touchHintsRating,
        keyHints: (
          <>
            <kbd>1</kbd>–<kbd>{top}</kbd> {m.keysOr} <kbd>←</kbd>/<kbd>→</kbd> {m.keysRate}
          </>
        ),
        feedback: (fb) => (fb.correct ? w.ratingCorrect(intended(fb)) : w.ratingWrong(intended(fb))),
      }}
    >
      {spec.caption !== null && (
        <div className="rated-caption">
          <p className="rated-caption-label">{w.captionToRate}</p>
          <p className="caption-text">{spec.caption}</p>
        </div>
      )}
      <AnswerGroup
        t={t}
        className={`scale scale-${top}`}
        optionClass="score"
        label={w.ratingScale}
        intended={t.feedback?.score ?? null}
        options={points.map((p) => ({
          value: p.value,
          content: (
            <>
              <span className="key">{p.value}</span>
              {p.label && <span className="score-label">{p.label}</span>}
              {p.anchor && <span className="score-anchor">{p.anchor}</span>}
            </>
          ),
        }))}
      />
    </ClipTrialScreen>
  );
}

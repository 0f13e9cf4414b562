/**
 * The tags trial (analysis-spec §5.5): one clip on the shared clip screen, then each attribute as
 * a group of native inputs — radio buttons for a single attribute, checkboxes for a multi one with
 * an exclusive "None of these" — each group a fieldset whose legend names the attribute, each
 * option a label of at least 44 px (client/styles.css `.tags-option`), hints tied to their option
 * by aria-describedby. The inputs unlock once the study's listening requirement is met
 * (must-listen), and Confirm once every attribute is answered. Native inputs give the keyboard
 * (Tab between groups, arrows within a radio group, Space on a checkbox) and the screen reader
 * their usual behaviour; Enter on an option confirms once every attribute is answered.
 */
import { useMemo, useState } from 'react';
import type { ListeningRecord } from '../../client/lib/listening';
import { ClipTrialScreen } from '../../client/listener/trials/ClipTrialScreen';
import type { TrialProps } from '../../client/listener/trials/types';
import { useClipTrial, type AnswerModel } from '../../client/listener/trials/useClipTrial';
import type { TagsAnswer, TagsTrial as TagsSpec, TrialAttribute } from './contract';
import { useTagsWords } from './words';

export type TagsResponse = ListeningRecord & TagsAnswer;

/** Per attribute what is picked so far: a single's value, a multi's values ([] with "none" ticked = none of these). */
type Picks = Record<string, { values: string[]; none: boolean }>;

const complete = (attributes: readonly TrialAttribute[], picks: Picks) =>
  attributes.every((a) => (picks[a.name]?.values.length ?? 0) > 0 || (a.mode === 'multi' && picks[a.name]?.none === true));

export function TagsTrial(props: TrialProps<TagsSpec, TagsResponse>) {
  const w = useTagsWords();
  const { spec } = props;
  const model = useMemo<AnswerModel<TagsAnswer['tags'] | null, TagsAnswer>>(
    () => ({
      answer: (tags) => ({ tags: tags! }),
      // Every pick is an input of its own: no digit shortcuts, and the arrows belong to the radio groups.
      keyPick: () => null,
      arrowPick: (_key, selected) => selected,
    }),
    [],
  );
  const t = useClipTrial(props, model);
  const [picks, setPicks] = useState<Picks>({});
  const update = (next: Picks) => {
    setPicks(next);
    t.choose(complete(spec.attributes, next) ? Object.fromEntries(spec.attributes.map((a) => [a.name, a.mode === 'single' ? next[a.name].values[0] : next[a.name].values])) : null);
  };
  const pick = (a: TrialAttribute, value: string, on: boolean) => {
    const now = picks[a.name] ?? { values: [], none: false };
    const values = a.mode === 'single' ? [value] : on ? [...now.values, value] : now.values.filter((v) => v !== value);
    update({ ...picks, [a.name]: { values: a.values.filter((v) => values.includes(v)), none: false } });
  };
  const none = (a: TrialAttribute, on: boolean) => update({ ...picks, [a.name]: { values: [], none: on } });
  const disabled = !t.unlocked || t.answered;
  const missing = spec.attributes.filter((a) => !complete([a], picks)).map((a) => a.name);
  const id = (a: TrialAttribute, i: number | 'none') => `tags-${spec.position}-${a.name}-${i}`;

  return (
    <ClipTrialScreen
      t={t}
      practice={spec.practice}
      label={props.label}
      texts={{
        unlocked: w.nowLabel,
        confirm: w.confirm,
        touchHints: w.touchHints,
        keyHints: <>{w.keyHints}</>,
        feedback: (fb) => (fb.correct ? w.correct : w.wrong),
      }}
    >
      {/* Enter on an option confirms, as in a form (the screen's own Enter leaves inputs alone). */}
      <div
        className="tags-attributes"
        role="group"
        aria-label={w.labels}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.repeat && e.target instanceof HTMLInputElement) {
            e.preventDefault();
            t.confirm();
          }
        }}
      >
        {spec.attributes.map((a) => (
          <fieldset key={a.name} className="tags-attribute" disabled={disabled}>
            <legend>
              <span className="tags-name">{a.name}</span> <span className="muted tags-mode">({a.mode === 'single' ? w.chooseOne : w.chooseAny})</span>
            </legend>
            <div className="tags-options">
              {a.values.map((v, i) => {
                const checked = picks[a.name]?.values.includes(v) ?? false;
                const hint = a.hints[v];
                return (
                  <label key={v} className={checked ? 'tags-option selected' : 'tags-option'} htmlFor={id(a, i)}>
                    <input
                      id={id(a, i)}
                      type={a.mode === 'single' ? 'radio' : 'checkbox'}
                      name={`tags-${spec.position}-${a.name}`}
                      value={v}
                      checked={checked}
                      aria-describedby={hint ? `${id(a, i)}-hint` : undefined}
                      onChange={(e) => pick(a, v, e.target.checked)}
                    />
                    <span className="tags-value">{v}</span>
                    {hint && (
                      <span id={`${id(a, i)}-hint`} className="tags-hint">
                        {hint}
                      </span>
                    )}
                  </label>
                );
              })}
              {a.mode === 'multi' && (
                <label className={picks[a.name]?.none ? 'tags-option tags-none selected' : 'tags-option tags-none'} htmlFor={id(a, 'none')}>
                  <input id={id(a, 'none')} type="checkbox" checked={picks[a.name]?.none ?? false} onChange={(e) => none(a, e.target.checked)} />
                  <span className="tags-value">{w.noneOfThese}</span>
                </label>
              )}
            </div>
          </fieldset>
        ))}
        {t.unlocked && !t.answered && missing.length > 0 && <p className="muted tags-missing">{w.incomplete(missing.join(', '))}</p>}
      </div>
    </ClipTrialScreen>
  );
}

/** The instructions screen's word on a tags trial's controls: touch, or keys. */
export function TagsHints({ touch }: { touch: boolean }) {
  const w = useTagsWords();
  return <p className="muted">{touch ? w.touchHints : `${w.keyHints}.`}</p>;
}

/**
 * The study's questions before or after the trials (study.yaml questions; contract/questionnaire.ts):
 * one form, each question a labelled fieldset or input, required ones marked in words, keyboard only
 * (native radios, checkboxes and inputs), and the server's refusal shown at the question it names.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { AnswerValue, Question } from '../../contract/questionnaire';
import { HttpError } from '../lib/api';
import { useMessages } from './messages';

type Draft = Record<string, string | string[]>;

/** A draft answer as the API takes it; undefined when left blank. */
function toAnswer(q: Question, draft: string | string[] | undefined): AnswerValue | undefined {
  if (draft === undefined) return undefined;
  if (Array.isArray(draft)) return draft.length ? draft : undefined;
  const text = draft.trim();
  if (text === '') return undefined;
  return q.kind === 'number' || q.kind === 'likert' ? Number(text) : text;
}

function QuestionField({ q, value, error, onChange }: { q: Question; value: string | string[] | undefined; error: string | null; onChange(v: string | string[]): void }) {
  const m = useMessages();
  const id = `q-${q.id}`;
  const note = q.required ? m.questionRequired : m.questionOptional;
  const errorId = `${id}-error`;
  const described = error ? errorId : undefined;
  const legend = (
    <>
      {q.text} <span className="muted">{note}</span>
    </>
  );
  const errorText = error && (
    <p id={errorId} className="field-error" role="alert">
      {error}
    </p>
  );
  if (q.kind === 'single' || q.kind === 'multiple' || q.kind === 'likert') {
    const options =
      q.kind === 'likert'
        ? Array.from({ length: q.points }, (_, i) => ({ value: String(i + 1), label: i === 0 ? `1 — ${q.anchors.low}` : i === q.points - 1 ? `${q.points} — ${q.anchors.high}` : String(i + 1) }))
        : q.options.map((o) => ({ value: o, label: o }));
    const multiple = q.kind === 'multiple';
    const chosen = Array.isArray(value) ? value : value ? [value] : [];
    return (
      <fieldset className={`q-item q-${q.kind}`} aria-describedby={described} aria-invalid={error ? true : undefined} data-question={q.id}>
        <legend>{legend}</legend>
        <div className={q.kind === 'likert' ? 'likert-options' : 'choice-options'}>
          {options.map((o, i) => (
            <label key={o.value} className="choice">
              <input
                type={multiple ? 'checkbox' : 'radio'}
                name={id}
                value={o.value}
                required={!multiple && q.required && i === 0}
                checked={chosen.includes(o.value)}
                onChange={(e) => onChange(multiple ? (e.target.checked ? [...chosen, o.value] : chosen.filter((c) => c !== o.value)) : o.value)}
              />
              <span>{o.label}</span>
            </label>
          ))}
        </div>
        {errorText}
      </fieldset>
    );
  }
  const text = typeof value === 'string' ? value : '';
  const range = q.kind === 'number' ? m.questionNumberRange(q.min, q.max) : '';
  return (
    <div className="q-item" data-question={q.id}>
      <label htmlFor={id}>
        {legend}
        {range && <span className="muted"> {range}</span>}
      </label>
      {q.kind === 'number' ? (
        <input
          id={id}
          type="number"
          inputMode={q.integer ? 'numeric' : 'decimal'}
          min={q.min}
          max={q.max}
          step={q.integer ? 1 : 'any'}
          required={q.required}
          value={text}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <input
          id={id}
          type="text"
          maxLength={q.maxLength}
          required={q.required}
          value={text}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {errorText}
    </div>
  );
}

export function Questionnaire({ questions, when, send }: { questions: Question[]; when: 'before' | 'after'; send(answers: Record<string, AnswerValue>): Promise<void> }) {
  const m = useMessages();
  const part = questions.filter((q) => q.when === when);
  const [draft, setDraft] = useState<Draft>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [state, setState] = useState<'editing' | 'sending' | 'failed'>('editing');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const answers: Record<string, AnswerValue> = {};
    const missing: Record<string, string> = {};
    for (const q of part) {
      const a = toAnswer(q, draft[q.id]);
      if (a !== undefined) answers[q.id] = a;
      else if (q.required) missing[q.id] = m.questionsMissing;
    }
    setErrors(missing);
    if (Object.keys(missing).length) {
      document.querySelector<HTMLInputElement>(`[data-question="${Object.keys(missing)[0]}"] input`)?.focus();
      return;
    }
    setState('sending');
    try {
      await send(answers);
    } catch (error) {
      // The server names the question at fault: its message after the question's id.
      const field = error instanceof HttpError ? error.body?.field : undefined;
      if (field && part.some((q) => q.id === field)) setErrors({ [field]: error instanceof HttpError ? (error.body?.message ?? '').replace(/^question "[^"]*" /, '') : '' });
      setState('failed');
    }
  };

  return (
    <section className="card questionnaire" aria-labelledby="questions-title">
      <h2 id="questions-title" tabIndex={-1} ref={heading}>
        {when === 'before' ? m.questionsBeforeTitle : m.questionsAfterTitle}
      </h2>
      <form onSubmit={submit} noValidate>
        {part.map((q) => (
          <QuestionField key={q.id} q={q} value={draft[q.id]} error={errors[q.id] ?? null} onChange={(v) => setDraft((d) => ({ ...d, [q.id]: v }))} />
        ))}
        {state === 'failed' && <p role="alert">{m.questionsFailed}</p>}
        <div className="actions">
          <button type="submit" className="primary" disabled={state === 'sending'}>
            {state === 'sending' ? m.questionsSaving : m.continue}
          </button>
        </div>
      </form>
    </section>
  );
}

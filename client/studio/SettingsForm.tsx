/**
 * The settings a researcher who does not write YAML needs, as a form beside study.yaml: texts,
 * counts, design, screening and completion. Both edit one text: a field change is written into the
 * YAML with the `yaml` package's Document API (comments and layout elsewhere stay), and the fields
 * show what the YAML says after every keystroke there.
 */
import { useId } from 'react';
import { parseDocument, type Document } from 'yaml';

type Value = string | number | boolean | undefined;
/** Where a setting is in study.yaml: keys and list indexes. */
type FieldPath = readonly (string | number)[];

const SCREENINGS = [
  ['none', 'none'],
  ['antiphase', 'headphone check (antiphase)'],
  ['huggins', 'headphone check (Huggins pitch)'],
  ['both', 'both headphone checks'],
] as const;

/** The definition with settings changed: an empty value removes the key (its default applies). */
export function setSettings(yaml: string, changes: readonly (readonly [FieldPath, Value])[]): string {
  const doc = parseDocument(yaml);
  for (const [path, value] of changes) {
    if (value === undefined || value === '') doc.deleteIn(path);
    else doc.setIn(path, value);
  }
  return doc.toString({ lineWidth: 0 });
}

/** A crossed design has no per-listener counts: switching to it takes them out (the schema refuses them there). */
const designChanges = (kind: Value): [FieldPath, Value][] =>
  kind === 'crossed' ? [[['design', 'kind'], kind], [['design', 'itemsPerListener'], undefined], [['design', 'ratingsPerItem'], undefined]] : [[['design', 'kind'], kind]];

function read(doc: Document, path: FieldPath): unknown {
  return doc.getIn(path);
}

interface FieldProps {
  doc: Document;
  path: FieldPath;
  label: string;
  disabled: boolean;
  onSet(path: FieldPath, value: Value): void;
}

/** A text setting; a per-language text (a map) is edited in the YAML only, and the field says so. */
function TextSetting({ doc, path, label, disabled, onSet, long = false }: FieldProps & { long?: boolean }) {
  const value = read(doc, path);
  const perLanguage = value !== undefined && typeof value !== 'string';
  const hint = useId();
  const props = {
    value: typeof value === 'string' ? value : '',
    disabled: disabled || perLanguage,
    'aria-describedby': perLanguage ? hint : undefined,
    onChange: (e: { target: { value: string } }) => onSet(path, e.target.value),
  };
  return (
    <label>
      {label}
      {long ? <textarea rows={4} {...props} /> : <input {...props} />}
      {perLanguage && <span id={hint} className="muted small">given per language: edit it in study.yaml</span>}
    </label>
  );
}

function NumberSetting({ doc, path, label, disabled, onSet }: FieldProps) {
  const value = read(doc, path);
  return (
    <label>
      {label}
      <input
        type="number"
        min={1}
        inputMode="numeric"
        value={typeof value === 'number' ? value : ''}
        disabled={disabled}
        onChange={(e) => onSet(path, e.target.value === '' ? undefined : Number(e.target.value))}
      />
    </label>
  );
}

function ChoiceSetting({ doc, path, label, disabled, onSet, choices, fallback }: FieldProps & { choices: readonly (readonly [string, string])[]; fallback: string }) {
  const value = read(doc, path);
  return (
    <label>
      {label}
      <select value={typeof value === 'string' ? value : fallback} disabled={disabled} onChange={(e) => onSet(path, e.target.value)}>
        {choices.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

export function SettingsForm({ yaml, readOnly, onChange }: { yaml: string; readOnly: boolean; onChange(yaml: string): void }) {
  const doc = parseDocument(yaml);
  const broken = doc.errors.length > 0;
  const disabled = readOnly || broken;
  const onSet = (path: FieldPath, value: Value) => onChange(setSettings(yaml, path.join('.') === 'design.kind' ? designChanges(value) : [[path, value]]));
  const field = { doc, disabled, onSet };
  const sampled = read(doc, ['items', 'mode']) === 'sample';
  const incomplete = read(doc, ['design', 'kind']) === 'incomplete';
  return (
    <form className="settings stack" aria-label="study settings" onSubmit={(e) => e.preventDefault()}>
      {broken && <p className="callout">study.yaml does not parse; fix it there and the form follows.</p>}
      <fieldset>
        <legend>Texts listeners read</legend>
        <TextSetting {...field} path={['title']} label="Title" />
        <TextSetting {...field} path={['consent']} label="Consent" long />
        <TextSetting {...field} path={['instructions']} label="Instructions" long />
        <TextSetting {...field} path={['question']} label="Question" />
      </fieldset>
      <fieldset>
        <legend>Counts and design</legend>
        {sampled && <NumberSetting {...field} path={['items', 'count']} label="Items to sample" />}
        <NumberSetting {...field} path={['targetListeners']} label="Target listeners" />
        <ChoiceSetting {...field} path={['design', 'kind']} label="Design" fallback="crossed" choices={[['crossed', 'crossed: every listener hears every item'], ['incomplete', 'balanced incomplete: each listener a subset']]} />
        {incomplete && <NumberSetting {...field} path={['design', 'itemsPerListener']} label="Items per listener" />}
        {incomplete && <NumberSetting {...field} path={['design', 'ratingsPerItem']} label="Listeners per item" />}
      </fieldset>
      <fieldset>
        <legend>Screening</legend>
        <ChoiceSetting {...field} path={['screening', 'kind']} label="Headphone screening" fallback="none" choices={SCREENINGS} />
        <label className="check">
          <input type="checkbox" checked={read(doc, ['screening', 'required']) === true} disabled={disabled} onChange={(e) => onSet(['screening', 'required'], e.target.checked)} />
          Listeners must pass it to take part
        </label>
      </fieldset>
      <fieldset>
        <legend>Completion</legend>
        <TextSetting {...field} path={['completion', 'code']} label="Completion code (from your platform)" />
        <TextSetting {...field} path={['completion', 'redirectUrl']} label="Return link (e.g. Prolific's …/complete?cc=CODE)" />
        <ChoiceSetting
          {...field}
          path={['completion', 'whenStopped']}
          label="If you pause or close the study part-way"
          fallback="return"
          choices={[['return', 'no code: listeners return the study'], ['finisher', "give the finisher's code"]]}
        />
      </fieldset>
    </form>
  );
}

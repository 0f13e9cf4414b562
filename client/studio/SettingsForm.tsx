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

/** Keys each design kind takes beyond `kind` (contract/study-definition.ts, Design): a switch removes the others, which the schema refuses there. */
const DESIGN_KEYS: Record<string, readonly string[]> = {
  crossed: [],
  incomplete: ['itemsPerListener', 'ratingsPerItem', 'abandonAfterMinutes'],
  adaptive: ['itemsPerListener', 'maxPairRepeats', 'stop', 'abandonAfterMinutes'],
};
const ALL_DESIGN_KEYS = [...new Set(Object.values(DESIGN_KEYS).flat())];
/**
 * What a switch starts when the definition has none, so it stays valid: counts the researcher then
 * edits (the planner box helps choose them), and the adaptive design's stop rule it must have.
 */
const DESIGN_STARTS: Record<string, readonly (readonly [key: string, at: FieldPath, value: number])[]> = {
  incomplete: [['itemsPerListener', ['itemsPerListener'], 20], ['ratingsPerItem', ['ratingsPerItem'], 5]],
  adaptive: [['itemsPerListener', ['itemsPerListener'], 20], ['stop', ['stop', 'ciHalfWidth'], 0.3]],
};

/** The definition with the design switched to `kind`: keys the new kind does not take removed, the ones it needs started. */
export function switchDesign(yaml: string, kind: string): string {
  return setSettings(yaml, designChanges(parseDocument(yaml), kind));
}

function designChanges(doc: Document, kind: Value): [FieldPath, Value][] {
  const keep = DESIGN_KEYS[String(kind)] ?? [];
  const changes: [FieldPath, Value][] = [[['design', 'kind'], kind]];
  for (const key of ALL_DESIGN_KEYS) if (!keep.includes(key)) changes.push([['design', key], undefined]);
  for (const [key, at, value] of DESIGN_STARTS[String(kind)] ?? []) {
    if (read(doc, ['design', key]) === undefined) changes.push([['design', ...at], value]);
  }
  return changes;
}

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

/** A count (whole, from 1), or with `decimal` a positive number such as a half-width. */
function NumberSetting({ doc, path, label, disabled, onSet, decimal = false }: FieldProps & { decimal?: boolean }) {
  const value = read(doc, path);
  return (
    <label>
      {label}
      <input
        type="number"
        min={decimal ? 0 : 1}
        step={decimal ? 'any' : 1}
        inputMode={decimal ? 'decimal' : 'numeric'}
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
  const onSet = (path: FieldPath, value: Value) => onChange(path.join('.') === 'design.kind' ? switchDesign(yaml, String(value)) : setSettings(yaml, [[path, value]]));
  const field = { doc, disabled, onSet };
  const sampled = read(doc, ['items', 'mode']) === 'sample';
  const design = read(doc, ['design', 'kind']);
  const incomplete = design === 'incomplete';
  const adaptive = design === 'adaptive';
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
        <ChoiceSetting {...field} path={['design', 'kind']} label="Design" fallback="crossed" choices={[
          ['crossed', 'crossed: every listener hears every item'],
          ['incomplete', 'balanced incomplete: each listener a subset'],
          ['adaptive', 'adaptive: each next item where it settles most (pairs, A/B, ratings)'],
        ]} />
        {(incomplete || adaptive) && <NumberSetting {...field} path={['design', 'itemsPerListener']} label="Items per listener" />}
        {incomplete && <NumberSetting {...field} path={['design', 'ratingsPerItem']} label="Listeners per item" />}
        {adaptive && <NumberSetting {...field} path={['design', 'maxPairRepeats']} label="Times one listener may meet a system pair (default 2)" />}
        {adaptive && <NumberSetting {...field} path={['design', 'stop', 'ciHalfWidth']} label="Stop at mean 95 % CI half-width" decimal />}
        {adaptive && <NumberSetting {...field} path={['design', 'stop', 'votes']} label="Stop at votes (the budget)" />}
        {adaptive && (
          <label className="check">
            <input type="checkbox" checked={read(doc, ['design', 'stop', 'separated']) === true} disabled={field.disabled} onChange={(e) => onSet(['design', 'stop', 'separated'], e.target.checked || undefined)} />
            Stop when every system's interval is apart from its neighbours'
          </label>
        )}
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

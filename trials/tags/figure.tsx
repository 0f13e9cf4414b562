/**
 * The tags section `annotation` (analysis-spec §6.5) as the HTML report and the dashboard both draw
 * it (a kind's figure.tsx imports figures/ only, eslint.config.js): per attribute its agreement
 * (α), its values' prevalence and α, the corpus label × the listeners' majority as a heat map, and
 * for a single attribute Dawid–Skene's agreement with the corpus beside the majority's, with each
 * listener's estimated reliability.
 */
import type { ReactElement, ReactNode } from 'react';
import { fixed, percent } from '../../figures/chart';
import { HeatMap } from '../../figures/HeatMap';

/** What the figure reads of one attribute of the report's `annotation` section (trials/tags/report.ts AttributeSection). */
export interface TagsFigureAttribute {
  attribute: string;
  type: 'single' | 'multi';
  items: number;
  answers: number;
  alpha: number | null;
  alpha_jaccard?: number | null;
  per_value: ReadonlyArray<{ value: string; prevalence: number | null; alpha: number | null }>;
  metadata: { n: number; accuracy: number | null; cohen_kappa: number | null; confusion: ReadonlyArray<{ metadata: string; majority: string; n: number }> } | null;
  dawid_skene?: {
    iterations: number;
    converged: boolean;
    listeners: ReadonlyArray<{ listener_id: string; reliability: number | null }>;
    metadata: { n: number; accuracy: number | null; cohen_kappa: number | null } | null;
  };
}

export interface TagsFigureSection {
  attributes: readonly TagsFigureAttribute[];
}

/** A confusion label as shown: a multi attribute's empty set is written, not left blank. */
const shown = (label: string) => (label === '' ? '(none)' : label);

/** The heat map's rows or columns: a single attribute's values seen, in declared order; a multi attribute's sets seen, sorted. */
function axisOf(a: TagsFigureAttribute, labels: readonly string[]): string[] {
  return a.type === 'single' ? a.per_value.map((v) => v.value).filter((v) => labels.includes(v)) : [...new Set(labels)].sort();
}

/** The attribute's corpus label × majority heat map; null without corpus labels or answers to compare. */
function confusionMap(a: TagsFigureAttribute): ReactElement | null {
  const confusion = a.metadata?.confusion ?? [];
  if (confusion.length === 0) return null;
  const labels = [...confusion.map((c) => c.metadata), ...confusion.map((c) => c.majority)];
  // A single attribute's two axes share the values seen on either, so the agreement is the diagonal.
  const rows = axisOf(a, a.type === 'single' ? labels : confusion.map((c) => c.metadata)).map(shown);
  const columns = a.type === 'single' ? rows : axisOf(a, confusion.map((c) => c.majority)).map(shown);
  return (
    <HeatMap
      name={`tags-confusion-${a.attribute}`}
      title={`${a.attribute}: corpus label × listeners' majority (items)`}
      rowAxis="corpus label"
      columnAxis="majority"
      rows={rows}
      columns={columns}
      cells={confusion.map((c) => ({ row: shown(c.metadata), column: shown(c.majority), n: c.n }))}
    />
  );
}

/** The section's standalone figures (the paper bundle's figures/): each attribute's confusion heat map. */
export const tagsFigures = (section: TagsFigureSection): [string, ReactElement][] =>
  section.attributes.flatMap((a) => {
    const map = confusionMap(a);
    return map ? [[`tags-confusion-${a.attribute}.svg`, map] as [string, ReactElement]] : [];
  });

function AttributeFigure({ a, frame }: { a: TagsFigureAttribute; frame: (svg: ReactNode) => ReactNode }) {
  const map = confusionMap(a);
  const alphaName = a.type === 'single' ? 'α (nominal)' : 'α (MASI)';
  return (
    <div data-attribute={a.attribute}>
      <h3>{`${a.attribute} (${a.type === 'single' ? 'one value' : 'any number of values'})`}</h3>
      <table className="data" data-testid="tags-attribute">
        <caption>Agreement of the retained listeners on the scored items (Krippendorff&apos;s α; items with answers from ≥ 2 listeners)</caption>
        <thead>
          <tr><th scope="col">attribute</th><th scope="col">items</th><th scope="col">answers</th><th scope="col">{alphaName}</th>{a.type === 'multi' && <th scope="col">α (Jaccard)</th>}</tr>
        </thead>
        <tbody>
          <tr><td>{a.attribute}</td><td>{a.items}</td><td>{a.answers}</td><td>{fixed(a.alpha, 3)}</td>{a.type === 'multi' && <td>{fixed(a.alpha_jaccard, 3)}</td>}</tr>
        </tbody>
      </table>
      <table className="data" data-testid="tags-values">
        <caption>{`Per value of ${a.attribute}: the share of answers giving it and the binary α of giving it or not`}</caption>
        <thead>
          <tr><th scope="col">value</th><th scope="col">prevalence</th><th scope="col">α</th></tr>
        </thead>
        <tbody>
          {a.per_value.map((v) => (
            <tr key={v.value}><td>{v.value}</td><td>{percent(v.prevalence)}</td><td>{fixed(v.alpha, 3)}</td></tr>
          ))}
        </tbody>
      </table>
      {a.metadata === null ? <p className="muted">{`No corpus labels of ${a.attribute} to compare with.`}</p> : (
        <>
          {map && frame(map)}
          <table className="data" data-testid="tags-agreement">
            <caption>{a.type === 'single'
              ? `Agreement with the corpus labels of ${a.attribute}: accuracy and Cohen's κ of the majority and of the Dawid–Skene labels`
              : `Agreement with the corpus labels of ${a.attribute}: accuracy is the mean Jaccard similarity of the majority's set and the corpus's`}</caption>
            <thead>
              <tr><th scope="col">labels</th><th scope="col">items</th><th scope="col">accuracy</th><th scope="col">Cohen&apos;s κ</th></tr>
            </thead>
            <tbody>
              <tr><td>majority</td><td>{a.metadata.n}</td><td>{percent(a.metadata.accuracy)}</td><td>{fixed(a.metadata.cohen_kappa, 3)}</td></tr>
              {a.dawid_skene?.metadata && (
                <tr><td>Dawid–Skene</td><td>{a.dawid_skene.metadata.n}</td><td>{percent(a.dawid_skene.metadata.accuracy)}</td><td>{fixed(a.dawid_skene.metadata.cohen_kappa, 3)}</td></tr>
              )}
            </tbody>
          </table>
        </>
      )}
      {a.dawid_skene && (
        <table className="data" data-testid="tags-listeners">
          <caption>{`Dawid–Skene: each listener's estimated reliability on ${a.attribute} (the estimated probability that their label is the true one); ${a.dawid_skene.converged ? 'converged' : 'not converged'} after ${a.dawid_skene.iterations} iterations`}</caption>
          <thead>
            <tr><th scope="col">listener</th><th scope="col">reliability</th></tr>
          </thead>
          <tbody>
            {a.dawid_skene.listeners.map((l) => (
              <tr key={l.listener_id}><td>{l.listener_id}</td><td>{fixed(l.reliability, 3)}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** `frame` wraps each heat map (the dashboard's save button); the report draws it bare. */
export function TagsFigure({ section, frame = (svg) => svg }: { section: TagsFigureSection; frame?: (svg: ReactNode, attribute: string) => ReactNode }) {
  if (section.attributes.length === 0) return <p>No tags answers yet.</p>;
  return (
    <>
      {section.attributes.map((a) => <AttributeFigure key={a.attribute} a={a} frame={(svg) => frame(svg, a.attribute)} />)}
    </>
  );
}

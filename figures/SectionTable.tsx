/**
 * A report section of any shape as tables: what the HTML report and the dashboard show for a
 * trial kind that gives no view of its own (analysis/kinds/sections.tsx, client/reports/kind-panels.tsx),
 * so none of its figures is hidden. An object is a table of its fields, a list of objects one
 * table with a column per field, and anything nested the same again inside its cell.
 */
import type { ReactNode } from 'react';

type Value = unknown;

const isRecord = (v: Value): v is Record<string, Value> => typeof v === 'object' && v !== null && !Array.isArray(v);

function scalar(v: Value): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
  return String(v);
}

function cell(v: Value): ReactNode {
  return isRecord(v) || Array.isArray(v) ? <SectionTable value={v} /> : scalar(v);
}

export function SectionTable({ value }: { value: Value }): ReactNode {
  if (Array.isArray(value)) {
    if (value.length === 0) return <span>none</span>;
    if (!value.every(isRecord)) return <span>{value.map((v) => (isRecord(v) || Array.isArray(v) ? JSON.stringify(v) : scalar(v))).join(', ')}</span>;
    const columns = [...new Set(value.flatMap((row) => Object.keys(row)))];
    return (
      <table>
        <thead><tr>{columns.map((c) => <th key={c} scope="col">{c}</th>)}</tr></thead>
        <tbody>{value.map((row, r) => <tr key={r}>{columns.map((c) => <td key={c}>{cell(row[c])}</td>)}</tr>)}</tbody>
      </table>
    );
  }
  if (!isRecord(value)) return <span>{scalar(value)}</span>;
  return (
    <table>
      <tbody>{Object.entries(value).map(([k, v]) => <tr key={k}><th scope="row">{k}</th><td>{cell(v)}</td></tr>)}</tbody>
    </table>
  );
}

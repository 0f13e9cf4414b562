import type { ReactElement, ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Interval } from '../report';

/** Every number of the HTML report is rounded here (and only here). */
export function num(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  return x.toFixed(digits);
}
export function pct(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? '—' : `${(100 * x).toFixed(digits)}%`;
}
export function pValue(p: number | null): string {
  if (p === null) return '—';
  if (p < 1e-4) return p.toExponential(1);
  return p.toFixed(4);
}
export function ciText(ci: Interval | null | undefined, f: (x: number) => string = (x) => pct(x)): string {
  return ci ? `[${f(ci[0])}, ${f(ci[1])}]` : '—';
}

/** A table whose columns from `numericFrom` up to `numericTo` (exclusive; default all) are right-aligned numbers. */
export function Table({ head, rows, numericFrom = 1, numericTo = head.length, testId }: {
  head: ReactNode[];
  rows: ReactNode[][];
  numericFrom?: number;
  numericTo?: number;
  testId?: string;
}) {
  const cls = (i: number) => (i >= numericFrom && i < numericTo ? 'n' : undefined);
  return (
    <table data-table={testId}>
      <thead>
        <tr>{head.map((h, i) => <th key={i} className={cls(i)}>{h}</th>)}</tr>
      </thead>
      <tbody>
        {rows.map((r, k) => (
          <tr key={k}>{r.map((c, i) => <td key={i} className={cls(i)}>{c}</td>)}</tr>
        ))}
      </tbody>
    </table>
  );
}

/** The plain-language reading that follows each table. */
export const Reading = ({ children }: { children: ReactNode }) => <p className="reading">{children}</p>;

export const Muted = ({ children }: { children: ReactNode }) => <p className="muted">{children}</p>;

/** A long table folded away under a summary line (open by default when short). */
export function Folded({ summary, count, children }: { summary: string; count: number; children: ReactNode }) {
  return (
    <details open={count <= 20}>
      <summary>{summary}</summary>
      {children}
    </details>
  );
}

/** A note that a long table shows only its first rows (the JSON and CSV reports have them all). */
export function Shown({ shown, total, what }: { shown: number; total: number; what: string }) {
  return shown < total ? <Muted>{`The first ${shown} of ${total} ${what}; every one is in the JSON and CSV reports.`}</Muted> : null;
}

/**
 * A figure with its download link: the very SVG shown, as a data: URL with a file name, so a
 * saved figure is the standalone document the page shows (the page loads nothing, so neither
 * does the link).
 */
export function Downloadable({ file, children }: { file: string; children: ReactElement }) {
  const href = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderToStaticMarkup(children))}`;
  const name = `${file.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'figure'}.svg`;
  return (
    <figure>
      {children}
      <figcaption>
        <a href={href} download={name}>{`Download this figure (${name})`}</a>
      </figcaption>
    </figure>
  );
}

import { INK } from './chart';
import { Figure, Label } from './Figure';

export interface HeatCell {
  row: string;
  column: string;
  n: number;
}

/** A cell's fill: white for 0, darkening with the count to the primary ink at the largest (grey ≈ 25%). */
function shade(n: number, max: number): string {
  const t = max === 0 ? 0 : n / max;
  // From white (255) towards INK.primary (#1e40af = 30, 64, 175), channel by channel.
  const mix = (to: number) => Math.round(255 + (to - 255) * t);
  return `rgb(${mix(30)}, ${mix(64)}, ${mix(175)})`;
}

/**
 * Counts of a cross-tabulation (rows × columns), one square each, shaded by its count and with the
 * count printed in it, so the table reads in grey and in text alike; cells of equal row and column
 * name (the agreement diagonal) are outlined. A pair not in `cells` is 0. A tags study's corpus
 * label × listeners' majority; the report and the dashboard draw the same figure.
 */
export function HeatMap({ name, title, rowAxis, columnAxis, rows, columns, cells }: {
  name: string;
  title: string;
  /** what the rows are, e.g. "corpus label" */
  rowAxis: string;
  columnAxis: string;
  rows: readonly string[];
  columns: readonly string[];
  cells: readonly HeatCell[];
}) {
  const count = new Map(cells.map((c) => [JSON.stringify([c.row, c.column]), c.n]));
  const nOf = (r: string, c: string) => count.get(JSON.stringify([r, c])) ?? 0;
  const max = Math.max(0, ...cells.map((c) => c.n));
  const cell = 34, nameW = 130, T = 110, R = 16, B = 16;
  const W = nameW + 20 + columns.length * cell + R;
  const H = T + rows.length * cell + B;
  const x0 = nameW + 20;
  return (
    <Figure name={name} title={title} width={W} height={H}
      description={`Each square counts the items with that ${rowAxis} (row) and ${columnAxis} (column); darker is more, and the count is printed in it. Outlined squares are where the two agree.`}>
      <Label x={x0 + (columns.length * cell) / 2} y={14} anchor="middle" size={12} colour={INK.text}>{`${columnAxis} →`}</Label>
      <Label x={12} y={T + (rows.length * cell) / 2} anchor="middle" size={12} colour={INK.text} rotate={-90}>{`${rowAxis} →`}</Label>
      {columns.map((c, j) => (
        <Label key={c} x={x0 + j * cell + cell / 2 + 4} y={T - 8} size={11} colour={INK.text} rotate={-60}>{c}</Label>
      ))}
      {rows.map((r, i) => (
        <g key={r}>
          <Label x={x0 - 8} y={T + i * cell + cell / 2 + 4} anchor="end" size={11} colour={INK.text}>{r}</Label>
          {columns.map((c, j) => {
            const n = nOf(r, c);
            const x = x0 + j * cell, y = T + i * cell;
            return (
              <g key={c} data-row={r} data-column={c}>
                <rect x={x} y={y} width={cell} height={cell} fill={shade(n, max)} stroke={r === c ? INK.text : INK.grid} strokeWidth={r === c ? 2 : 1}>
                  <title>{`${rowAxis} ${r}, ${columnAxis} ${c}: ${n}`}</title>
                </rect>
                <text x={x + cell / 2} y={y + cell / 2 + 4} textAnchor="middle" fontSize={11} fill={max > 0 && n / max > 0.5 ? INK.background : n === 0 ? INK.muted : INK.text}>{n}</text>
              </g>
            );
          })}
        </g>
      ))}
    </Figure>
  );
}

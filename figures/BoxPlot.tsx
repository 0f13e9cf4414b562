import { fixed, INK, intervalText, scale, ticks, type Interval } from './chart';
import { Figure, Label } from './Figure';

export interface BoxRow {
  label: string;
  n: number;
  mean: number | null;
  ci95: Interval | null;
  median: number | null;
  /** the first and third quartiles */
  iqr: Interval | null;
  whiskers: Interval | null;
}

/**
 * Per row, a box plot of its scores (box: the quartiles; thick bar: the median; whiskers with caps)
 * and, just below it, the mean (dot) with its 95% interval (line). The box is hollow with a light
 * fill and the mean is solid, so the two read apart in grey as well as in colour.
 */
export function BoxPlot({ name, title, rows, range, axis }: {
  name: string;
  title: string;
  rows: readonly BoxRow[];
  range: Interval;
  axis: string;
}) {
  const rowH = 34, T = 30, B = 30, nameW = 150, plotW = 420, R = 16;
  const W = nameW + plotW + R;
  const H = T + rows.length * rowH + B;
  const [lo, hi] = range;
  const onScale = scale(lo, hi, nameW + 8, nameW + plotW - 8);
  const x = (v: number) => onScale(Math.min(hi, Math.max(lo, v)));
  const boxY = (i: number) => T + i * rowH + 11;
  const meanY = (i: number) => T + i * rowH + 25;
  return (
    <Figure name={name} title={title} width={W} height={H}
      description={`Per row on the ${lo}–${hi} scale: a box from the first to the third quartile with the median as a thick bar and Tukey's whiskers (the extremes within 1.5 IQR), and below it the mean (dot) with its 95% t-interval (line).`}>
      <Label x={nameW + plotW / 2} y={T - 12} anchor="middle" size={12} colour={INK.text}>{`${axis} (box: quartiles, median; dot and line: mean, 95% CI)`}</Label>
      {ticks(lo, hi, 10).map((t) => (
        <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={T - 6} y2={H - B} stroke={INK.grid} />
          <Label x={x(t)} y={H - B + 16} anchor="middle">{String(t)}</Label>
        </g>
      ))}
      {rows.map((r, i) => (
        <g key={r.label}>
          <Label x={nameW - 8} y={boxY(i) + 8} anchor="end" size={12} colour={INK.text}>{r.label}</Label>
          {r.whiskers && r.iqr && (
            <g stroke={INK.text}>
              <line x1={x(r.whiskers[0])} x2={x(r.iqr[0])} y1={boxY(i)} y2={boxY(i)} />
              <line x1={x(r.iqr[1])} x2={x(r.whiskers[1])} y1={boxY(i)} y2={boxY(i)} />
              <line x1={x(r.whiskers[0])} x2={x(r.whiskers[0])} y1={boxY(i) - 4} y2={boxY(i) + 4} />
              <line x1={x(r.whiskers[1])} x2={x(r.whiskers[1])} y1={boxY(i) - 4} y2={boxY(i) + 4} />
            </g>
          )}
          {r.iqr && (
            <rect x={x(r.iqr[0])} y={boxY(i) - 7} width={Math.max(1, x(r.iqr[1]) - x(r.iqr[0]))} height={14} fill={INK.panel} stroke={INK.text}>
              <title>{`${r.label}: median ${fixed(r.median, 1)}, quartiles ${intervalText(r.iqr, (v) => fixed(v, 1))}, whiskers ${intervalText(r.whiskers, (v) => fixed(v, 1))}, n = ${r.n}`}</title>
            </rect>
          )}
          {r.median !== null && <line x1={x(r.median)} x2={x(r.median)} y1={boxY(i) - 7} y2={boxY(i) + 7} stroke={INK.text} strokeWidth={3} />}
          {r.ci95 && <line x1={x(r.ci95[0])} x2={x(r.ci95[1])} y1={meanY(i)} y2={meanY(i)} stroke={INK.primary} strokeWidth={2} />}
          {r.mean !== null && (
            <circle cx={x(r.mean)} cy={meanY(i)} r={4} fill={INK.primary}>
              <title>{`${r.label}: mean ${fixed(r.mean)} ${intervalText(r.ci95, (v) => fixed(v))}, n = ${r.n}`}</title>
            </circle>
          )}
        </g>
      ))}
    </Figure>
  );
}

import { INK, intervalText, percent, scale, type Interval } from './chart';
import { Figure, Label } from './Figure';

export interface SharePoint {
  /** the row's name, e.g. "X vs Y" */
  label: string;
  /** the proportion (0–1); null when nothing was counted */
  share: number | null;
  ci95: Interval | null;
  n: number;
}

/**
 * Proportions on a 0–100 % axis, one row each, with their 95% intervals and the 50% line (no
 * preference, or chance): an A/B study's preference per system pair and an ABX study's share of
 * right answers per pair. The report and the dashboard draw the same figure.
 */
export function ShareChart({ name, title, axis, points }: {
  name: string;
  title: string;
  /** what the axis measures, e.g. "share preferring the first system" */
  axis: string;
  points: readonly SharePoint[];
}) {
  const rowH = 24, T = 30, B = 30, nameW = 170, plotW = 400, R = 16;
  const W = nameW + plotW + R;
  const H = T + points.length * rowH + B;
  const x = scale(0, 1, nameW + 8, nameW + plotW - 8);
  const rowY = (i: number) => T + i * rowH + rowH / 2;
  return (
    <Figure name={name} title={title} width={W} height={H}
      description={`Each row's ${axis} (dot) with its 95% Wilson interval (line); the dashed line is 50%.`}>
      <Label x={nameW + plotW / 2} y={T - 12} anchor="middle" size={12} colour={INK.text}>{`${axis} (95% CI)`}</Label>
      {[0, 0.25, 0.5, 0.75, 1].map((t) => (
        <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={T - 6} y2={H - B} stroke={t === 0.5 ? INK.reference : INK.grid} strokeDasharray={t === 0.5 ? '4 3' : undefined} />
          <Label x={x(t)} y={H - B + 16} anchor="middle">{`${t * 100}%`}</Label>
        </g>
      ))}
      {points.map((p, i) => (
        <g key={p.label}>
          <Label x={nameW - 8} y={rowY(i) + 4} anchor="end" size={12} colour={INK.text}>{p.label}</Label>
          {p.ci95 && <line x1={x(p.ci95[0])} x2={x(p.ci95[1])} y1={rowY(i)} y2={rowY(i)} stroke={INK.primary} strokeWidth={2} />}
          {p.share !== null && (
            <circle cx={x(p.share)} cy={rowY(i)} r={4.5} fill={INK.primary}>
              <title>{`${p.label}: ${percent(p.share)} ${intervalText(p.ci95, (v) => percent(v))}, n = ${p.n}`}</title>
            </circle>
          )}
        </g>
      ))}
    </Figure>
  );
}

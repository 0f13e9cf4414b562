import { fixed, INK, intervalText, scale, ticks, type Interval } from './chart';
import { Figure, Label } from './Figure';

export interface MosPoint {
  system: string;
  rank: number;
  n: number;
  mos: number;
  ci95: Interval | null;
  ci95_bootstrap?: Interval | null;
}

/**
 * Mean opinion score per system on the study's scale: the t-interval as a solid line and, when
 * computed, the listener-bootstrap interval as a dashed line below it (told apart by style in
 * grey, and named in the legend). The report and the live dashboard draw the same figure.
 */
export function MosChart({ systems, scale: range, measure = 'MOS' }: {
  systems: readonly MosPoint[];
  scale: Interval | null;
  /** what the scores are: a rating study's MOS, or a CCR study's CMOS (comparison mean opinion score) */
  measure?: 'MOS' | 'CMOS';
}) {
  const rowH = 24, T = 30, B = 30, nameW = 150, plotW = 420, R = 16;
  const W = nameW + plotW + R;
  const H = T + systems.length * rowH + B;
  const [lo, hi] = range ?? [Math.min(...systems.map((s) => s.mos)), Math.max(...systems.map((s) => s.mos))];
  const onScale = scale(lo, hi, nameW + 8, nameW + plotW - 8);
  // An interval wider than the scale (few ratings) is cut at its ends rather than drawn over the names.
  const x = (v: number) => onScale(Math.min(hi, Math.max(lo, v)));
  const rowY = (i: number) => T + i * rowH + rowH / 2;
  const boot = systems.some((s) => s.ci95_bootstrap);
  return (
    <Figure name={measure.toLowerCase()} title={`${measure === 'MOS' ? 'Mean' : 'Comparison mean'} opinion score per system with 95% intervals`} width={W} height={H}
      description={`Each system's mean score (dot) on the ${lo}–${hi} scale with its 95% t-interval (solid line)${boot ? ' and the listener-bootstrap interval (dashed line below)' : ''}.`}>
      <Label x={nameW + plotW / 2} y={T - 12} anchor="middle" size={12} colour={INK.text}>
        {`${measure} (95% CI: t solid${boot ? ', listener bootstrap dashed' : ''})`}
      </Label>
      {ticks(lo, hi, Math.min(8, Math.max(1, hi - lo))).map((t) => (
        <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={T - 6} y2={H - B} stroke={INK.grid} />
          <Label x={x(t)} y={H - B + 16} anchor="middle">{String(t)}</Label>
        </g>
      ))}
      {systems.map((s, i) => (
        <g key={s.system}>
          <Label x={nameW - 8} y={rowY(i) + 4} anchor="end" size={12} colour={INK.text}>{`${s.rank}. ${s.system}`}</Label>
          {s.ci95 && <line x1={x(s.ci95[0])} x2={x(s.ci95[1])} y1={rowY(i)} y2={rowY(i)} stroke={INK.primary} strokeWidth={2} />}
          {s.ci95_bootstrap && (
            <line x1={x(s.ci95_bootstrap[0])} x2={x(s.ci95_bootstrap[1])} y1={rowY(i) + 5} y2={rowY(i) + 5} stroke={INK.secondary} strokeWidth={2} strokeDasharray="5 3" />
          )}
          <circle cx={x(s.mos)} cy={rowY(i)} r={4.5} fill={INK.primary}>
            <title>{`${s.system}: ${measure} ${fixed(s.mos)} ${intervalText(s.ci95, (v) => fixed(v))}, n = ${s.n}`}</title>
          </circle>
        </g>
      ))}
    </Figure>
  );
}

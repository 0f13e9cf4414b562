import { fixed, INK, intervalText, scale, ticks, type Interval } from './chart';
import { Figure, Label } from './Figure';

export interface Strength {
  system: string;
  rank: number;
  rank_ci: number;
  log_strength: number;
  ci95: Interval;
}

/**
 * Bradley–Terry log-strengths with 95% intervals (filled circles), beside one panel per judge
 * with that judge's mean caption score per system (hollow squares: another shape, not only
 * another colour).
 */
export function StrengthChart({ systems, judges }: {
  systems: readonly Strength[];
  judges: ReadonlyArray<{ judge: string; system_means: Readonly<Record<string, number | null>> }>;
}) {
  const rowH = 22, T = 34, B = 30, nameW = 150, btW = 300, judgeW = 110, gap = 16;
  const W = nameW + btW + judges.length * (judgeW + gap) + 10;
  const H = T + systems.length * rowH + B;
  const lo = Math.min(...systems.map((s) => s.ci95[0]));
  const hi = Math.max(...systems.map((s) => s.ci95[1]));
  const x = scale(lo, hi, nameW + 8, nameW + btW - 8);
  const rowY = (i: number) => T + i * rowH + rowH / 2;
  return (
    <Figure name="bradley-terry" title="Bradley–Terry strengths with 95% intervals beside judge system means" width={W} height={H}
      description="Left: each system's Bradley–Terry log-strength from the listeners' votes (dot) with its 95% interval (line); 0 dashed. Right: each judge's mean score of the system's captions (hollow squares).">
      <Label x={nameW + btW / 2} y={T - 12} anchor="middle" size={12} colour={INK.text}>BT log-strength (95% CI)</Label>
      {lo < 0 && hi > 0 && <line x1={x(0)} x2={x(0)} y1={T - 4} y2={H - B} stroke={INK.reference} strokeDasharray="4 3" />}
      {systems.map((s, i) => (
        <g key={s.system}>
          <Label x={nameW - 8} y={rowY(i) + 4} anchor="end" size={12} colour={INK.text}>{`${s.rank}. ${s.system}`}</Label>
          <line x1={x(s.ci95[0])} x2={x(s.ci95[1])} y1={rowY(i)} y2={rowY(i)} stroke={INK.primary} strokeWidth={2} />
          <circle cx={x(s.log_strength)} cy={rowY(i)} r={4.5} fill={INK.primary}>
            <title>{`${s.system}: θ = ${fixed(s.log_strength)} ${intervalText(s.ci95, (v) => fixed(v))}, rank_ci ${s.rank_ci}`}</title>
          </circle>
        </g>
      ))}
      {ticks(lo, hi, 4).map((t) => <Label key={t} x={x(t)} y={H - B + 16} anchor="middle">{String(t)}</Label>)}
      {judges.map((j, k) => {
        const left = nameW + btW + gap + k * (judgeW + gap);
        const values = systems.map((s) => j.system_means[s.system]).filter((v): v is number => v !== null && v !== undefined);
        if (values.length === 0) return null;
        const jlo = Math.min(...values), jhi = Math.max(...values);
        const jx = scale(jlo, jhi, left + 6, left + judgeW - 6);
        return (
          <g key={j.judge}>
            <rect x={left} y={T - 4} width={judgeW} height={systems.length * rowH + 8} fill={INK.panel} stroke={INK.grid} />
            <Label x={left + judgeW / 2} y={T - 12} anchor="middle" size={12} colour={INK.text}>{`${j.judge} mean`}</Label>
            {systems.map((s, i) => {
              const v = j.system_means[s.system];
              return v === null || v === undefined ? null : (
                <rect key={s.system} x={jx(v) - 3.5} y={rowY(i) - 3.5} width={7} height={7} fill={INK.background} stroke={INK.secondary} strokeWidth={2}>
                  <title>{`${j.judge} · ${s.system}: ${fixed(v)}`}</title>
                </rect>
              );
            })}
            <Label x={left + 6} y={H - B + 16}>{fixed(jlo, 1)}</Label>
            <Label x={left + judgeW - 6} y={H - B + 16} anchor="end">{fixed(jhi, 1)}</Label>
          </g>
        );
      })}
    </Figure>
  );
}

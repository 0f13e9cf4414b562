import { fixed, INK, percent, scale, ticks } from './chart';
import { Figure, Label, ShareGrid } from './Figure';

export interface CalibrationData {
  beta0: number | null;
  beta1: number | null;
  bins: ReadonlyArray<{ lo: number; hi: number; x_mean: number; votes: number; first_chosen: number }>;
}

/**
 * Share of first-shown captions chosen per bin of the score gap (hollow circles sized by votes)
 * and the fitted logistic curve (a solid line), so the two read apart in grey.
 */
export function CalibrationChart({ judge, calibration: c }: { judge: string; calibration: CalibrationData }) {
  const W = 430, H = 250, L = 56, R = 16, T = 16, B = 40;
  const lo = Math.min(...c.bins.map((b) => b.lo));
  const hi = Math.max(...c.bins.map((b) => b.hi));
  const x = scale(lo, hi, L, W - R);
  const y = scale(0, 1, H - B, T);
  const maxVotes = Math.max(1, ...c.bins.map((b) => b.votes));
  let curve: string | null = null;
  if (c.beta0 !== null && c.beta1 !== null) {
    const pts: string[] = [];
    for (let i = 0; i <= 80; i++) {
      const v = lo + ((hi - lo) * i) / 80;
      pts.push(`${x(v).toFixed(1)},${y(1 / (1 + Math.exp(-(c.beta0 + c.beta1 * v)))).toFixed(1)}`);
    }
    curve = pts.join(' ');
  }
  return (
    <Figure name={`calibration-${judge}`} title="Calibration: share of first-shown caption chosen against the judge's score gap" width={W} height={H}
      description="Circles: observed share of votes for the caption shown first, per bin of the judge's score gap (first minus second); circle area grows with the votes in the bin. Line: the fitted logistic curve.">
      <ShareGrid left={L} right={W - R} y={y} values={[0, 0.25, 0.5, 0.75, 1]} />
      {ticks(lo, hi).map((t) => <Label key={t} x={x(t)} y={H - B + 16} anchor="middle">{String(t)}</Label>)}
      {c.bins.map((b, i) => (
        <circle key={i} cx={x(b.x_mean)} cy={y(b.first_chosen)} r={3 + 6 * Math.sqrt(b.votes / maxVotes)} fill={INK.primary} fillOpacity={0.25} stroke={INK.primary} strokeWidth={1.5}>
          <title>{`Δ≈${fixed(b.x_mean)}: ${percent(b.first_chosen)} of ${b.votes} votes`}</title>
        </circle>
      ))}
      {curve && <polyline points={curve} fill="none" stroke={INK.secondary} strokeWidth={2.5} />}
      <Label x={(L + W - R) / 2} y={H - 6} anchor="middle" size={12} colour={INK.text}>{`Δ = s(first shown) − s(second shown), ${judge}`}</Label>
      <Label x={14} y={(H - B + T) / 2} anchor="middle" size={12} colour={INK.text} rotate={-90}>first shown chosen</Label>
    </Figure>
  );
}

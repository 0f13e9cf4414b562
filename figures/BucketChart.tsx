import { fixed, INK, intervalText, percent, scale, type Interval } from './chart';
import { Figure, Label, ShareGrid } from './Figure';

export interface BucketPoint {
  bucket: number;
  lo: number;
  hi: number;
  n: number;
  agreement: number | null;
  ci95: Interval | null;
}

/** Judge–majority agreement per |Δ| bucket: a dot with its 95% Wilson interval; 50% dashed (chance). */
export function BucketChart({ buckets }: { buckets: readonly BucketPoint[] }) {
  const W = 480, H = 240, L = 56, R = 16, T = 16, B = 52;
  const x = (i: number) => L + ((i + 0.5) / Math.max(1, buckets.length)) * (W - L - R);
  const y = scale(0, 1, H - B, T);
  return (
    <Figure name="agreement-by-gap" title="Agreement by score-gap bucket with 95% Wilson intervals" width={W} height={H}
      description="One dot per bucket of the judge's score gap |Δ|: the share of decided items where the judge agrees with the listener majority, with its 95% Wilson interval. The dashed line is 50%, a coin flip.">
      <ShareGrid left={L} right={W - R} y={y} values={[0, 0.25, 0.5, 0.75, 1]} />
      {buckets.map((b, i) => (
        <g key={b.bucket}>
          <Label x={x(i)} y={H - B + 16} anchor="middle">{`B${b.bucket}`}</Label>
          <Label x={x(i)} y={H - B + 30} anchor="middle">{`${fixed(b.lo)}–${fixed(b.hi)}`}</Label>
          <Label x={x(i)} y={H - B + 44} anchor="middle">{`n=${b.n}`}</Label>
          {b.agreement !== null && b.ci95 && (
            <g>
              <line x1={x(i)} x2={x(i)} y1={y(b.ci95[0])} y2={y(b.ci95[1])} stroke={INK.primary} strokeWidth={2} />
              <line x1={x(i) - 6} x2={x(i) + 6} y1={y(b.ci95[0])} y2={y(b.ci95[0])} stroke={INK.primary} strokeWidth={2} />
              <line x1={x(i) - 6} x2={x(i) + 6} y1={y(b.ci95[1])} y2={y(b.ci95[1])} stroke={INK.primary} strokeWidth={2} />
              <circle cx={x(i)} cy={y(b.agreement)} r={5} fill={INK.primary}>
                <title>{`B${b.bucket}: ${percent(b.agreement)} ${intervalText(b.ci95, (v) => percent(v))}`}</title>
              </circle>
            </g>
          )}
        </g>
      ))}
      <Label x={14} y={(H - B + T) / 2} anchor="middle" size={12} colour={INK.text} rotate={-90}>agreement</Label>
    </Figure>
  );
}

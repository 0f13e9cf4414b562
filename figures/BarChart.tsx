import { INK } from './chart';
import { Figure, Label } from './Figure';

/** How a bar is drawn: solid dark, solid mid-grey or hollow — three marks that stay apart in grey. */
export type BarStyle = 'solid' | 'muted' | 'hollow';

const FILL: Record<BarStyle, { fill: string; stroke: string }> = {
  solid: { fill: INK.primary, stroke: INK.primary },
  muted: { fill: INK.tertiary, stroke: INK.tertiary },
  hollow: { fill: INK.background, stroke: INK.secondary },
};

/**
 * Bars of counts with an x label under each (every k-th when crowded) and, when bars differ in
 * kind, a legend inside the figure, so a saved copy explains itself.
 */
export function BarChart({ name, title, values, labels, styles, legend }: {
  name: string;
  title: string;
  values: readonly number[];
  labels: readonly string[];
  /** one per bar; default solid */
  styles?: readonly BarStyle[];
  legend?: ReadonlyArray<{ style: BarStyle; label: string }>;
}) {
  const W = 560, L = 30, B = 22, T = legend?.length ? 24 : 8;
  const H = 150 + T - 8;
  const max = Math.max(1, ...values);
  // Capped, so a histogram with one bin is a bar, not a block.
  const w = Math.min(56, (W - L) / Math.max(1, values.length));
  const every = Math.ceil(values.length / 12);
  return (
    <Figure name={name} title={title} width={W} height={H}>
      {legend?.map((k, i) => (
        <g key={k.label}>
          <rect x={L + i * 140} y={4} width={12} height={12} fill={FILL[k.style].fill} stroke={FILL[k.style].stroke} strokeWidth={2} />
          <Label x={L + i * 140 + 18} y={14} size={11} colour={INK.text}>{k.label}</Label>
        </g>
      ))}
      <line x1={L} x2={W} y1={H - B} y2={H - B} stroke={INK.reference} />
      <Label x={L - 4} y={T + 8} anchor="end" size={10}>{String(max)}</Label>
      <Label x={L - 4} y={H - B} anchor="end" size={10}>0</Label>
      {values.map((v, i) => {
        const h = ((H - B - T) * v) / max;
        const style = FILL[styles?.[i] ?? 'solid'];
        return (
          <g key={i}>
            <rect x={L + i * w + 2} width={Math.max(1, w - 4)} y={H - B - h} height={h} fill={style.fill} stroke={style.stroke} strokeWidth={2} rx={2}>
              <title>{`${labels[i]}: ${v}`}</title>
            </rect>
            {i % every === 0 && <Label x={L + i * w + w / 2} y={H - 6} anchor="middle" size={10}>{labels[i]}</Label>}
          </g>
        );
      })}
    </Figure>
  );
}

/**
 * What every figure shares: scales, tick positions and the palette. The palette is chosen for a
 * page printed or viewed in grey: the inks differ in lightness (dark, mid, light), and where two
 * series meet in one figure they also differ in line style or marker shape, never in hue alone.
 * Every colour is written into the SVG as a presentation attribute, so a figure saved on its own
 * keeps its look (no stylesheet, no classes, no CSS variables).
 */

export const INK = {
  /** text and primary marks: near black */
  text: '#1d2330',
  /** tick labels and secondary text (7:1 on white) */
  muted: '#4a5568',
  /** the main series: dark blue (grey ≈ 25%) */
  primary: '#1e40af',
  /** a second series: orange, lighter in grey (≈ 55%), always drawn dashed or hollow */
  secondary: '#c2410c',
  /** a third kind of mark: slate, between the two in grey */
  tertiary: '#64748b',
  grid: '#e2e8f0',
  /** reference lines (chance, zero) */
  reference: '#94a3b8',
  panel: '#f8fafc',
  background: '#ffffff',
} as const;

export const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/** Linear map from [d0, d1] to [r0, r1]; a zero-width domain maps to its start. */
export function scale(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0 || 1;
  return (v: number) => r0 + ((v - d0) / span) * (r1 - r0);
}

/** About `count` round tick values (steps of 1, 2, 2.5 or 5 × 10^k) within [lo, hi]. */
export function ticks(lo: number, hi: number, count = 5): number[] {
  const raw = (hi - lo) / count || 1;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(Number(t.toPrecision(10)));
  return out;
}

export type Interval = readonly [number, number];

export const fixed = (x: number | null | undefined, digits = 2): string =>
  x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(digits);

export const percent = (x: number | null | undefined, digits = 1): string =>
  x === null || x === undefined || Number.isNaN(x) ? '—' : `${(100 * x).toFixed(digits)}%`;

export const intervalText = (ci: Interval | null | undefined, f: (x: number) => string): string => (ci ? `[${f(ci[0])}, ${f(ci[1])}]` : '—');

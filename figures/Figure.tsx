import type { ReactNode } from 'react';
import { FONT, INK } from './chart';

/**
 * The frame of every figure: one standalone SVG document. It names its namespace, draws its own
 * white background and carries its fonts and colours as attributes, so the same markup shown in
 * a page, saved from the HTML report or downloaded from the dashboard looks the same anywhere.
 * role="img" with the title as its accessible name; <title> also names the file's content for
 * viewers and screen readers that open the SVG alone; <desc> says how to read it.
 */
export function Figure({ name, title, description, width, height, children }: {
  /** a short file-name-safe id (the download's name) */
  name: string;
  title: string;
  description?: string;
  width: number;
  height: number;
  children: ReactNode;
}) {
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      role="img"
      aria-label={title}
      data-figure={name}
      fontFamily={FONT}
      fontSize={12}
      fill={INK.text}
    >
      <title>{title}</title>
      {description && <desc>{description}</desc>}
      <rect x={0} y={0} width={width} height={height} fill={INK.background} />
      {children}
    </svg>
  );
}

/** Tick or axis text at (x, y). */
export function Label({ x, y, children, anchor = 'start', size = 11, colour = INK.muted, rotate, weight }: {
  x: number;
  y: number;
  children: ReactNode;
  anchor?: 'start' | 'middle' | 'end';
  size?: number;
  colour?: string;
  rotate?: number;
  weight?: number;
}) {
  return (
    <text x={x} y={y} textAnchor={anchor} fontSize={size} fill={colour} fontWeight={weight} transform={rotate === undefined ? undefined : `rotate(${rotate} ${x} ${y})`}>
      {children}
    </text>
  );
}

/** A horizontal grid line with its tick label at the left edge (a share axis, 0–100 %). */
export function ShareGrid({ left, right, y, values }: { left: number; right: number; y: (v: number) => number; values: readonly number[] }) {
  return (
    <g>
      {values.map((t) => (
        <g key={t}>
          <line x1={left} x2={right} y1={y(t)} y2={y(t)} stroke={t === 0.5 ? INK.reference : INK.grid} strokeDasharray={t === 0.5 ? '4 3' : undefined} />
          <Label x={left - 6} y={y(t) + 4} anchor="end">{`${t * 100}%`}</Label>
        </g>
      ))}
    </g>
  );
}

/**
 * The paper's figures as standalone SVG files, drawn by the very components the HTML report and
 * the dashboard draw (figures/*.tsx) through React's server renderer: one renderer for all three.
 * One agreement-by-gap and one calibration figure per judge, the Bradley–Terry forest plot beside
 * the judges' system means, the MOS per system, and each registered kind's own (KIND_FIGURES).
 */
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { BucketChart } from '../../figures/BucketChart';
import { CalibrationChart } from '../../figures/CalibrationChart';
import { MosChart } from '../../figures/MosChart';
import { StrengthChart } from '../../figures/StrengthChart';
import type { Report } from '../report';
import { ANALYSIS_KINDS } from '../kinds/index';
import { KIND_FIGURES } from '../kinds/sections';

const svg = (element: ReactElement) => `<?xml version="1.0" encoding="UTF-8"?>\n${renderToStaticMarkup(element)}\n`;

/** A judge's name as a file-name part: letters, digits, dot and dash. */
const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9.]+/g, '-').replace(/^-+|-+$/g, '') || 'judge';

/** figures/<name>.svg → its text, in a fixed order. */
export function paperFigures(report: Report): [string, string][] {
  const out: [string, string][] = [];
  const taken = new Set<string>();
  // Two judges whose names differ only in what a file name cannot hold get numbered apart.
  const judgeSlug = (name: string, index: number) => {
    const s = slug(name);
    const unique = taken.has(s) ? `${s}-${index + 1}` : s;
    taken.add(unique);
    return unique;
  };
  report.judges.forEach((j, index) => {
    const name = judgeSlug(j.judge, index);
    if (j.buckets.length) out.push([`agreement-by-gap-${name}.svg`, svg(createElement(BucketChart, { buckets: j.buckets }))]);
    if (j.calibration.bins.length) out.push([`calibration-${name}.svg`, svg(createElement(CalibrationChart, { judge: j.judge, calibration: j.calibration }))]);
  });
  if (report.bradley_terry.systems.length) {
    out.push(['bradley-terry.svg', svg(createElement(StrengthChart, { systems: report.bradley_terry.systems, judges: report.judges }))]);
  }
  if (report.ratings?.systems.length) out.push(['mos.svg', svg(createElement(MosChart, { systems: report.ratings.systems, scale: report.ratings.scale }))]);
  // Each registered kind's own figures (MUSHRA's box plots, the tags confusion heat maps), by the same components as its HTML section.
  const sections = report as unknown as Record<string, unknown>;
  for (const kind of ANALYSIS_KINDS) {
    const section = sections[kind.section];
    if (section !== undefined) for (const [name, element] of KIND_FIGURES[kind.kind]?.(section) ?? []) out.push([name, svg(element)]);
  }
  return out;
}

import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { ReportPage } from './report-page/Page';
import type { Report } from './report';
import type { ReportHeader } from './study-settings';

/**
 * The report as one self-contained HTML page: inline CSS and inline SVG, no scripts, no
 * network, so it opens from disk and can be served as is for a live study. It is rendered from
 * components (report-page/, with the figures shared with the dashboard in figures/) by React's
 * server renderer, which escapes every text and attribute: names from a bundle cannot become
 * markup. Every number is rounded in report-page/parts.tsx; each table is followed by a
 * plain-language reading; each figure has a link that saves it as a standalone SVG.
 */
export function renderReportHtml(report: Report, header?: ReportHeader): string {
  return `<!doctype html>\n${renderToStaticMarkup(createElement(ReportPage, { report, header }))}\n`;
}

import type { Report } from '../report';

/**
 * The report's header: what the report is and how to read its numbers. The one place for the
 * study's name, the export time and the rules in force, so the page shows them once, above the
 * sections.
 */
export function ReportHeader(_props: { report: Report }) {
  return (
    <header>
      <h1>Listening study report</h1>
      <p className="muted">Definitions follow the Earmark analysis specification. Intervals are 95%.</p>
    </header>
  );
}

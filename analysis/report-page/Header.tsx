import type { ReportHeader as Header } from '../study-settings';

/** "2026-12-02T03:10:00.123Z" → "2026-12-02 03:10:00 UTC" */
const when = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');

/**
 * The report's header: what the report is and how to read its numbers. The one place for the
 * study's name, the export time and the rules in force (docs/analysis-spec.md), so the page shows
 * them once, above the sections. A report without a header (a bare bundle, a test) says only how
 * to read it.
 */
export function ReportHeader({ header }: { header?: Header }) {
  const name = header?.title ? `${header.title}${header.study ? ` (${header.study})` : ''}` : (header?.study ?? 'a bundle without study.json');
  return (
    <header>
      <h1>Listening study report</h1>
      {header && (
        <>
          <p data-header="study">
            {'Study: '}<b>{name}</b>
            {`. Exported ${header.exportedAt ? when(header.exportedAt) : 'at an unknown time (no study.json)'}.`}
          </p>
          <p data-header="rules">{`Exclusion rules in force: ${header.rules.map((r) => r.description).join('; ')}.`}</p>
        </>
      )}
      <p className="muted">
        {header ? 'Definitions follow the Earmark analysis specification (docs/analysis-spec.md). Intervals are 95%.' : 'Definitions follow the Earmark analysis specification. Intervals are 95%.'}
      </p>
    </header>
  );
}

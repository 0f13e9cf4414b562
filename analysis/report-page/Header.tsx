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
          <PlanLines plan={header.plan} />
        </>
      )}
      <p className="muted">
        {header ? 'Definitions follow the Earmark analysis specification (docs/analysis-spec.md). Intervals are 95%.' : 'Definitions follow the Earmark analysis specification. Intervals are 95%.'}
      </p>
    </header>
  );
}

/** The frozen analysis plan: its hash, its recorded changes with their reasons, and this analysis's departures from it. */
function PlanLines({ plan }: { plan: Header['plan'] }) {
  if (!plan) return <p data-header="plan">No frozen analysis plan (the study was not opened in this version of Earmark, or the bundle has no study.json).</p>;
  return (
    <>
      <p data-header="plan">
        {'Analysis plan '}<code>{plan.hash}</code>{`, frozen ${when(plan.frozenAt)}; `}
        {plan.changes.length === 0 ? 'no recorded change' : `${plan.changes.length} recorded change${plan.changes.length === 1 ? '' : 's'}`}
        {plan.deviations.length === 0 ? '; this analysis follows it.' : `; this analysis departs from it: ${plan.deviations.join('; ')}.`}
      </p>
      {plan.changes.length > 0 && (
        <ul data-header="plan-changes">
          {plan.changes.map((c) => <li key={c.toHash + c.at}>{`${when(c.at)}: ${c.changed.join('; ')} — reason: ${c.reason}`}</li>)}
        </ul>
      )}
    </>
  );
}

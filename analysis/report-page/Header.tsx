import type { PlanReport } from '../plan';
import type { ReportHeader as Header } from '../study-settings';

/** "2026-12-02T03:10:00.123Z" → "2026-12-02 03:10:00 UTC" */
const when = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');

/**
 * The report's header: what the report is and how to read its numbers. The one place for the
 * study's name, the export time and the rules in force (docs/analysis-spec.md), so the page shows
 * them once, above the sections. A report without a header (a bare bundle, a test) says only how
 * to read it.
 */
export function ReportHeader({ header, plan }: { header?: Header; plan?: PlanReport }) {
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
      {plan && <PlanLine plan={plan} />}
      <p className="muted">
        {header ? 'Definitions follow the Earmark analysis specification (docs/analysis-spec.md). Intervals are 95%.' : 'Definitions follow the Earmark analysis specification. Intervals are 95%.'}
      </p>
    </header>
  );
}

const value = (v: unknown) => (v === undefined || v === null ? 'none' : JSON.stringify(v));

/** The frozen analysis plan: its hash (or that it does not match its settings) and every deviation from it. */
function PlanLine({ plan }: { plan: PlanReport }) {
  return (
    <div data-header="plan">
      <p>
        {'Analysis plan frozen '}{when(plan.frozen_at)}{', hash '}<code>{plan.hash}</code>
        {plan.hash_matches ? '.' : <b>{` does NOT match its settings (they hash to ${plan.computed_hash}): the plan was changed after it was frozen.`}</b>}
        {plan.deviations.length === 0 ? ' No deviations.' : ` Deviations (${plan.deviations.length}):`}
      </p>
      {plan.deviations.length > 0 && (
        <ul>
          {plan.deviations.map((d, i) => (
            <li key={i} data-deviation={d.field}>
              {`${d.field}: ${value(d.planned)} → ${value(d.applied)}; `}
              {d.recorded ? `recorded ${when(d.at!)}: ${d.reason}` : 'not recorded in the plan (a flag, or study.json changed after freezing)'}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

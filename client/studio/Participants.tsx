import type { ParticipantRow, ParticipantTable } from '../../contract/reports';
import { REASONS } from '../reports/Dashboard';
import { downloadApprovals, errorText, studio } from './api';
import { usePolled } from './usePolled';

const POLL_MS = 10_000;

function ParticipantLine({ row }: { row: ParticipantRow }) {
  const { progress, attention } = row;
  return (
    <tr data-listener={row.listener} data-participant={row.participant ?? undefined}>
      <td>
        {row.participant ?? <span className="muted">no platform id</span>}
        <div className="muted small" title={Object.entries(row.external).map(([k, v]) => `${k}=${v}`).join('\n')}>
          {new Date(row.startedAt).toLocaleString()}
        </div>
      </td>
      <td className="n">
        {progress.done}/{progress.total}
      </td>
      <td className="n">{attention ? `${attention.correct}/${attention.answered}` : '—'}</td>
      <td>{row.status === 'screened_out' ? 'failed: screened out' : (row.screening ?? <span className="muted">not run</span>)}</td>
      <td>{row.excludedFor.map((r) => REASONS[r] ?? r).join(', ') || <span className="muted">—</span>}</td>
      <td>{row.completionCode ? <code>{row.completionCode}</code> : <span className="muted">not shown</span>}</td>
      <td>
        <span className={`decision ${row.decision.toLowerCase()}`}>{row.decision}</span>
        {row.decision === 'APPROVE' && !row.inAnalysis && row.excludedFor.length > 0 && <div className="small">excluded from analysis</div>}
        <div className="muted small">{row.reason}</div>
      </td>
    </tr>
  );
}

function ParticipantTableView({ rows, testId, empty }: { rows: ParticipantRow[]; testId: string; empty: string }) {
  return (
    <div className="table-scroll">
      <table className="data" data-testid={testId}>
        <thead>
          <tr>
            <th>participant</th>
            <th className="n">progress</th>
            <th className="n">attention</th>
            <th>screening</th>
            <th>excluded for</th>
            <th>completion code</th>
            <th>decision</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && (
            <tr>
              <td colSpan={7} className="muted">
                {empty}
              </td>
            </tr>
          )}
          {rows.map((r) => (
            <ParticipantLine key={r.listener} row={r} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Every listener of a study with their platform id, progress, attention, screening and the
 * analysis' exclusions, and the approve/reject file for Prolific (or MTurk). Polls while open.
 */
export function Participants({ study }: { study: string }) {
  const { data, error, setError } = usePolled<ParticipantTable>(() => studio.participants(study), POLL_MS, study);
  const rows = data?.participants ?? null;

  const withId = rows?.filter((r) => r.participant !== null).length ?? 0;
  // Those who only opened the link are listed apart: they submitted nothing.
  const took = rows?.filter((r) => r.status !== 'opened') ?? [];
  const opened = rows?.filter((r) => r.status === 'opened') ?? [];
  return (
    <section className="card" aria-labelledby="participants-title">
      <div className="section-head">
        <h2 id="participants-title">Participants</h2>
        {error && <span className="notice small">{error}</span>}
        <div className="head-actions">
          <button type="button" className="secondary" disabled={withId === 0} onClick={() => void downloadApprovals(study).catch((e) => setError(errorText(e)))}>
            Approve/reject CSV
          </button>
        </div>
      </div>
      <p className="muted small">
        Exclusions are the analysis report&rsquo;s, under the study&rsquo;s rules. The CSV lists the {withId} listener{withId === 1 ? '' : 's'} with a
        Prolific or MTurk id: APPROVE; REJECT (with Prolific&rsquo;s rejection category) only on the grounds the study&rsquo;s{' '}
        <code>approvals.rejectFor</code> names — every other exclusion is approved and left out of the analysis; RETURN for those the headphone
        check screened out and for those who left part-way. Each reason says what was measured against what.
      </p>
      {rows === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <>
          <ParticipantTableView rows={took} testId="participants" empty="No listeners yet." />
          {opened.length > 0 && (
            <>
              <h3 className="small">Opened the link only</h3>
              <p className="muted small">No check taken, no trial answered: nothing to approve or reject (listed last in the CSV, as NONE).</p>
              <ParticipantTableView rows={opened} testId="participants-opened" empty="" />
            </>
          )}
        </>
      )}
    </section>
  );
}

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
      <td>{row.screening ?? <span className="muted">not run</span>}</td>
      <td>{row.excludedFor.map((r) => REASONS[r] ?? r).join(', ') || <span className="muted">—</span>}</td>
      <td>{row.completionCode ? <code>{row.completionCode}</code> : <span className="muted">not shown</span>}</td>
      <td>
        <span className={`decision ${row.decision.toLowerCase()}`}>{row.decision}</span>
        <div className="muted small">{row.reason}</div>
      </td>
    </tr>
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
        Prolific or MTurk id: APPROVE, or REJECT with the reason and Prolific&rsquo;s rejection category. Unfinished sessions are listed as REJECT
        (no code shown) — check them before you upload.
      </p>
      {rows === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <div className="table-scroll">
          <table className="data" data-testid="participants">
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
                    No listeners yet.
                  </td>
                </tr>
              )}
              {rows.map((r) => (
                <ParticipantLine key={r.listener} row={r} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

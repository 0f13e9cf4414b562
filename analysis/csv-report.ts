import { csvLines } from './csv';
import type { Report } from './report';

/**
 * The report as one CSV per section (analysis-spec §3: "one file per section"), for
 * spreadsheets and R/pandas. Numbers are written in full; only the HTML rounds.
 */
function csv(header: string[], rows: unknown[][]): string {
  return [...csvLines(header, rows.map((r) => r.map((v) => (Array.isArray(v) ? v.join(' ') : v))))].join('');
}

export function reportCsvFiles(report: Report): Record<string, string> {
  const l = report.listeners;
  const files: Record<string, string> = {
    'listeners.csv': csv(['total', 'retained', 'attention_pass_rate'], [[l.total, l.retained, l.attention_pass_rate]]),
    'excluded.csv': csv(['listener_id', 'reason', 'reasons', 'correct', 'answered'],
      l.excluded.map((e) => [e.listener_id, e.reason, e.reasons, e.correct, e.answered])),
    'excluded_by_reason.csv': csv(['reason', 'excluded', 'not_run'],
      [...new Set([...Object.keys(l.excluded_by_reason), ...Object.keys(l.not_run_by_reason)])]
        .map((r) => [r, l.excluded_by_reason[r] ?? 0, l.not_run_by_reason[r] ?? 0])),
    'reliability.csv': csv(Object.keys(report.reliability), [Object.values(report.reliability)]),
    'judges.csv': csv(['judge', 'n', 'n_delta_zero', 'agreement', 'ci95_lo', 'ci95_hi', 'cohen_kappa', 'p_value', 'bootstrap_ci95_lo', 'bootstrap_ci95_hi'],
      report.judges.map((j) => [j.judge, j.n, j.n_delta_zero, j.agreement, j.ci95?.[0], j.ci95?.[1], j.cohen_kappa, j.p_value, j.bootstrap_ci95?.[0], j.bootstrap_ci95?.[1]])),
    'buckets.csv': csv(['judge', 'bucket', 'lo', 'hi', 'n', 'agreement', 'ci95_lo', 'ci95_hi', 'p_value'],
      report.judges.flatMap((j) => j.buckets.map((b) => [j.judge, b.bucket, b.lo, b.hi, b.n, b.agreement, b.ci95?.[0], b.ci95?.[1], b.p_value]))),
    'calibration.csv': csv(['judge', 'votes', 'beta0', 'beta1', 'se_beta0', 'se_beta1', 'position_bias'],
      report.judges.map((j) => {
        const c = j.calibration;
        return [j.judge, c.votes, c.beta0, c.beta1, c.se_beta0, c.se_beta1, c.position_bias];
      })),
    'calibration_bins.csv': csv(['judge', 'lo', 'hi', 'x_mean', 'votes', 'first_chosen'],
      report.judges.flatMap((j) => j.calibration.bins.map((b) => [j.judge, b.lo, b.hi, b.x_mean, b.votes, b.first_chosen]))),
    'system_means.csv': csv(['judge', 'system', 'mean_score'],
      report.judges.flatMap((j) => Object.entries(j.system_means).map(([s, m]) => [j.judge, s, m]))),
    'ranking.csv': csv(['judge', 'systems', 'spearman_rho', 'kendall_tau'],
      report.judges.map((j) => [j.judge, j.ranking.systems, j.ranking.spearman_rho, j.ranking.kendall_tau])),
    'bradley_terry.csv': csv(['system', 'log_strength', 'se', 'ci95_lo', 'ci95_hi', 'rank', 'rank_ci', 'bootstrap_ci95_lo', 'bootstrap_ci95_hi'],
      report.bradley_terry.systems.map((s) => [s.system, s.log_strength, s.se, s.ci95[0], s.ci95[1], s.rank, s.rank_ci, s.bootstrap_ci95?.[0], s.bootstrap_ci95?.[1]])),
  };
  if (report.bradley_terry.error) files['bradley_terry_error.csv'] = csv(['error'], [[report.bradley_terry.error]]);
  if (report.input) files['skipped_rows.csv'] = csv(['reason', 'rows'], Object.entries(report.input.skipped_by_reason));
  return files;
}

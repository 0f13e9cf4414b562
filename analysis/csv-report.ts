import { csvLines } from './csv';
import { ANALYSIS_KINDS } from './kinds/index';
import type { Report } from './report';

/**
 * The report as one CSV per section (analysis-spec §3: "one file per section"), for
 * spreadsheets and R/pandas. Numbers are written in full; only the HTML rounds.
 */
function csv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return [...csvLines(header, rows.map((r) => r.map((v) => (Array.isArray(v) ? v.join(' ') : v))))].join('');
}

export function reportCsvFiles(report: Report): Record<string, string> {
  const l = report.listeners;
  // An A/B study's ties are a table of their own (ties.csv), not a cell of reliability.csv.
  const { ties, ...reliability } = report.reliability;
  const files: Record<string, string> = {
    'listeners.csv': csv(['total', 'retained', 'attention_pass_rate'], [[l.total, l.retained, l.attention_pass_rate]]),
    'excluded.csv': csv(['listener_id', 'reason', 'reasons', 'correct', 'answered'],
      l.excluded.map((e) => [e.listener_id, e.reason, e.reasons, e.correct, e.answered])),
    'excluded_by_reason.csv': csv(['reason', 'excluded', 'not_run'],
      [...new Set([...Object.keys(l.excluded_by_reason), ...Object.keys(l.not_run_by_reason)])]
        .map((r) => [r, l.excluded_by_reason[r] ?? 0, l.not_run_by_reason[r] ?? 0])),
    'reliability.csv': csv(Object.keys(reliability), [Object.values(reliability)]),
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
  if (ties) {
    files['ties.csv'] = csv(['system_a', 'system_b', 'ties', 'votes'], ties.per_system_pair.map((p) => [p.system_a, p.system_b, p.ties, p.votes]));
  }
  if (report.items) {
    files['item_votes.csv'] = csv(['item_id', 'utterance_id', 'system_a', 'system_b', 'votes', 'votes_a', 'votes_b', 'majority', 'majority_share', 'split', ...(ties ? ['ties'] : [])],
      report.items.map((i) => [i.item_id, i.utterance_id, i.system_a, i.system_b, i.votes, i.votes_a, i.votes_b, i.majority, i.majority_share, i.split, ...(ties ? [i.ties] : [])]));
  }
  const q = report.listener_quality;
  const pairs = q.some((x) => x.majority_items !== undefined);
  const rated = q.some((x) => x.panel_n !== undefined);
  files['listener_quality.csv'] = csv([
    'listener_id', 'retained', 'reasons', 'answers', 'attention_answered', 'attention_correct', 'attention_score', 'median_response_ms',
    ...(pairs ? ['majority_items', 'majority_agreement', 'majority_agreement_ci95_lo', 'majority_agreement_ci95_hi'] : []),
    ...(rated ? ['panel_r', 'panel_n', 'panel_r_ci95_lo', 'panel_r_ci95_hi'] : []),
    'flags',
  ], q.map((x) => [
    x.listener_id, x.retained, x.reasons, x.answers, x.attention_answered, x.attention_correct, x.attention_score, x.median_response_ms,
    ...(pairs ? [x.majority_items, x.majority_agreement, x.majority_agreement_ci95?.[0], x.majority_agreement_ci95?.[1]] : []),
    ...(rated ? [x.panel_r, x.panel_n, x.panel_r_ci95?.[0], x.panel_r_ci95?.[1]] : []),
    x.flags,
  ]));
  if (report.bradley_terry.error) files['bradley_terry_error.csv'] = csv(['error'], [[report.bradley_terry.error]]);
  if (report.input) files['skipped_rows.csv'] = csv(['reason', 'rows'], Object.entries(report.input.skipped_by_reason));
  const r = report.ratings;
  if (r) {
    files['ratings.csv'] = csv(['system', 'n', 'mos', 'sd', 'ci95_lo', 'ci95_hi', 'ci95_bootstrap_lo', 'ci95_bootstrap_hi', 'rank', 'rank_ci'],
      r.systems.map((s) => [s.system, s.n, s.mos, s.sd, s.ci95?.[0], s.ci95?.[1], s.ci95_bootstrap?.[0], s.ci95_bootstrap?.[1], s.rank, s.rank_ci]));
    files['ratings_summary.csv'] = csv(['scale_lo', 'scale_hi', 'votes', 'listeners', 'krippendorff_alpha_interval', 'krippendorff_alpha_ordinal'],
      [[r.scale?.[0], r.scale?.[1], r.votes, r.listeners, r.reliability.krippendorff_alpha_interval, r.reliability.krippendorff_alpha_ordinal]]);
    files['rating_items.csv'] = csv(['item_id', 'utterance_id', 'system', 'n', 'mos', 'sd', 'ci95_lo', 'ci95_hi'],
      r.items.map((c) => [c.item_id, c.utterance_id, c.system, c.n, c.mos, c.sd, c.ci95?.[0], c.ci95?.[1]]));
    if (r.scale) {
      const [lo, hi] = r.scale;
      const points = Array.from({ length: hi - lo + 1 }, (_, k) => `score_${lo + k}`);
      files['rating_spread.csv'] = csv(['system', 'n', ...points, 'median', 'q1', 'q3'],
        r.spread.map((d) => [d.system, d.n, ...d.counts, d.median, d.iqr?.[0], d.iqr?.[1]]));
    }
    files['listener_correlation.csv'] = csv(['listener_id', 'pearson_r', 'n'], r.listener_correlation.map((c) => [c.listener_id, c.pearson_r, c.n]));
  }
  // A registered kind's section as its own files (analysis/kinds); a name another section has is the kind's mistake.
  for (const kind of ANALYSIS_KINDS) {
    const section = (report as unknown as Record<string, unknown>)[kind.section];
    if (section === undefined) continue;
    for (const [name, table] of Object.entries(kind.csv(section))) {
      if (name in files) throw new Error(`kind ${kind.kind}: its CSV file ${name} is a name the report already has; name it after the kind (e.g. ${kind.kind}_${name})`);
      files[name] = csv(table.header, table.rows);
    }
  }
  return files;
}

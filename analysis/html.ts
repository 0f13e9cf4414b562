import type { RatingsReport } from './ratings';
import type { BucketReport, Interval, JudgeReport, Report } from './report';
import type { ReportHeader } from './study-settings';

/**
 * The report as one self-contained HTML page: inline CSS and inline SVG, no scripts, no
 * network, so it opens from disk and can be served as is for a live study. Every number is
 * rounded here (and only here); each table is followed by a plain-language reading.
 */

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function num(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  return x.toFixed(digits);
}
function pct(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? '—' : `${(100 * x).toFixed(digits)}%`;
}
function pValue(p: number | null): string {
  if (p === null) return '—';
  if (p < 1e-4) return p.toExponential(1);
  return p.toFixed(4);
}
function ciText(ci: Interval | null | undefined, f: (x: number) => string = (x) => pct(x)): string {
  return ci ? `[${f(ci[0])}, ${f(ci[1])}]` : '—';
}

function table(head: string[], rows: string[][], numericFrom = 1): string {
  const th = head.map((h, i) => `<th${i >= numericFrom ? ' class="n"' : ''}>${h}</th>`).join('');
  const tr = rows.map((r) => `<tr>${r.map((c, i) => `<td${i >= numericFrom ? ' class="n"' : ''}>${c}</td>`).join('')}</tr>`).join('');
  return `<table><thead><tr>${th}</tr></thead><tbody>${tr}</tbody></table>`;
}

const reading = (text: string) => `<p class="reading">${text}</p>`;

/** Linear scale helper. */
function scale(d0: number, d1: number, r0: number, r1: number) {
  const span = d1 - d0 || 1;
  return (v: number) => r0 + ((v - d0) / span) * (r1 - r0);
}

function ticks(lo: number, hi: number, count = 5): number[] {
  const raw = (hi - lo) / count || 1;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(Number(t.toPrecision(10)));
  return out;
}

function bucketChart(buckets: BucketReport[]): string {
  const W = 480, H = 240, L = 56, R = 16, T = 16, B = 52;
  const x = (i: number) => L + ((i + 0.5) / buckets.length) * (W - L - R);
  const y = scale(0, 1, H - B, T);
  const grid = [0, 0.25, 0.5, 0.75, 1].map((t) =>
    `<line x1="${L}" x2="${W - R}" y1="${y(t)}" y2="${y(t)}" class="${t === 0.5 ? 'chance' : 'grid'}"/><text x="${L - 6}" y="${y(t) + 4}" class="tick" text-anchor="end">${t * 100}%</text>`).join('');
  const marks = buckets.map((b, i) => {
    const label = `<text x="${x(i)}" y="${H - B + 16}" class="tick" text-anchor="middle">B${b.bucket}</text><text x="${x(i)}" y="${H - B + 30}" class="tick" text-anchor="middle">${num(b.lo, 2)}–${num(b.hi, 2)}</text><text x="${x(i)}" y="${H - B + 44}" class="tick" text-anchor="middle">n=${b.n}</text>`;
    if (b.agreement === null || !b.ci95) return label;
    return `${label}<line x1="${x(i)}" x2="${x(i)}" y1="${y(b.ci95[0])}" y2="${y(b.ci95[1])}" class="err"/>` +
      `<line x1="${x(i) - 6}" x2="${x(i) + 6}" y1="${y(b.ci95[0])}" y2="${y(b.ci95[0])}" class="err"/><line x1="${x(i) - 6}" x2="${x(i) + 6}" y1="${y(b.ci95[1])}" y2="${y(b.ci95[1])}" class="err"/>` +
      `<circle cx="${x(i)}" cy="${y(b.agreement)}" r="5" class="dot"><title>B${b.bucket}: ${pct(b.agreement)} ${ciText(b.ci95)}</title></circle>`;
  }).join('');
  return `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Agreement by score-gap bucket with 95% Wilson intervals">${grid}${marks}<text x="14" y="${(H - B + T) / 2}" class="axis" transform="rotate(-90 14 ${(H - B + T) / 2})" text-anchor="middle">agreement</text></svg>`;
}

function calibrationChart(j: JudgeReport): string {
  const c = j.calibration;
  if (c.bins.length === 0) return '<p class="muted">No votes with judge scores.</p>';
  const W = 430, H = 250, L = 56, R = 16, T = 16, B = 40;
  const lo = Math.min(...c.bins.map((b) => b.lo));
  const hi = Math.max(...c.bins.map((b) => b.hi));
  const x = scale(lo, hi, L, W - R);
  const y = scale(0, 1, H - B, T);
  const maxVotes = Math.max(...c.bins.map((b) => b.votes));
  const grid = [0, 0.25, 0.5, 0.75, 1].map((t) =>
    `<line x1="${L}" x2="${W - R}" y1="${y(t)}" y2="${y(t)}" class="${t === 0.5 ? 'chance' : 'grid'}"/><text x="${L - 6}" y="${y(t) + 4}" class="tick" text-anchor="end">${t * 100}%</text>`).join('');
  const xt = ticks(lo, hi).map((t) => `<text x="${x(t)}" y="${H - B + 16}" class="tick" text-anchor="middle">${t}</text>`).join('');
  const dots = c.bins.map((b) =>
    `<circle cx="${x(b.x_mean)}" cy="${y(b.first_chosen)}" r="${3 + 6 * Math.sqrt(b.votes / maxVotes)}" class="bin"><title>Δ≈${num(b.x_mean, 2)}: ${pct(b.first_chosen)} of ${b.votes} votes</title></circle>`).join('');
  let curve = '';
  if (c.beta0 !== null && c.beta1 !== null) {
    const pts: string[] = [];
    for (let i = 0; i <= 80; i++) {
      const v = lo + ((hi - lo) * i) / 80;
      pts.push(`${x(v).toFixed(1)},${y(1 / (1 + Math.exp(-(c.beta0 + c.beta1 * v)))).toFixed(1)}`);
    }
    curve = `<polyline points="${pts.join(' ')}" class="curve"/>`;
  }
  return `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Calibration: share of first-shown caption chosen against the judge's score gap">${grid}${xt}${dots}${curve}` +
    `<text x="${(L + W - R) / 2}" y="${H - 6}" class="axis" text-anchor="middle">Δ = s(first shown) − s(second shown), ${esc(j.judge)}</text>` +
    `<text x="14" y="${(H - B + T) / 2}" class="axis" transform="rotate(-90 14 ${(H - B + T) / 2})" text-anchor="middle">first shown chosen</text></svg>`;
}

function strengthChart(report: Report): string {
  const systems = report.bradley_terry.systems;
  const judges = report.judges;
  const rowH = 22, T = 34, B = 30, nameW = 150, btW = 300, judgeW = 110, gap = 16;
  const W = nameW + btW + judges.length * (judgeW + gap) + 10;
  const H = T + systems.length * rowH + B;
  const lo = Math.min(...systems.map((s) => s.ci95[0]));
  const hi = Math.max(...systems.map((s) => s.ci95[1]));
  const x = scale(lo, hi, nameW + 8, nameW + btW - 8);
  const rowY = (i: number) => T + i * rowH + rowH / 2;
  const zero = lo < 0 && hi > 0 ? `<line x1="${x(0)}" x2="${x(0)}" y1="${T - 4}" y2="${H - B}" class="chance"/>` : '';
  const bt = systems.map((s, i) =>
    `<text x="${nameW - 8}" y="${rowY(i) + 4}" text-anchor="end" class="label">${s.rank}. ${esc(s.system)}</text>` +
    `<line x1="${x(s.ci95[0])}" x2="${x(s.ci95[1])}" y1="${rowY(i)}" y2="${rowY(i)}" class="err"/>` +
    `<circle cx="${x(s.log_strength)}" cy="${rowY(i)}" r="4.5" class="dot"><title>${esc(s.system)}: θ = ${num(s.log_strength, 2)} ${ciText(s.ci95, (v) => num(v, 2))}, rank_ci ${s.rank_ci}</title></circle>`).join('');
  const btTicks = ticks(lo, hi, 4).map((t) => `<text x="${x(t)}" y="${H - B + 16}" class="tick" text-anchor="middle">${t}</text>`).join('');
  const panels = judges.map((j, k) => {
    const left = nameW + btW + gap + k * (judgeW + gap);
    const values = systems.map((s) => j.system_means[s.system]).filter((v): v is number => v !== null && v !== undefined);
    if (values.length === 0) return '';
    const jlo = Math.min(...values), jhi = Math.max(...values);
    const jx = scale(jlo, jhi, left + 6, left + judgeW - 6);
    const dots = systems.map((s, i) => {
      const v = j.system_means[s.system];
      return v === null || v === undefined ? '' : `<circle cx="${jx(v)}" cy="${rowY(i)}" r="4" class="jdot"><title>${esc(j.judge)} · ${esc(s.system)}: ${num(v, 2)}</title></circle>`;
    }).join('');
    return `<rect x="${left}" y="${T - 4}" width="${judgeW}" height="${systems.length * rowH + 8}" class="panel"/>` +
      `<text x="${left + judgeW / 2}" y="${T - 12}" text-anchor="middle" class="axis">${esc(j.judge)} mean</text>${dots}` +
      `<text x="${left + 6}" y="${H - B + 16}" class="tick">${num(jlo, 1)}</text><text x="${left + judgeW - 6}" y="${H - B + 16}" class="tick" text-anchor="end">${num(jhi, 1)}</text>`;
  }).join('');
  return `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Bradley–Terry strengths with 95% intervals beside judge system means">` +
    `<text x="${nameW + btW / 2}" y="${T - 12}" text-anchor="middle" class="axis">BT log-strength (95% CI)</text>${zero}${bt}${btTicks}${panels}</svg>`;
}

function alphaReading(alpha: number | null): string {
  if (alpha === null) return 'Krippendorff’s α could not be computed (fewer than two votes per item, or only one caption ever chosen).';
  const level = alpha >= 0.8 ? 'high: listeners largely agree' : alpha >= 0.667 ? 'moderate: enough for tentative conclusions by Krippendorff’s rule of thumb (α ≥ 0.667)' :
    alpha > 0 ? 'above chance but low: listeners often disagree, so single items are noisy and conclusions should rest on majorities and aggregates' : 'at or below chance: listeners do not agree';
  return `α = ${num(alpha)} is ${level}.`;
}

/** MOS per system on the rating scale: t-interval (blue) and, when computed, the listener bootstrap (orange). */
function mosChart(r: RatingsReport): string {
  const rowH = 24, T = 30, B = 30, nameW = 150, plotW = 420, R = 16;
  const W = nameW + plotW + R;
  const H = T + r.systems.length * rowH + B;
  const [lo, hi] = r.scale ?? [Math.min(...r.systems.map((s) => s.mos)), Math.max(...r.systems.map((s) => s.mos))];
  const x = scale(lo, hi, nameW + 8, nameW + plotW - 8);
  const rowY = (i: number) => T + i * rowH + rowH / 2;
  const grid = ticks(lo, hi, Math.min(8, Math.max(1, hi - lo))).map((t) =>
    `<line x1="${x(t)}" x2="${x(t)}" y1="${T - 6}" y2="${H - B}" class="grid"/><text x="${x(t)}" y="${H - B + 16}" class="tick" text-anchor="middle">${t}</text>`).join('');
  const rows = r.systems.map((s, i) => {
    const boot = s.ci95_bootstrap ? `<line x1="${x(s.ci95_bootstrap[0])}" x2="${x(s.ci95_bootstrap[1])}" y1="${rowY(i) + 5}" y2="${rowY(i) + 5}" class="boot"/>` : '';
    const t = s.ci95 ? `<line x1="${x(s.ci95[0])}" x2="${x(s.ci95[1])}" y1="${rowY(i)}" y2="${rowY(i)}" class="err"/>` : '';
    return `<text x="${nameW - 8}" y="${rowY(i) + 4}" text-anchor="end" class="label">${s.rank}. ${esc(s.system)}</text>${t}${boot}` +
      `<circle cx="${x(s.mos)}" cy="${rowY(i)}" r="4.5" class="dot"><title>${esc(s.system)}: MOS ${num(s.mos, 2)} ${ciText(s.ci95, (v) => num(v, 2))}, n = ${s.n}</title></circle>`;
  }).join('');
  return `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Mean opinion score per system with 95% intervals">` +
    `<text x="${nameW + plotW / 2}" y="${T - 12}" text-anchor="middle" class="axis">MOS (95% CI: t blue${r.systems.some((s) => s.ci95_bootstrap) ? ', listener bootstrap orange' : ''})</text>${grid}${rows}</svg>`;
}

function ratingsSection(r: RatingsReport, excluded: ReadonlySet<string>): string {
  const hasBoot = r.systems.some((s) => s.ci95_bootstrap !== undefined);
  const top = r.systems.filter((s) => s.rank_ci === 1).map((s) => esc(s.system));
  const alpha = r.reliability.krippendorff_alpha_interval;
  const lowest = [...r.listener_correlation].sort((a, b) => (a.pearson_r ?? Infinity) - (b.pearson_r ?? Infinity));
  const shown = lowest.slice(0, 20);
  return `<section><h2>How good is each system? (ratings, MOS)</h2>
<p class="muted">${r.votes} ratings by ${r.listeners} retained listeners on a ${r.scale ? `${r.scale[0]}–${r.scale[1]}` : '—'} scale; attention items and excluded listeners left out.</p>
${r.systems.length ? mosChart(r) : ''}
${table(['rank', 'system', 'n', 'MOS', 'SD', '95% CI (t)', ...(hasBoot ? ['95% CI (listener bootstrap)'] : []), 'rank_ci'],
    r.systems.map((s) => [String(s.rank), esc(s.system), String(s.n), num(s.mos, 2), num(s.sd, 2), ciText(s.ci95, (v) => num(v, 2)),
      ...(hasBoot ? [ciText(s.ci95_bootstrap, (v) => num(v, 2))] : []), s.rank_ci === null ? '—' : String(s.rank_ci)]), 2)}
${table(['measure', 'value'], [
    ['Krippendorff’s α (interval)', num(r.reliability.krippendorff_alpha_interval)],
    ['Krippendorff’s α (ordinal)', num(r.reliability.krippendorff_alpha_ordinal)],
  ])}
${reading(`${top.length > 1 ? `Listeners cannot separate ${top.join(', ')}: their intervals overlap, so they share rank 1 (rank_ci).` : top.length ? `${top[0]} is ahead of every other system beyond its interval.` : 'No system has an interval yet.'} ` +
    `The t-interval treats every score as independent; ${hasBoot ? 'the listener bootstrap keeps each listener’s scores together, so it also reflects how listeners differ in their use of the scale — where the two differ, trust the bootstrap.' : 'run with --bootstrap to add an interval that resamples listeners, which also reflects how listeners differ in their use of the scale.'} ` +
    (alpha === null ? 'Krippendorff’s α could not be computed (fewer than two ratings per item, or one score only).' : alphaReading(alpha)))}
<h3>Does each listener agree with the panel?</h3>
${table(['listener', 'Pearson r', 'items', 'excluded'], shown.map((c) => [esc(c.listener_id), num(c.pearson_r), String(c.n), excluded.has(c.listener_id) ? 'yes' : '']), 1)}
${lowest.length > shown.length ? `<p class="muted">The ${shown.length} lowest of ${lowest.length} listeners; every listener is in the JSON and CSV reports.</p>` : ''}
${reading('Each listener’s scores against the other listeners’ mean score of the same items (ITU-T P.808’s check): a listener who rates at random has r near 0, one who reverses the scale has r below 0.')}
</section>`;
}

/** The header's lines: the study, when its data were exported, the rules in force (docs/analysis-spec.md §5). */
function headerHtml(h: ReportHeader | undefined): string {
  if (!h) return '<p class="muted">Definitions follow the Earmark analysis specification. Intervals are 95%.</p>';
  const name = h.title ? `${esc(h.title)}${h.study ? ` (${esc(h.study)})` : ''}` : h.study ? esc(h.study) : 'a bundle without study.json';
  return `<p data-header="study">Study: <b>${name}</b>. Exported ${h.exportedAt ? esc(h.exportedAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')) : 'at an unknown time (no study.json)'}.</p>
<p data-header="rules">Exclusion rules in force: ${h.rules.map((r) => esc(r.description)).join('; ')}.</p>
<p class="muted">Definitions follow the Earmark analysis specification (docs/analysis-spec.md). Intervals are 95%.</p>`;
}

export function renderReportHtml(report: Report, header?: ReportHeader): string {
  const l = report.listeners;
  const ids = header?.platformIds;
  const r = report.reliability;
  const bt = report.bradley_terry;
  const ensemble = report.judges[0];
  const sections: string[] = [];

  const excludedRows = l.excluded.map((e) => [esc(e.listener_id), ...(ids ? [esc(ids[e.listener_id] ?? '—')] : []), esc(e.reasons.join(', ')),
    e.reason === 'attention' ? `${esc(e.correct)}/${esc(e.answered)}` : esc(Object.entries(e).filter(([k]) => !['listener_id', 'reason', 'reasons'].includes(k)).map(([k, v]) => `${k} ${v}`).join(', '))]);
  sections.push(`<section><h2>Listeners</h2>
<p>${l.total} listeners took part; <b>${l.retained}</b> were retained. Attention-check pass rate over all listeners: <b>${pct(l.attention_pass_rate)}</b>.</p>
${l.excluded.length ? table(['listener', ...(ids ? ['platform id'] : []), 'reason(s)', 'detail'], excludedRows, ids ? 4 : 3) : '<p class="muted">Nobody was excluded.</p>'}
${Object.keys(l.not_run_by_reason).length ? `<p class="muted">Checks that could not run (neither pass nor fail): ${Object.entries(l.not_run_by_reason).map(([k, v]) => `${esc(k)} ${v}`).join(', ')}.</p>` : ''}
${report.input ? `<p class="warn">${report.input.skipped_rows} invalid input row(s) were skipped: ${Object.entries(report.input.skipped_by_reason).map(([k, v]) => `${esc(k)} ${v}`).join('; ')}.</p>` : ''}
${reading(`Excluded listeners are left out of everything below; counts by reason: ${Object.entries(l.excluded_by_reason).map(([k, v]) => `${esc(k)} ${v}`).join(', ') || 'none'}.`)}
</section>`);

  // A rating study without pair votes has no pair sections.
  const pairs = r.votes > 0 || !report.ratings;
  if (report.ratings) sections.push(ratingsSection(report.ratings, new Set(l.excluded.map((e) => e.listener_id))));
  if (pairs) sections.push(`<section><h2>Do listeners agree? (reliability)</h2>
${table(['measure', 'value'], [
    ['items / votes analysed', `${r.items} / ${r.votes}`],
    ['Krippendorff’s α (nominal)', num(r.krippendorff_alpha)],
    ['Fleiss’ κ', r.fleiss_kappa === null ? '— (unequal votes per item)' : num(r.fleiss_kappa)],
    ['Brennan–Prediger κ (free-marginal; independent of the a/b coding)', num(r.brennan_prediger_kappa)],
    ['mean pairwise agreement (chance 50%)', pct(r.mean_pairwise_agreement)],
    ['items split / lopsided / unanimous', `${r.split} / ${r.lopsided} / ${r.unanimous}`],
  ])}
<p class="muted">Coding of α and Fleiss’ κ: ${esc(r.coding)}.</p>
${reading(`${alphaReading(r.krippendorff_alpha)} Two listeners picked the same caption on ${pct(r.mean_pairwise_agreement)} of shared items on average. ${r.split} of ${r.items} items were split (the more popular caption got less than the split threshold of the votes).`)}
</section>`);

  if (ensemble) {
    const hasBoot = report.judges.some((j) => j.bootstrap_ci95 !== undefined);
    sections.push(`<section><h2>Does the judge prefer what the human majority prefers?</h2>
${table(['judge', 'n', 'Δ = 0', 'agreement', '95% CI (Wilson)', ...(hasBoot ? ['95% CI (bootstrap)'] : []), 'Cohen’s κ', 'p (exact binomial)'],
      report.judges.map((j) => [esc(j.judge), String(j.n), String(j.n_delta_zero), pct(j.agreement), ciText(j.ci95), ...(hasBoot ? [ciText(j.bootstrap_ci95)] : []), num(j.cohen_kappa), pValue(j.p_value)]))}
${reading(ensemble.agreement === null ? 'No item had both a human majority and a judge preference.' :
      `On the ${ensemble.n} items where listeners had a majority and the ensemble had a preference, the ensemble agreed with the majority on ${pct(ensemble.agreement)} (95% CI ${ciText(ensemble.ci95)}); ` +
      `${ensemble.p_value !== null && ensemble.p_value < 0.05 ? 'this is clearly above the 50% a coin flip would reach' : 'this is not distinguishable from a coin flip'} (p = ${pValue(ensemble.p_value)}). ` +
      `Items where the judge scored both captions the same (Δ = 0) are not counted.`)}
</section>`);

    const b = ensemble.buckets;
    const trend = b.filter((x) => x.agreement !== null);
    sections.push(`<section><h2>Is the judge right more often when its score gap is larger?</h2>
<div class="row">${bucketChart(b)}
${table(['bucket', '|Δ| range', 'n', 'agreement', '95% CI', 'p'], b.map((x) => [`B${x.bucket}`, `${num(x.lo, 2)}–${num(x.hi, 2)}`, String(x.n), pct(x.agreement), ciText(x.ci95), pValue(x.p_value)]), 2)}</div>
${reading(trend.length >= 2 ? `Ensemble agreement goes from ${pct(trend[0].agreement)} in the smallest-gap bucket to ${pct(trend[trend.length - 1].agreement)} in the largest. Wide bars mean few items: compare buckets by their intervals, not their dots.` : 'Too few decided items to compare buckets.')}
</section>`);

    const c = ensemble.calibration;
    sections.push(`<section><h2>Calibration of the score gap (individual votes)</h2>
<div class="row">${calibrationChart(ensemble)}
${table(['judge', 'votes', 'β0 (SE)', 'β1 (SE)', 'position bias σ(β0)'], report.judges.map((j) => [esc(j.judge), String(j.calibration.votes),
      `${num(j.calibration.beta0)} (${num(j.calibration.se_beta0)})`, `${num(j.calibration.beta1)} (${num(j.calibration.se_beta1)})`, pct(j.calibration.position_bias)]))}</div>
${reading(c.beta1 === null ? 'The logistic model could not be fitted (no votes, or the outcome is perfectly separated).' :
      `Each dot is the share of votes for the caption shown first, among votes whose ensemble gap (first minus second) falls in that bin; dot size shows how many votes. The curve is the fitted P = σ(β0 + β1·Δ). ` +
      `β1 = ${num(c.beta1)} ${c.beta1 - 1.96 * (c.se_beta1 ?? 0) > 0 ? 'is clearly positive: a larger gap makes listeners more likely to choose the judge’s favourite' : 'is not clearly positive: the gap carries little information about listeners’ choices'}. ` +
      `At a tie the first caption is chosen ${pct(c.position_bias)} of the time (50% = no position bias).`)}
</section>`);
  }

  if (!ensemble && pairs) sections.push('<section><h2>Judges</h2><p>This bundle has no judge scores (judge_scores.csv is absent or empty), so the sections comparing a judge with the listeners are left out.</p></section>');

  if (bt.systems.length) {
    const top = bt.systems.filter((s) => s.rank_ci === 1).map((s) => esc(s.system));
    const hasBoot = bt.systems.some((s) => s.bootstrap_ci95 !== undefined);
    sections.push(`<section><h2>Does a ranking from human votes alone reproduce the judge’s ranking?</h2>
<p class="muted">Bradley–Terry ${bt.method === 'map' ? `MAP estimate with ridge prior λ = ${bt.prior_lambda}` : 'maximum likelihood'} over ${bt.comparisons} comparisons; log-strengths sum to 0.</p>
${strengthChart(report)}
${table(['rank', 'system', 'log-strength', 'SE', '95% CI', ...(hasBoot ? ['bootstrap 95% CI'] : []), 'rank_ci'], bt.systems.map((s) => [String(s.rank), esc(s.system), num(s.log_strength), num(s.se), ciText(s.ci95, (v) => num(v, 2)), ...(hasBoot ? [ciText(s.bootstrap_ci95, (v) => num(v, 2))] : []), String(s.rank_ci)]), 2)}
${report.judges.length ? table(['judge', 'systems', 'Spearman ρ', 'Kendall τ-b'], report.judges.map((j) => [esc(j.judge), String(j.ranking.systems), num(j.ranking.spearman_rho), num(j.ranking.kendall_tau)])) : ''}
${reading(`${top.length > 1 ? `Listeners cannot separate ${top.join(', ')}: their intervals overlap, so they share rank 1 (rank_ci).` : `${top[0] ?? '—'} is ahead of every other system beyond its interval.`} ` +
      (ensemble ? `The ensemble’s system ranking correlates with the human ranking at ρ = ${num(ensemble.ranking.spearman_rho)} (τ-b = ${num(ensemble.ranking.kendall_tau)}); 1 would be identical order.` : ''))}
${report.bootstrap ? `<p class="muted">Bootstrap: ${report.bootstrap.resamples} resamples of listeners (seed ${report.bootstrap.seed}); the MLE did not exist in ${report.bootstrap.bt_mle_missing}. ${esc(report.bootstrap.note ?? '')}</p>` : ''}
</section>`);
  } else if (bt.error && pairs) {
    sections.push(`<section><h2>Ranking from human votes</h2><p class="warn">${esc(bt.error)}</p></section>`);
  }

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${header?.title ? `${esc(header.title)} · ` : ''}Earmark study report</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;margin:0;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:24px 32px 48px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:0 0 12px}
section{background:#fff;border:1px solid #dfe3ea;border-radius:8px;padding:18px 22px;margin:18px 0}
table{border-collapse:collapse;margin:10px 0;font-variant-numeric:tabular-nums}
th,td{padding:4px 12px;border-bottom:1px solid #e8ebf0;text-align:left}th{font-weight:600;color:#4a5568;font-size:13px}
td.n,th.n{text-align:right}
.reading{background:#f0f5ff;border-left:4px solid #3d6fd8;padding:8px 12px;margin:10px 0 0}
.muted{color:#667085;font-size:13px}.warn{color:#a4330f}
svg{display:block;max-width:100%;height:auto;margin:6px 0}
.grid{stroke:#e6e9ef}.chance{stroke:#9aa3b2;stroke-dasharray:4 3}
.tick{font-size:11px;fill:#667085}.axis{font-size:12px;fill:#344054}.label{font-size:12px;fill:#1d2330}
.err{stroke:#3d6fd8;stroke-width:2}.boot{stroke:#d9822b;stroke-width:2}h3{font-size:16px;margin:16px 0 4px}.dot{fill:#3d6fd8}.jdot{fill:#d9822b}
.bin{fill:#3d6fd8;fill-opacity:.35;stroke:#3d6fd8}.curve{fill:none;stroke:#d9822b;stroke-width:2.5}
.panel{fill:#fbfbfd;stroke:#e6e9ef}
.row{display:flex;flex-wrap:wrap;gap:8px 28px;align-items:center}
</style></head><body><main>
<h1>Listening study report</h1>
${headerHtml(header)}
${sections.join('\n')}
</main></body></html>
`;
}

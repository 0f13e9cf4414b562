/**
 * The paper's tables from a report. A pair (or A/B) study gets the shapes of the StyleInstructCaps
 * paper's App. E (docs: study-protocol.md): Table 10 reliability and quality control, Table 11
 * judge agreement with the human majority (Wilson intervals), Table 12 agreement by |Δ| bucket,
 * Table 13 rank correlation of the Bradley–Terry ranking with each judge's, with the calibration
 * fit and the BT strengths beside them; a rating study its MOS and reliability tables; a
 * registered kind (analysis/kinds) its own `paperTables`, else the generic tables of its section.
 * Every row key and column key is the report's own field name, so numbers.json reads against the
 * report JSON.
 */
import { ANALYSIS_KINDS } from '../kinds/index';
import type { Interval, Report } from '../report';
import { cell, tex, type PaperCell, type PaperColumn, type PaperRow, type PaperTable } from './latex';

const col = (key: string, head: string, align: 'l' | 'r' = 'r'): PaperColumn => ({ key, head, align });
const MEASURE = col('measure', 'Measure', 'l');
const VALUE = col('value', 'Value');

/** Rows of a Measure / Value table. */
const measure = (key: string, label: string, value: PaperCell): PaperRow => ({ key, cells: [{ tex: label }, value] });

/** Who took part and who was kept: the quality-control rows every study's first table opens with. */
function qcRows(report: Report): PaperRow[] {
  const l = report.listeners;
  return [
    measure('listeners_total', 'Listeners recruited', cell.int(l.total)),
    measure('listeners_retained', 'Listeners retained', cell.int(l.retained)),
    ...Object.entries(l.excluded_by_reason)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([reason, n]) => measure(`excluded_${reason}`, `Excluded: ${tex(reason)}`, cell.int(n))),
    measure('attention_pass_rate', 'Attention-check pass rate (all listeners)', cell.pct(l.attention_pass_rate)),
  ];
}

/** Whether the report analysed votes of pair or A/B items. */
export const hasPairStudy = (report: Report): boolean => report.items !== undefined && report.items.length > 0;

function reliabilityTable(report: Report): PaperTable {
  const r = report.reliability;
  const rows = [
    ...qcRows(report),
    measure('items', 'Items (non-attention, with votes)', cell.int(r.items)),
    measure('votes', 'Votes analysed', cell.int(r.votes)),
    measure('krippendorff_alpha', "Krippendorff's $\\alpha$ (nominal)", cell.dec(r.krippendorff_alpha)),
    measure('fleiss_kappa', "Fleiss' $\\kappa$", cell.dec(r.fleiss_kappa)),
    measure('brennan_prediger_kappa', 'Brennan--Prediger $\\kappa$', cell.dec(r.brennan_prediger_kappa)),
    measure('mean_pairwise_agreement', 'Mean pairwise agreement (chance 50\\%)', cell.pct(r.mean_pairwise_agreement)),
    measure('split', 'Items split', cell.int(r.split)),
    measure('lopsided', 'Items lopsided', cell.int(r.lopsided)),
    measure('unanimous', 'Items unanimous', cell.int(r.unanimous)),
  ];
  if (r.ties) rows.push(measure('ties', 'Ties (``no preference\'\', not counted above)', cell.int(r.ties.votes)));
  return {
    id: 'table10-reliability',
    caption: `Listener reliability and quality control (${report.listeners.retained} retained listeners, ${r.items} items).`,
    columns: [MEASURE, VALUE],
    rows,
  };
}

function judgesTable(report: Report): PaperTable {
  const boot = report.judges.some((j) => j.bootstrap_ci95 !== undefined);
  return {
    id: 'table11-judges',
    caption: 'Judge agreement with the human majority (items with $\\Delta = 0$ excluded; 95\\% Wilson intervals; $p$: exact binomial test against 50\\%).',
    columns: [
      col('judge', 'Judge', 'l'), col('n', '$n$'), col('n_delta_zero', '$\\Delta = 0$'), col('agreement', 'Agreement'), col('ci95', '95\\% CI'),
      ...(boot ? [col('bootstrap_ci95', 'Bootstrap 95\\% CI')] : []),
      col('cohen_kappa', "Cohen's $\\kappa$"), col('p_value', '$p$'),
    ],
    rows: report.judges.map((j) => ({
      key: j.judge,
      cells: [
        cell.text(j.judge), cell.int(j.n), cell.int(j.n_delta_zero), cell.pct(j.agreement), cell.ci(j.ci95, true),
        ...(boot ? [cell.ci(j.bootstrap_ci95, true)] : []),
        cell.dec(j.cohen_kappa), cell.p(j.p_value),
      ],
    })),
  };
}

function bucketsTable(report: Report): PaperTable {
  return {
    id: 'table12-buckets',
    caption: `Judge agreement with the human majority by $|\\Delta|$ bucket (${report.judges[0]?.buckets.length ?? 0} equal-width buckets over the observed range; 95\\% Wilson intervals).`,
    columns: [col('judge', 'Judge', 'l'), col('bucket', 'Bucket', 'l'), col('lo', '$|\\Delta|$ from'), col('hi', 'to'), col('n', '$n$'), col('agreement', 'Agreement'), col('ci95', '95\\% CI'), col('p_value', '$p$')],
    rows: report.judges.flatMap((j) => j.buckets.map((b) => ({
      key: `${j.judge}/B${b.bucket}`,
      group: j.judge,
      cells: [cell.text(j.judge), { tex: `B${b.bucket}` }, cell.dec(b.lo, 2), cell.dec(b.hi, 2), cell.int(b.n), cell.pct(b.agreement), cell.ci(b.ci95, true), cell.p(b.p_value)],
    }))),
  };
}

function calibrationTable(report: Report): PaperTable {
  return {
    id: 'calibration',
    caption: 'Calibration on the individual votes: $P($first shown chosen$) = \\sigma(\\beta_0 + \\beta_1 \\Delta)$, $\\Delta$ first minus second; $\\sigma(\\beta_0)$ is the position bias.',
    columns: [col('judge', 'Judge', 'l'), col('votes', 'Votes'), col('beta0', '$\\beta_0$'), col('se_beta0', 'SE'), col('beta1', '$\\beta_1$'), col('se_beta1', 'SE'), col('position_bias', '$\\sigma(\\beta_0)$')],
    rows: report.judges.map(({ judge, calibration: c }) => ({
      key: judge,
      cells: [cell.text(judge), cell.int(c.votes), cell.dec(c.beta0), cell.dec(c.se_beta0), cell.dec(c.beta1), cell.dec(c.se_beta1), cell.pct(c.position_bias)],
    })),
  };
}

function rankingTable(report: Report): PaperTable {
  return {
    id: 'table13-ranking',
    caption: "Rank correlation of the Bradley--Terry ranking from the listeners' votes alone with each judge's system ranking (Spearman's $\\rho$, Kendall's $\\tau_b$).",
    columns: [col('judge', 'Judge', 'l'), col('systems', 'Systems'), col('spearman_rho', "Spearman's $\\rho$"), col('kendall_tau', "Kendall's $\\tau_b$")],
    rows: report.judges.map(({ judge, ranking: r }) => ({
      key: judge,
      cells: [cell.text(judge), cell.int(r.systems), cell.dec(r.spearman_rho), cell.dec(r.kendall_tau)],
    })),
  };
}

function bradleyTerryTable(report: Report): PaperTable {
  const bt = report.bradley_terry;
  const boot = bt.systems.some((s) => s.bootstrap_ci95 !== undefined);
  const method = bt.method === 'map' ? `MAP, ridge prior $\\lambda = ${bt.prior_lambda}$` : 'maximum likelihood';
  return {
    id: 'bradley-terry',
    caption: `Bradley--Terry log-strengths of the systems (${method}, ${bt.comparisons} votes; 95\\% Wald intervals; rank\\_ci: the ranks the intervals allow).`,
    columns: [
      col('rank', 'Rank'), col('system', 'System', 'l'), col('log_strength', '$\\theta$'), col('se', 'SE'), col('ci95', '95\\% CI'),
      ...(boot ? [col('bootstrap_ci95', 'Bootstrap 95\\% CI')] : []), col('rank_ci', 'Rank CI'),
    ],
    rows: bt.systems.map((s) => ({
      key: s.system,
      cells: [cell.int(s.rank), cell.text(s.system), cell.dec(s.log_strength), cell.dec(s.se), cell.ci(s.ci95), ...(boot ? [cell.ci(s.bootstrap_ci95)] : []), cell.int(s.rank_ci)],
    })),
  };
}

function tiesTable(report: Report): PaperTable {
  return {
    id: 'ab-ties',
    caption: 'A/B ``no preference\'\' answers per system pair (retained listeners; left out of every statistic of the votes).',
    columns: [col('system_a', 'System', 'l'), col('system_b', 'System', 'l'), col('votes', 'Answers'), col('ties', 'Ties')],
    rows: report.reliability.ties!.per_system_pair.map((p) => ({
      key: JSON.stringify([p.system_a, p.system_b]),
      cells: [cell.text(p.system_a), cell.text(p.system_b), cell.int(p.votes), cell.int(p.ties)],
    })),
  };
}

function ratingTables(report: Report): PaperTable[] {
  const r = report.ratings!;
  const scale = r.scale ? `${r.scale[0]}--${r.scale[1]}` : 'observed';
  const boot = r.systems.some((s) => s.ci95_bootstrap !== undefined);
  return [
    {
      id: 'ratings-reliability',
      caption: `Rating study: reliability and quality control (${r.listeners} listeners with ratings, scale ${scale}).`,
      columns: [MEASURE, VALUE],
      rows: [
        ...qcRows(report),
        measure('listeners', 'Retained listeners with ratings', cell.int(r.listeners)),
        measure('votes', 'Ratings analysed', cell.int(r.votes)),
        measure('krippendorff_alpha_interval', "Krippendorff's $\\alpha$ (interval)", cell.dec(r.reliability.krippendorff_alpha_interval)),
        measure('krippendorff_alpha_ordinal', "Krippendorff's $\\alpha$ (ordinal)", cell.dec(r.reliability.krippendorff_alpha_ordinal)),
      ],
    },
    {
      id: 'mos',
      caption: `Mean opinion score per system (scale ${scale}; 95\\% $t$-intervals${boot ? ' and listener-bootstrap intervals' : ''}; rank CI from the $t$-intervals).`,
      columns: [
        col('rank', 'Rank'), col('system', 'System', 'l'), col('n', '$n$'), col('mos', 'MOS'), col('sd', 'SD'), col('ci95', '95\\% CI'),
        ...(boot ? [col('ci95_bootstrap', 'Bootstrap 95\\% CI')] : []), col('rank_ci', 'Rank CI'),
      ],
      rows: r.systems.map((s) => ({
        key: s.system,
        cells: [cell.int(s.rank), cell.text(s.system), cell.int(s.n), cell.dec(s.mos, 2), cell.dec(s.sd, 2), cell.ci(s.ci95, false, 2), ...(boot ? [cell.ci(s.ci95_bootstrap, false, 2)] : []), cell.int(s.rank_ci)],
      })),
    },
  ];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInterval = (v: unknown): v is Interval => Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number');

/** A value of a section as a cell; undefined for what a flat table cannot hold (lists, nested lists). */
function anyCell(v: unknown): PaperCell | undefined {
  if (v === null) return { tex: '--', value: null };
  if (typeof v === 'number') return Number.isInteger(v) ? cell.int(v) : cell.dec(v);
  if (typeof v === 'string') return cell.text(v);
  if (typeof v === 'boolean') return cell.text(v ? 'yes' : 'no');
  if (isInterval(v)) return cell.ci(v);
  return undefined;
}

/** A record's fields, nested records flattened into `parent.child`, for one row. */
function flatten(v: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(v).flatMap(([k, x]) => (isRecord(x) ? flatten(x, `${prefix}${k}.`) : [[`${prefix}${k}`, x] as [string, unknown]]));
}

/**
 * The generic tables of a kind's section that gives no tables of its own: its scalar fields as a
 * Measure / Value table, and each list of records as a table with a column per field.
 */
export function sectionTables(name: string, section: unknown): PaperTable[] {
  if (!isRecord(section)) return [];
  const tables: PaperTable[] = [];
  const scalars = flatten(Object.fromEntries(Object.entries(section).filter(([, v]) => !Array.isArray(v) || isInterval(v))))
    .flatMap(([k, v]) => {
      const c = anyCell(v);
      return c ? [measure(k, tex(k), c)] : [];
    });
  if (scalars.length) tables.push({ id: name, caption: `The ${tex(name)} section of the report.`, columns: [MEASURE, VALUE], rows: scalars });
  for (const [field, list] of Object.entries(section)) {
    if (!Array.isArray(list) || isInterval(list) || !list.every(isRecord)) continue;
    const flat = list.map((row) => flatten(row).filter(([, v]) => anyCell(v) !== undefined));
    const keys = [...new Set(flat.flatMap((row) => row.map(([k]) => k)))];
    const textKeys = keys.filter((k) => flat.every((row) => row.every(([rk, v]) => rk !== k || typeof v === 'string')));
    const seen = new Set<string>();
    tables.push({
      id: `${name}-${field}`,
      caption: `The ${tex(name)} section of the report: ${tex(field)}.`,
      columns: keys.map((k) => col(k, tex(k), textKeys.includes(k) ? 'l' : 'r')),
      rows: flat.map((row, r) => {
        const values = new Map(row);
        // Named by its text fields (e.g. a system pair), else by its place; unique either way.
        let key = textKeys.length ? JSON.stringify(textKeys.map((k) => values.get(k) ?? null)) : String(r + 1);
        if (seen.has(key)) key = `${key}#${r + 1}`;
        seen.add(key);
        return { key, cells: keys.map((k) => (values.has(k) ? anyCell(values.get(k))! : { tex: '--' })) };
      }),
    });
  }
  return tables;
}

/** Every table of the paper, in print order. */
export function paperTables(report: Report): PaperTable[] {
  const tables: PaperTable[] = [];
  if (hasPairStudy(report)) {
    tables.push(reliabilityTable(report));
    if (report.judges.length) tables.push(judgesTable(report), bucketsTable(report), calibrationTable(report), rankingTable(report));
    if (report.bradley_terry.systems.length) tables.push(bradleyTerryTable(report));
    if (report.reliability.ties) tables.push(tiesTable(report));
  }
  if (report.ratings) tables.push(...ratingTables(report));
  const sections = report as unknown as Record<string, unknown>;
  for (const kind of ANALYSIS_KINDS) {
    const section = sections[kind.section];
    if (section === undefined) continue;
    // A kind without any other table opens with who took part, as every study's first table does.
    if (tables.length === 0) tables.push({ id: 'quality-control', caption: 'Listeners and quality control.', columns: [MEASURE, VALUE], rows: qcRows(report) });
    tables.push(...(kind.paperTables ? kind.paperTables(section) : sectionTables(kind.section, section)));
  }
  return tables;
}

/**
 * A bench figure: the per-run measurements of what is being judged, the same-run baseline, and the
 * budget it is judged against. Values are medians over runs, because this shared 2-core machine is
 * noisy and a single time says little.
 */

export interface Budget {
  /** What the budget applies to: the figure's own value or its ratio to the baseline. */
  on: 'value' | 'ratio';
  op: '<=' | '>=';
  limit: number;
}

export interface Measured {
  label: string;
  unit: string;
  /** One value per run, in run order. */
  runs: number[];
}

export interface FigureInput {
  /** Stable key in results.json, e.g. `ingest.rate`. */
  id: string;
  subject: Measured;
  baseline?: Measured;
  budget: Budget;
  /** When missed: what was found out about why. */
  missReason?: string;
  /** Facts worth keeping beside the number (counts, files, settings). */
  details?: Record<string, unknown>;
}

export interface Figure extends FigureInput {
  value: number;
  baselineValue: number | null;
  ratio: number | null;
  pass: boolean;
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Linear-interpolation quantile (type 7, as R and NumPy default to); NaN for no values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

export function judge(input: FigureInput): Figure {
  const value = median(input.subject.runs);
  const baselineValue = input.baseline ? median(input.baseline.runs) : null;
  const ratio = baselineValue ? value / baselineValue : null;
  const judged = input.budget.on === 'ratio' ? ratio : value;
  const pass =
    judged !== null && Number.isFinite(judged) && (input.budget.op === '<=' ? judged <= input.budget.limit : judged >= input.budget.limit);
  return { ...input, value, baselineValue, ratio, pass };
}

function number(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(abs >= 1 ? 2 : 3);
}

const show = (m: Measured, value: number) => `${number(value)} ${m.unit}`.trim();

export function budgetText(f: Pick<Figure, 'budget' | 'subject'>): string {
  const what = f.budget.on === 'ratio' ? 'ratio' : '';
  const unit = f.budget.on === 'ratio' ? '' : ` ${f.subject.unit}`;
  return `${what} ${f.budget.op === '<=' ? '≤' : '≥'} ${number(f.budget.limit)}${unit}`.trim();
}

/** The table `npm run bench` prints (and bench/README.md keeps): one row per figure, then the reasons for misses. */
export function formatTable(figures: readonly Figure[]): string {
  const header = ['figure', 'median (runs)', 'baseline (median)', 'ratio', 'budget', 'result'];
  const rows = figures.map((f) => [
    `${f.id}: ${f.subject.label}`,
    `${show(f.subject, f.value)} (n=${f.subject.runs.length})`,
    f.baseline && f.baselineValue !== null ? `${f.baseline.label}: ${show(f.baseline, f.baselineValue)}` : '—',
    f.ratio === null ? '—' : number(f.ratio),
    budgetText(f),
    f.pass ? 'PASS' : 'MISS',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const out = [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
  const misses = figures.filter((f) => !f.pass);
  if (misses.length) {
    out.push('', 'Misses:');
    for (const f of misses) out.push(`- ${f.id}: ${f.missReason ?? 'no reason recorded'}`);
  }
  return out.join('\n');
}

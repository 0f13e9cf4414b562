import type { Dashboard as DashboardData } from '../../contract/reports';
import { downloadBundle, errorText, openHtmlReport, studio } from '../studio/api';
import { usePolled } from '../studio/usePolled';

const POLL_MS = 3000;

const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(0)}%`);
const num = (x: number | null, digits = 2) => (x === null ? '—' : x.toFixed(digits));
export const REASONS: Record<string, string> = {
  attention: 'attention checks',
  fast: 'too fast (median response)',
  listening: 'listening requirement',
  hidden: 'tab hidden during trials',
  screening: 'headphone screening',
  listener_correlation: 'ratings out of step with the panel',
};

function Figure({ label, value, sub, testId }: { label: string; value: string | number; sub?: string; testId?: string }) {
  return (
    <div className="figure">
      <div className="figure-value" data-testid={testId}>
        {value}
      </div>
      <div className="figure-label">{label}</div>
      {sub && <div className="figure-sub">{sub}</div>}
    </div>
  );
}

/** Bars of counts with an x label under each; plain SVG so it scales and needs no chart library. */
function Bars({ values, labels, title, colour = 'var(--accent)' }: { values: number[]; labels: string[]; title: string; colour?: string[] | string }) {
  const W = 560, H = 150, L = 30, B = 22, T = 8;
  const max = Math.max(1, ...values);
  // Capped, so a histogram with one bin is a bar, not a block.
  const w = Math.min(56, (W - L) / Math.max(1, values.length));
  const every = Math.ceil(values.length / 12);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="bars" role="img" aria-label={title}>
      <line x1={L} x2={W} y1={H - B} y2={H - B} className="axis" />
      <text x={L - 4} y={T + 8} className="tick" textAnchor="end">{max}</text>
      <text x={L - 4} y={H - B} className="tick" textAnchor="end">0</text>
      {values.map((v, i) => {
        const h = ((H - B - T) * v) / max;
        return (
          <g key={i}>
            <rect x={L + i * w + 1} width={Math.max(1, w - 2)} y={H - B - h} height={h} fill={Array.isArray(colour) ? colour[i] : colour} rx={2}>
              <title>{`${labels[i]}: ${v}`}</title>
            </rect>
            {i % every === 0 && (
              <text x={L + i * w + w / 2} y={H - 6} className="tick" textAnchor="middle">{labels[i]}</text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

function completionHistogram(minutes: number[]): { values: number[]; labels: string[] } {
  if (minutes.length === 0) return { values: [], labels: [] };
  const max = Math.max(...minutes);
  const step = max <= 2 ? 0.25 : max <= 10 ? 1 : max <= 60 ? 5 : 10;
  // From the fastest listener's bin, so a study of long sessions is not drawn as empty bars from 0.
  const first = Math.floor(Math.min(...minutes) / step);
  const values = Array<number>(Math.floor(max / step) - first + 1).fill(0);
  for (const m of minutes) values[Math.floor(m / step) - first]++;
  return { values, labels: values.map((_, i) => `${+((first + i) * step).toFixed(2)}`) };
}

// Each at least 4.5:1 on white: the legend prints them as text, the bars need 3:1 (WCAG 1.4.3, 1.4.11).
const KIND_COLOUR = { pair: 'var(--accent)', rating: 'var(--accent)', attention: '#b45309', practice: '#64748b' };

type Ratings = NonNullable<DashboardData['ratings']>;

/** A rating study's MOS figures (analysis-spec §4): the same numbers as the report's `ratings` section. */
function RatingsPanel({ r }: { r: Ratings }) {
  return (
    <div data-testid="dash-ratings">
      <h3>
        Mean opinion score per system{' '}
        <span className="muted small">
          ({r.votes} ratings by {r.listeners} retained listeners{r.scale ? `, scale ${r.scale[0]}–${r.scale[1]}` : ''})
        </span>
      </h3>
      {r.systems.length === 0 ? (
        <p className="muted">No ratings from retained listeners yet.</p>
      ) : (
        <table className="data" data-testid="dash-mos">
          <thead>
            <tr><th className="n">rank</th><th>system</th><th className="n">n</th><th className="n">MOS</th><th className="n">SD</th><th className="n">95% CI (t)</th><th className="n">rank_ci</th></tr>
          </thead>
          <tbody>
            {r.systems.map((s) => (
              <tr key={s.system}>
                <td className="n">{s.rank}</td>
                <td>{s.system}</td>
                <td className="n">{s.n}</td>
                <td className="n">{num(s.mos)}</td>
                <td className="n">{num(s.sd)}</td>
                <td className="n">{s.ci95 ? `${num(s.ci95[0])}–${num(s.ci95[1])}` : '—'}</td>
                <td className="n">{s.rankCi ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="muted small">
        rank_ci: 1 + the systems whose whole interval lies above this one's (overlapping intervals share a rank). Attention items and excluded listeners are left out.
      </p>
      <p className="muted small" data-testid="dash-rating-alpha">
        Krippendorff α: interval {num(r.krippendorffAlphaInterval)} · ordinal {num(r.krippendorffAlphaOrdinal)}
      </p>
      <h3>Listeners out of step with the panel</h3>
      {r.minListenerCorrelation === null ? (
        <p className="muted small">No correlation rule in force (study.yaml exclusion.minListenerCorrelation).</p>
      ) : r.lowCorrelation.length === 0 ? (
        <p className="muted small" data-testid="dash-low-correlation">No listener correlates with the panel below r = {num(r.minListenerCorrelation)}.</p>
      ) : (
        <table className="data" data-testid="dash-low-correlation">
          <thead>
            <tr><th>listener</th><th className="n">Pearson r</th><th className="n">ratings</th></tr>
          </thead>
          <tbody>
            {r.lowCorrelation.map((x) => (
              <tr key={x.listener}>
                <td>{x.listener}</td>
                <td className="n">{num(x.pearsonR)}</td>
                <td className="n">{x.n}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** The live dashboard of one study: polls every few seconds while the page is open. */
export function Dashboard({ study }: { study: string }) {
  const { data, error, setError } = usePolled<DashboardData>(() => studio.dashboard(study), POLL_MS, study);

  if (!data) return <section className="card">{error ? <p className="notice">{error}</p> : <p className="muted">Loading the dashboard…</p>}</section>;
  const l = data.listeners;
  const minutes = data.completionMinutes;
  const median = minutes.length ? minutes[Math.floor((minutes.length - 1) / 2)] : null;
  const hist = completionHistogram(minutes);
  const reasons = [...new Set([...Object.keys(l.excludedByReason), ...Object.keys(l.notRunByReason), ...l.rules.map((r) => r.reason)])];

  return (
    <section className="card dashboard" aria-labelledby="dash-title" data-generated={data.generatedAt}>
      <div className="section-head">
        <h2 id="dash-title">Live dashboard</h2>
        <span className={`status-pill ${data.status}`}>{data.status}</span>
        {/* Not a live region: a screen reader would read the time out on every 3 s poll. */}
        <span className="muted updated">
          updated {new Date(data.generatedAt).toLocaleTimeString()}
          {error && <span className="notice"> · {error}</span>}
        </span>
        <div className="head-actions">
          <button type="button" className="secondary" onClick={() => void downloadBundle(study).catch((e) => setError(errorText(e)))}>
            Export bundle
          </button>
          <button type="button" className="secondary" onClick={() => void openHtmlReport(study).catch((e) => setError(errorText(e)))}>
            HTML report
          </button>
        </div>
      </div>

      <div className="figures">
        <Figure label="started" value={l.started} sub={`target ${data.targetListeners}`} testId="dash-started" />
        <Figure label="completed" value={l.completed} sub={`${l.inProgress} in progress`} testId="dash-completed" />
        <Figure label="excluded" value={l.excluded} sub={`${l.retained} of ${l.voted} retained`} testId="dash-excluded" />
        <Figure label="votes" value={data.votes.total} testId="dash-votes" />
        <Figure
          label="attention checks passed"
          value={pct(data.attention.passRate)}
          sub={`${data.attention.correct}/${data.attention.answered} checks right`}
          testId="dash-attention"
        />
        {data.ratings ? (
          <Figure label="Krippendorff α (interval)" value={num(data.ratings.krippendorffAlphaInterval)} sub={`ordinal ${num(data.ratings.krippendorffAlphaOrdinal)}`} testId="dash-alpha" />
        ) : (
          <Figure label="Krippendorff α" value={num(data.reliability.krippendorffAlpha)} sub={`Fleiss κ ${num(data.reliability.fleissKappa)} · Brennan–Prediger κ ${num(data.reliability.brennanPredigerKappa)}`} testId="dash-alpha" />
        )}
      </div>

      <div className="grid2">
        <div>
          <h3>Exclusions</h3>
          <table className="data" data-testid="dash-exclusions">
            <thead>
              <tr><th>rule</th><th className="n">excluded</th><th className="n">not run</th></tr>
            </thead>
            <tbody>
              {reasons.map((r) => (
                <tr key={r}>
                  <td>
                    {REASONS[r] ?? r}
                    <div className="muted small">{l.rules.find((x) => x.reason === r)?.description}</div>
                  </td>
                  <td className="n">{l.excludedByReason[r] ?? 0}</td>
                  <td className="n">{l.notRunByReason[r] ? `${l.notRunByReason[r]} not run` : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {data.screening.kind !== 'none' && (
            <p className="muted small" data-testid="dash-screening">
              Headphone screening ({data.screening.kind}): {data.screening.passed} passed, {data.screening.failed} failed, {data.screening.notRun} not run.
            </p>
          )}
          <p className="muted small">“Not run” means the check had nothing to judge yet (e.g. no attention check answered, or the screening never reported); it is neither a pass nor a failure.</p>
        </div>
        {data.ratings ? (
          <RatingsPanel r={data.ratings} />
        ) : (
          <div>
            <h3>Judge agreement with the listener majority</h3>
            {data.judges.length === 0 ? (
              <p className="muted">No judged items with votes yet.</p>
            ) : (
              <table className="data" data-testid="dash-judges">
                <thead>
                  <tr><th>judge</th><th className="n">items</th><th className="n">agreement</th><th className="n">95% CI</th><th className="n">Cohen κ</th></tr>
                </thead>
                <tbody>
                  {data.judges.map((j) => (
                    <tr key={j.judge}>
                      <td>{j.judge}</td>
                      <td className="n">{j.items}</td>
                      <td className="n">{pct(j.agreement)}</td>
                      <td className="n">{j.ci95 ? `${pct(j.ci95[0])}–${pct(j.ci95[1])}` : '—'}</td>
                      <td className="n">{num(j.cohenKappa)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <p className="muted small">
              Reliability over {data.reliability.items} items and {data.reliability.votes} votes of retained listeners; mean pairwise agreement{' '}
              {pct(data.reliability.meanPairwiseAgreement)}.
            </p>
          </div>
        )}
      </div>

      <div className="grid2">
        <div>
          <h3>Completion time <span className="muted small">(minutes{median !== null ? `, median ${median.toFixed(1)}` : ''})</span></h3>
          {minutes.length === 0 ? <p className="muted">Nobody has finished yet.</p> : <Bars values={hist.values} labels={hist.labels} title="completion time histogram" />}
        </div>
        <div>
          <h3>Votes per item <span className="muted small">(<span className="key-pair">{data.ratings ? 'ratings' : 'pairs'}</span>, <span className="key-attention">attention checks</span>)</span></h3>
          <Bars
            values={data.votes.perItem.map((i) => i.votes)}
            labels={data.votes.perItem.map((i) => String(i.seq + 1))}
            colour={data.votes.perItem.map((i) => KIND_COLOUR[i.kind])}
            title="votes per item"
          />
        </div>
      </div>
    </section>
  );
}

import type { Dashboard as DashboardData } from '../../contract/reports';
import { BarChart, type BarStyle } from '../../figures/BarChart';
import { MosChart } from '../../figures/MosChart';
import { downloadBundle, downloadPaper, errorText, openHtmlReport, studio } from '../studio/api';
import { usePolled } from '../studio/usePolled';
import { KindPanels } from './kind-panels';
import { SavableFigure } from './SavableFigure';

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

// Told apart in grey as well as in colour: solid dark, hollow, solid mid-grey (figures/BarChart).
/** An item's bar by its role: attention checks hollow, practice muted, the study's own trials (of whichever kind) solid. */
const barStyle = (kind: DashboardData['votes']['perItem'][number]['kind']): BarStyle => (kind === 'attention' ? 'hollow' : kind === 'practice' ? 'muted' : 'solid');

type Ratings = NonNullable<DashboardData['ratings']>;

/** A rating study's MOS figures (analysis-spec §4): the same numbers as the report's `ratings` section. */
function RatingsPanel({ r, study }: { r: Ratings; study: string }) {
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
        <>
          <SavableFigure file={`${study}-mos`} what="MOS">
            <MosChart systems={r.systems} scale={r.scale} />
          </SavableFigure>
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
        </>
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
            <tr><th>listener (platform id)</th><th className="n">Pearson r</th><th className="n">ratings</th></tr>
          </thead>
          <tbody>
            {r.lowCorrelation.map((x) => (
              <tr key={x.listener}>
                <td>
                  {x.listener}
                  {x.participant && <span className="muted small"> · {x.participant}</span>}
                </td>
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
          <button type="button" className="secondary" onClick={() => void downloadPaper(study).catch((e) => setError(errorText(e)))}>
            Paper bundle
          </button>
          <button type="button" className="secondary" onClick={() => void openHtmlReport(study).catch((e) => setError(errorText(e)))}>
            HTML report
          </button>
        </div>
      </div>

      <div className="figures">
        <Figure label="started" value={l.started} sub={`target ${data.targetListeners}`} testId="dash-started" />
        <Figure
          label="completed"
          value={l.completed}
          sub={`${l.inProgress} in progress${l.screenedOut ? `, ${l.screenedOut} screened out` : ''}`}
          testId="dash-completed"
        />
        <Figure label="excluded" value={l.excluded} sub={`${l.retained} of ${l.voted} retained`} testId="dash-excluded" />
        <Figure label="votes" value={data.votes.total} sub={data.votes.practice ? `practice not counted (${data.votes.practice})` : undefined} testId="dash-votes" />
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
          <RatingsPanel r={data.ratings} study={study} />
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
          {minutes.length === 0 ? (
            <p className="muted">Nobody has finished yet.</p>
          ) : (
            <SavableFigure file={`${study}-completion-time`} what="completion time">
              <BarChart name="completion-time" values={hist.values} labels={hist.labels} title="Completion time histogram (minutes)" />
            </SavableFigure>
          )}
        </div>
        <div>
          <h3>Votes per item</h3>
          {data.votes.progress && (
            <p data-testid="item-progress">
              Target {data.votes.progress.target} votes per item: {data.votes.progress.complete} complete, {data.votes.progress.started} under way,{' '}
              {data.votes.progress.waiting} without votes yet.
            </p>
          )}
          <SavableFigure file={`${study}-votes-per-item`} what="votes per item">
            <BarChart
              name="votes-per-item"
              values={data.votes.perItem.map((i) => i.votes)}
              labels={data.votes.perItem.map((i) => String(i.seq + 1))}
              styles={data.votes.perItem.map((i) => barStyle(i.kind))}
              legend={[
                { style: 'solid', label: data.ratings ? 'ratings' : 'pairs' },
                { style: 'hollow', label: 'attention checks' },
                ...(data.votes.perItem.some((i) => i.kind === 'practice') ? [{ style: 'muted' as const, label: 'practice' }] : []),
              ]}
              title="Votes per item"
            />
          </SavableFigure>
        </div>
      </div>
      <KindPanels study={study} kinds={[...new Set(data.votes.perItem.map((i) => i.kind))]} votes={data.votes.total} />
    </section>
  );
}

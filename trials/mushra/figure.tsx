/**
 * The MUSHRA section (analysis-spec §5.3, ITU-R BS.1534-3) as the HTML report and the dashboard both
 * draw it (a kind's figure.tsx imports figures/ only, eslint.config.js): per stimulus system the box
 * plot and the mean with its 95% interval in one figure, the table of those numbers, and the
 * post-screening's excluded listeners with both of their fractions.
 */
import type { ReactElement } from 'react';
import { BoxPlot } from '../../figures/BoxPlot';
import { fixed, intervalText, percent } from '../../figures/chart';

/** What the figure reads of the report's `mushra` section (trials/mushra/report.ts MushraSection). */
export interface MushraFigureSection {
  items: number;
  listeners: number;
  screening: {
    applied: boolean;
    excluded: ReadonlyArray<{ listener_id: string; reference_below_90: number | null; anchor70_above_90: number | null }>;
    exempt_items: readonly string[];
  };
  systems: ReadonlyArray<{
    system: string;
    role: string;
    n: number;
    mean: number | null;
    sd: number | null;
    ci95: [number, number] | null;
    median: number | null;
    iqr: [number, number] | null;
    whiskers: [number, number] | null;
    rank: number | null;
    rank_ci: number | null;
  }>;
}

const ROLE_NAMES: Record<string, string> = { reference: 'hidden reference', anchor35: 'anchor 3.5 kHz', anchor70: 'anchor 7 kHz', condition: 'system' };
const one = (v: number | null) => fixed(v, 1);

/** Per stimulus, the box plot of its scores and its mean with the 95% interval. */
const scoresPlot = (section: MushraFigureSection): ReactElement => (
  <BoxPlot
    name="mushra"
    title="MUSHRA: scores per stimulus with box plots and mean 95% intervals"
    axis="score 0–100"
    range={[0, 100]}
    rows={section.systems.map((s) => ({ label: s.role === 'condition' ? s.system : ROLE_NAMES[s.role], n: s.n, mean: s.mean, ci95: s.ci95, median: s.median, iqr: s.iqr, whiskers: s.whiskers }))}
  />
);

/** The section's standalone figures (the paper bundle's figures/). */
export const mushraFigures = (section: MushraFigureSection): [string, ReactElement][] => (section.systems.length ? [['mushra.svg', scoresPlot(section)]] : []);

export function MushraFigure({ section }: { section: MushraFigureSection }) {
  if (section.systems.length === 0) return <p>No MUSHRA items yet.</p>;
  const { screening } = section;
  return (
    <>
      {scoresPlot(section)}
      <table className="data" data-testid="mushra-systems">
        <caption>{`${section.items} scored MUSHRA pages, ${section.listeners} retained listeners; rank and rank interval among the systems under test`}</caption>
        <thead>
          <tr><th scope="col">stimulus</th><th scope="col">role</th><th scope="col">scores</th><th scope="col">mean</th><th scope="col">95% CI (t)</th><th scope="col">sd</th><th scope="col">median</th><th scope="col">quartiles</th><th scope="col">whiskers</th><th scope="col">rank</th><th scope="col">rank interval</th></tr>
        </thead>
        <tbody>
          {section.systems.map((s) => (
            <tr key={`${s.role} ${s.system}`}>
              <td>{s.system}</td><td>{ROLE_NAMES[s.role] ?? s.role}</td><td>{s.n}</td><td>{fixed(s.mean)}</td><td>{intervalText(s.ci95, (v) => fixed(v))}</td><td>{fixed(s.sd)}</td>
              <td>{one(s.median)}</td><td>{intervalText(s.iqr, one)}</td><td>{intervalText(s.whiskers, one)}</td><td>{s.rank ?? '—'}</td><td>{s.rank_ci ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!screening.applied ? <p className="muted">Post-screening (BS.1534-3 §4.1.2) is turned off for this study.</p> : (
        <table className="data" data-testid="mushra-screening">
          <caption>{`Post-screening (BS.1534-3 §4.1.2): ${screening.excluded.length} listener(s) excluded for scoring the hidden reference below 90 or the 7 kHz anchor above 90 on more than 15% of pages${screening.exempt_items.length > 0 ? `; exempt from the anchor rule: ${screening.exempt_items.join(', ')}` : ''}`}</caption>
          <thead>
            <tr><th scope="col">listener</th><th scope="col">pages with reference &lt; 90</th><th scope="col">pages with anchor 7 kHz &gt; 90</th></tr>
          </thead>
          <tbody>
            {screening.excluded.map((e) => (
              <tr key={e.listener_id}><td>{e.listener_id}</td><td>{percent(e.reference_below_90)}</td><td>{percent(e.anchor70_above_90)}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/**
 * The CCR section (analysis-spec §6.4) as the HTML report and the dashboard both draw it (a kind's
 * figure.tsx imports figures/ only, eslint.config.js): the CMOS per processed system on the −3…+3
 * scale with its t interval (figures/MosChart), the table of the section's numbers and the order
 * effect (mean score with the reference first minus with the processed first).
 */
import { fixed, intervalText } from '../../figures/chart';
import { MosChart } from '../../figures/MosChart';

/** What the figure reads of the report's `ccr` section (trials/ccr/report.ts CcrSection). */
export interface CcrFigureSection {
  answers: number;
  systems: ReadonlyArray<{
    system: string;
    reference_system: string;
    n: number;
    cmos: number | null;
    sd: number | null;
    ci95: [number, number] | null;
    rank: number | null;
    rank_ci: number | null;
  }>;
  order_effect: number | null;
  reference_first: { n: number; mean: number | null };
  processed_first: { n: number; mean: number | null };
}

export function CcrFigure({ section }: { section: CcrFigureSection }) {
  const rated = section.systems.flatMap((s) => (s.cmos === null || s.rank === null ? [] : [{ system: s.system, rank: s.rank, n: s.n, mos: s.cmos, ci95: s.ci95 }]));
  return (
    <>
      {rated.length > 0 ? <MosChart systems={rated} scale={[-3, 3]} measure="CMOS" /> : <p>No CCR scores of retained listeners yet.</p>}
      <table className="data" data-testid="ccr-systems">
        <caption>{`CMOS: the mean score of the processed system relative to its reference (−3 much worse … +3 much better), over ${section.answers} scored answers of retained listeners`}</caption>
        <thead>
          <tr><th scope="col">rank</th><th scope="col">system</th><th scope="col">reference</th><th scope="col">n</th><th scope="col">CMOS</th><th scope="col">SD</th><th scope="col">95% CI (t)</th><th scope="col">rank_ci</th></tr>
        </thead>
        <tbody>
          {section.systems.map((s) => (
            <tr key={s.system}>
              <td>{s.rank ?? '—'}</td><td>{s.system}</td><td>{s.reference_system}</td><td>{s.n}</td><td>{fixed(s.cmos)}</td><td>{fixed(s.sd)}</td><td>{intervalText(s.ci95, (v) => fixed(v))}</td><td>{s.rank_ci ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p data-testid="ccr-order">
        {`Order effect: ${fixed(section.order_effect)} (mean score with the reference played first ${fixed(section.reference_first.mean)}, n = ${section.reference_first.n}; with the processed first ${fixed(section.processed_first.mean)}, n = ${section.processed_first.n}). Near 0, the order the two were played in did not sway the answers.`}
      </p>
    </>
  );
}

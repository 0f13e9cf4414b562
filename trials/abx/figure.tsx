/**
 * The ABX section (analysis-spec §6.3) as the HTML report and the dashboard both draw it (a kind's
 * figure.tsx imports figures/ only, eslint.config.js): per system pair the share of right answers
 * with its Wilson interval against the 50% of guessing, and the table of the section's numbers.
 */
import { fixed, intervalText, percent } from '../../figures/chart';
import { ShareChart } from '../../figures/ShareChart';
import { wilsonInterval } from '../../figures/wilson-interval';

/** What the figure reads of the report's `abx` section (trials/abx/report.ts AbxSection). */
export interface AbxFigureSection {
  answers: number;
  pairs: ReadonlyArray<{
    system_a: string;
    system_b: string;
    n: number;
    correct: number;
    p_correct: number | null;
    p_value: number | null;
    d_prime_independent: number | null;
    d_prime_differencing: number | null;
  }>;
}

const pValue = (p: number | null) => (p === null ? '—' : p < 0.001 ? '< 0.001' : p.toFixed(3));

export function AbxFigure({ section }: { section: AbxFigureSection }) {
  if (section.pairs.length === 0) return <p>No ABX items yet.</p>;
  return (
    <>
      <ShareChart
        name="abx-correct"
        title="ABX: share of right answers per system pair with 95% intervals"
        axis="share of right answers"
        points={section.pairs.map((p) => ({ label: `${p.system_a} vs ${p.system_b}`, share: p.p_correct, ci95: wilsonInterval(p.correct, p.n), n: p.n }))}
      />
      <table className="data" data-testid="abx-pairs">
        <caption>{`${section.answers} scored answers of retained listeners; p: one-sided exact binomial test against guessing (½)`}</caption>
        <thead>
          <tr><th scope="col">system a</th><th scope="col">system b</th><th scope="col">answers</th><th scope="col">right</th><th scope="col">% right</th><th scope="col">95% CI (Wilson)</th><th scope="col">exact binomial p</th><th scope="col">d′ (independent)</th><th scope="col">d′ (differencing)</th></tr>
        </thead>
        <tbody>
          {section.pairs.map((p) => (
            <tr key={`${p.system_a} ${p.system_b}`}>
              <td>{p.system_a}</td><td>{p.system_b}</td><td>{p.n}</td><td>{p.correct}</td><td>{percent(p.p_correct)}</td>
              <td>{intervalText(wilsonInterval(p.correct, p.n), (v) => percent(v))}</td><td>{pValue(p.p_value)}</td><td>{fixed(p.d_prime_independent)}</td><td>{fixed(p.d_prime_differencing)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

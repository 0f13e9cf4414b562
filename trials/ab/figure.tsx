/**
 * The A/B preference per system pair (analysis-spec §6.1), drawn alike by the HTML report and the
 * dashboard (a kind's figure.tsx imports figures/ only, eslint.config.js). It reads the report's
 * `items` (retained listeners' votes per A/B item, ties apart), so it shows the very counts of
 * the pair analysis: per unordered pair (the lesser name first) the share of decided votes
 * preferring its first system, with its Wilson interval, and the ties beside them.
 */
import { percent, intervalText } from '../../figures/chart';
import { ShareChart } from '../../figures/ShareChart';
import { wilsonInterval } from '../../figures/wilson-interval';

/** What the figure reads of a report item (analysis/report.ts PairItemRow). */
export interface AbItemVotes {
  system_a: string;
  system_b: string;
  votes_a: number;
  votes_b: number;
  ties?: number;
}

export interface AbPreference {
  first: string;
  second: string;
  /** decided votes: for first + for second */
  decided: number;
  forFirst: number;
  ties: number;
  share: number | null;
  ci95: [number, number] | null;
}

export function abPreferences(items: readonly AbItemVotes[]): AbPreference[] {
  const pairs = new Map<string, { first: string; second: string; forFirst: number; forSecond: number; ties: number }>();
  for (const i of items) {
    const swapped = i.system_b < i.system_a;
    const [first, second] = swapped ? [i.system_b, i.system_a] : [i.system_a, i.system_b];
    const key = `${first}\u0000${second}`;
    let p = pairs.get(key);
    if (!p) pairs.set(key, (p = { first, second, forFirst: 0, forSecond: 0, ties: 0 }));
    p.forFirst += swapped ? i.votes_b : i.votes_a;
    p.forSecond += swapped ? i.votes_a : i.votes_b;
    p.ties += i.ties ?? 0;
  }
  return [...pairs.values()]
    .sort((p, q) => (p.first < q.first ? -1 : p.first > q.first ? 1 : p.second < q.second ? -1 : p.second > q.second ? 1 : 0))
    .map((p) => {
      const decided = p.forFirst + p.forSecond;
      return { first: p.first, second: p.second, decided, forFirst: p.forFirst, ties: p.ties, share: decided ? p.forFirst / decided : null, ci95: wilsonInterval(p.forFirst, decided) };
    });
}

/** The figure and its table; `items` are the report's A/B items (those with `ties`). */
export function AbFigure({ items }: { items: readonly AbItemVotes[] }) {
  const pairs = abPreferences(items);
  if (pairs.length === 0) return <p>No A/B items yet.</p>;
  return (
    <>
      <ShareChart
        name="ab-preference"
        title="A/B preference per system pair with 95% intervals"
        axis="share preferring the first system"
        points={pairs.map((p) => ({ label: `${p.first} vs ${p.second}`, share: p.share, ci95: p.ci95, n: p.decided }))}
      />
      <table className="data" data-testid="ab-preference">
        <caption>Votes of retained listeners on the A/B items, per system pair (ties apart)</caption>
        <thead>
          <tr><th scope="col">first system</th><th scope="col">second system</th><th scope="col">for first</th><th scope="col">decided votes</th><th scope="col">share for first</th><th scope="col">95% CI (Wilson)</th><th scope="col">ties</th></tr>
        </thead>
        <tbody>
          {pairs.map((p) => (
            <tr key={`${p.first} ${p.second}`}>
              <td>{p.first}</td><td>{p.second}</td><td>{p.forFirst}</td><td>{p.decided}</td><td>{percent(p.share)}</td><td>{intervalText(p.ci95, (v) => percent(v))}</td><td>{p.ties}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/**
 * Ties of an A/B preference study, counted per system pair (docs/analysis-spec.md §6, `ab`).
 *
 * A tie ("no preference", when the study offers it) takes no side, so every statistic of the
 * votes leaves it out; this module only counts. Per item the caller gives its two systems, its
 * votes (ties included) and its ties; per unordered system pair {s, t}:
 *   votes = Σ votes of the pair's items, ties = Σ ties of the pair's items,
 * named with system_a < system_b in ordinal string order (UTF-16 code units, JavaScript's `<`),
 * whichever side of the items each system was on, and listed sorted by (system_a, system_b) in
 * that order. The total `votes` is the number of ties over all pairs.
 * Edge cases: a pair whose items have no votes is listed with votes = ties = 0; an empty input
 * gives votes = 0 and no pairs. Complexity: O(items · log pairs).
 */
export interface SystemPairTies {
  system_a: string;
  system_b: string;
  ties: number;
  votes: number;
}

export interface TieCounts {
  /** the ties counted, over every pair */
  votes: number;
  per_system_pair: SystemPairTies[];
}

export interface ItemTies {
  systemA: string;
  systemB: string;
  /** votes on the item, ties included */
  votes: number;
  ties: number;
}

export function tieCounts(items: Iterable<ItemTies>): TieCounts {
  const pairs = new Map<string, SystemPairTies>();
  let total = 0;
  for (const item of items) {
    const [a, b] = item.systemA < item.systemB ? [item.systemA, item.systemB] : [item.systemB, item.systemA];
    // JSON of the two names: no separator a system name could contain.
    const key = JSON.stringify([a, b]);
    let pair = pairs.get(key);
    if (!pair) pairs.set(key, (pair = { system_a: a, system_b: b, ties: 0, votes: 0 }));
    pair.ties += item.ties;
    pair.votes += item.votes;
    total += item.ties;
  }
  const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const perPair = [...pairs.values()].sort((x, y) => order(x.system_a, y.system_a) || order(x.system_b, y.system_b));
  return { votes: total, per_system_pair: perPair };
}

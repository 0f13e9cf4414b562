/**
 * Which caption of each item is `a` (analysis-spec §1, "Orientation"): a seeded coin per item,
 * balanced so that each system is `a` in half of its items (±1). Krippendorff's α and Fleiss' κ
 * depend on this coding through the category totals, so a lopsided coding (one system always
 * `a`) would move them; the Brennan–Prediger κ of the report does not.
 *
 * Method: the items are the edges of a multigraph on the systems. Systems of odd degree are
 * joined to one extra vertex, which makes every degree even; then walks along unused edges,
 * each of which can only end where it started, are oriented as walked or reversed by a coin.
 * A closed walk enters every vertex as often as it leaves it, so a system is `a` in exactly half
 * of its items, give or take the one extra edge it may have: ⌊d/2⌋ or ⌈d/2⌉ of d. Every item's
 * side is still a fair coin (its walk's). Walk order and edge order are shuffled with `random`.
 * Cost O(items + systems).
 */
import type { StudyRandom } from '../analysis/random';

/** For each pair [s1, s2] (s1 ≠ s2): true when s2 is to be `a`. */
export function balancedOrientation(pairs: readonly (readonly [string, string])[], random: StudyRandom): boolean[] {
  const index = new Map<string, number>();
  const vertex = (s: string) => {
    let v = index.get(s);
    if (v === undefined) index.set(s, (v = index.size));
    return v;
  };
  const from: number[] = [];
  const to: number[] = [];
  for (const [s1, s2] of pairs) {
    from.push(vertex(s1));
    to.push(vertex(s2));
  }
  const real = pairs.length;
  const extra = index.size;
  const degree = new Int32Array(extra);
  for (let e = 0; e < real; e++) {
    degree[from[e]]++;
    degree[to[e]]++;
  }
  for (let v = 0; v < extra; v++) {
    if (degree[v] % 2 === 1) {
      from.push(v);
      to.push(extra);
    }
  }
  const adjacency: number[][] = Array.from({ length: extra + 1 }, () => []);
  for (let e = 0; e < from.length; e++) {
    adjacency[from[e]].push(e);
    adjacency[to[e]].push(e);
  }
  const edges = adjacency.map((list) => random.shuffle(list));
  const next = new Int32Array(extra + 1);
  const used = new Uint8Array(from.length);
  const swap = new Array<boolean>(real).fill(false);
  for (const start of random.shuffle([...edges.keys()])) {
    for (;;) {
      // One closed walk from `start`: leaves[k] = the vertex the walk's k-th edge leaves from.
      const walk: number[] = [];
      const leaves: number[] = [];
      let at = start;
      for (;;) {
        const list = edges[at];
        while (next[at] < list.length && used[list[next[at]]]) next[at]++;
        if (next[at] === list.length) break;
        const e = list[next[at]];
        used[e] = 1;
        walk.push(e);
        leaves.push(at);
        at = from[e] === at ? to[e] : from[e];
      }
      if (walk.length === 0) break;
      const reverse = random.next() < 0.5;
      walk.forEach((e, k) => {
        if (e >= real) return;
        const a = reverse ? (from[e] === leaves[k] ? to[e] : from[e]) : leaves[k];
        swap[e] = a !== from[e];
      });
    }
  }
  return swap;
}

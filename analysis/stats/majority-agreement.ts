/**
 * Each listener's agreement with the majority of the other listeners (leave-one-out), the pair
 * report's per-listener quality figure: a listener who clicks at random agrees about half of the
 * time whatever the attention checks say, an attentive one more often.
 *
 * Input: the votes on non-attention items as parallel arrays (item, listener, chosen a = 1), a
 * flag per vote saying whether it is counted in the panel's tallies, and the panel's tallies
 * per item (votes for a, votes in all; analysis-spec §2: retained listeners only).
 * Formula: for listener l's vote on item i, the others' tallies are a′ = a_i − [counted]·chosen_a
 * and t′ = t_i − [counted]; their majority is a if 2a′ > t′, b if 2(t′ − a′) > t′ (the spec's
 * "more than half of its votes"), none otherwise (a tie, or no other vote). The listener's
 * n = votes on items where the others have a majority, agree = those matching it; agreement =
 * agree / n, read against its Wilson interval (wilson-interval.ts): 50% is chance.
 * Leaving the listener's own vote out keeps a listener from agreeing with themself (with three
 * votes on an item, one's own vote would decide a third of the majority).
 * Source: the human majority of analysis-spec §2, applied per listener; the same
 * leave-one-out reference as listener-correlation.ts for ratings (ITU-T P.808's check).
 * Complexity: O(votes).
 * Edge cases: a listener with no vote on an item that has another voter's majority has n = 0
 * (agreement undefined, left to the caller as null); excluded listeners' votes are not counted in
 * the tallies but are still compared with them.
 */
export interface MajorityAgreement {
  n: number;
  agree: number;
}

export function majorityAgreement(
  item: ArrayLike<number>,
  listener: ArrayLike<number>,
  chosenA: ArrayLike<number>,
  counted: ArrayLike<number>,
  votesA: ArrayLike<number>,
  votesTotal: ArrayLike<number>,
  listeners: number,
): MajorityAgreement[] {
  const n = new Int32Array(listeners);
  const agree = new Int32Array(listeners);
  for (let v = 0; v < item.length; v++) {
    const i = item[v];
    const own = counted[v] ? 1 : 0;
    const a = votesA[i] - own * chosenA[v];
    const t = votesTotal[i] - own;
    const majority = 2 * a > t ? 1 : 2 * (t - a) > t ? 0 : -1;
    if (majority < 0) continue;
    n[listener[v]]++;
    if (majority === chosenA[v]) agree[listener[v]]++;
  }
  return Array.from({ length: listeners }, (_, l) => ({ n: n[l], agree: agree[l] }));
}

/**
 * The majority answer of one item's labels (analysis-spec §5.5).
 *
 * single: the value chosen by more than half of the answers, else null (no majority; a tie is
 *   never a majority);
 * multi: the set of values contained in more than half of the answers (possibly empty: "none of
 *   these" is then the majority).
 * Edge cases: no answers → null for both. Complexity: O(answers · values).
 */
export function singleMajority(answers: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
  for (const [value, n] of counts) if (n * 2 > answers.length) return value;
  return null;
}

export function multiMajority(answers: ReadonlyArray<ReadonlySet<string>>): Set<string> | null {
  if (answers.length === 0) return null;
  const counts = new Map<string, number>();
  for (const a of answers) for (const v of a) counts.set(v, (counts.get(v) ?? 0) + 1);
  return new Set([...counts].filter(([, n]) => n * 2 > answers.length).map(([v]) => v));
}

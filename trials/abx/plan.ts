/**
 * The ABX kind's build: its items are A/B items (trials/ab/plan.ts: two systems' renditions of one
 * utterance, listed or sampled over system pairs; checks and practice a rendition against its
 * clearly degraded copy, where X is the degraded copy, so `expected` is the degraded side).
 * Each listener's X is drawn per trial, balanced: over a listener's trials X is "A" in half of them
 * and "B" in the other half (± 1), and the scored trials alone are balanced the same way.
 */
import type { PlanContext } from '../../studies/build';
import type { StudyDefinitionOf } from '../../contract/study-definition';
import type { KindPlan, OrderedTrial } from '../../studies/trials';
import type { StudyRandom } from '../../analysis/random';
import { planRenditionPairs } from '../ab/plan';

export const planAbxItems = (def: StudyDefinitionOf<'abx'>, study: PlanContext): KindPlan => planRenditionPairs(def, study, 'abx', 'degraded');

type Side = 'A' | 'B';

/** n screen sides of X, half A and half B; an odd n's extra one is `extra`; shuffled. */
function balancedSides(n: number, extra: Side, random: StudyRandom): Side[] {
  const half = Math.floor(n / 2);
  const sides: Side[] = [...Array<Side>(half).fill('A'), ...Array<Side>(half).fill('B')];
  if (n % 2 === 1) sides.push(extra);
  return random.shuffle(sides);
}

/**
 * One listener's slot orders, in position order: [slot offered as A, slot offered as B, slot X is].
 * X's side is balanced over the scored trials, and over the checks and practice trials with the
 * opposite odd one out, so the whole sequence is balanced too (the two surpluses cancel). X's slot
 * is a coin per scored trial; a check's or practice trial's X is its degraded copy (`expected`).
 */
export function abxOrders(trials: readonly OrderedTrial[], random: StudyRandom): string[][] {
  const scored = trials.filter((t) => t.expected === null);
  const extra: Side = random.next() < 0.5 ? 'A' : 'B';
  const sides = [balancedSides(scored.length, extra, random), balancedSides(trials.length - scored.length, extra === 'A' ? 'B' : 'A', random)];
  const next = [0, 0];
  return trials.map((t) => {
    const group = t.expected === null ? 0 : 1;
    const side = sides[group][next[group]++];
    const x = t.expected ?? (random.next() < 0.5 ? 'a' : 'b');
    const other = x === 'a' ? 'b' : 'a';
    return side === 'A' ? [x, other, x] : [other, x, x];
  });
}

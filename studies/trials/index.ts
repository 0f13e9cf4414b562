/**
 * Every trial kind's part of the build, declared once: how its item config in study.yaml becomes
 * item rows (studies/trials/<kind>.ts), and whether a listener's trial has an order to draw. The
 * build, the design and the assignment code ask this registry and know no kind themselves.
 * A new kind is one file here plus one entry below.
 */
import type { PlanContext, PlannedItem } from '../build';
import type { SamplerSummary } from '../sampler';
import type { StudyDefinition, StudyDefinitionOf } from '../../contract/study-definition';
import type { TrialKind } from '../../contract/trials';
import { planPairItems } from '../../trials/pair/plan';
import { planRatingItems } from '../../trials/rating/plan';
import { planAbItems } from '../../trials/ab/plan';
import { abxOrders, planAbxItems } from '../../trials/abx/plan';
import { ccrOrders, planCcrItems } from '../../trials/ccr/plan';
import { planTagsItems } from '../../trials/tags/plan';
import { planMushraItems } from '../../trials/mushra/plan';
import { planDescribeItems } from '../../trials/describe/plan';
import type { StudyRandom } from '../../analysis/random';
import { clipsOf } from '../stimuli';

/** What a kind planned: its items, attention checks and practice trials, and the sampler's account. */
export interface KindPlan {
  items: PlannedItem[];
  sampler: SamplerSummary | null;
}

interface KindBuild<K extends TrialKind> {
  plan(def: StudyDefinitionOf<K>, study: PlanContext): KindPlan;
  /** Whether each assignment draws the order a listener meets the item's slots in (assignments.slot_order). */
  drawsOrder: boolean;
  /**
   * A kind that balances its orders over a listener's trials or across listeners draws them all
   * at once, in position order (`firstSlots`: how many earlier assignments of an item met each slot
   * first); the others draw one order per trial (drawOrder).
   */
  orders?(trials: readonly OrderedTrial[], random: StudyRandom, firstSlots: (itemId: string) => Record<string, number>): string[][];
  /**
   * The clips of an item that a trial plays again under another id (ABX's X, MUSHRA's hidden
   * reference), each to get a replay (audio-manifest/served.ts); a kind without it plays each clip once.
   */
  replays?(item: PlannedItem): string[];
}

/** A listener's trial as a kind's `orders` sees it: its item, the item's slots and its expected answer (null: a scored item). */
export interface OrderedTrial {
  itemId: string;
  slots: readonly string[];
  expected: string | null;
}

const KINDS: { [K in TrialKind]: KindBuild<K> } = {
  pair: { plan: planPairItems, drawsOrder: true },
  rating: { plan: planRatingItems, drawsOrder: false },
  ab: { plan: planAbItems, drawsOrder: true },
  // X is either side again: every clip of the item.
  abx: { plan: planAbxItems, drawsOrder: true, orders: abxOrders, replays: (item) => clipsOf(item.stimuli) },
  ccr: { plan: planCcrItems, drawsOrder: true, orders: ccrOrders },
  tags: { plan: planTagsItems, drawsOrder: false },
  // A random permutation of the page's stimuli per listener (drawOrder), recorded as the slot order.
  // The hidden reference is the open reference's clip again: only that one (docs/blinding.md).
  mushra: { plan: planMushraItems, drawsOrder: true, replays: (item) => clipsOf(item.stimuli.filter((s) => s.slot === 'reference')) },
  describe: { plan: planDescribeItems, drawsOrder: false },
};

/**
 * The order a listener meets an item's slots in, drawn from the listener's own random stream: a
 * uniform permutation (two slots: one draw, the first slot first below ½), or null for a kind that
 * draws none. Nothing is drawn for such a kind, so the stream (and every later draw) is the same
 * whatever kinds came before.
 */
export function drawOrder(kind: TrialKind, slots: readonly string[], random: { next(): number }): string[] | null {
  if (!KINDS[kind].drawsOrder) return null;
  if (slots.length === 2) return random.next() < 0.5 ? [...slots] : [slots[1], slots[0]];
  const order = [...slots];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** The slot orders of a listener's trials of one study (of one kind), in position order. */
export function drawOrders(kind: TrialKind, trials: readonly OrderedTrial[], random: StudyRandom, firstSlots: (itemId: string) => Record<string, number>): (string[] | null)[] {
  const orders = KINDS[kind].orders;
  if (orders) return orders(trials, random, firstSlots);
  return trials.map((t) => drawOrder(kind, t.slots, random));
}

/** The clips that need a replay: those each item's kind plays again. */
export function replayedClips(items: readonly PlannedItem[]): string[] {
  return items.flatMap((i) => KINDS[i.trialKind].replays?.(i) ?? []);
}

/** The study's item config as item rows, by its trial kind. */
export function planItems(def: StudyDefinition, study: PlanContext): KindPlan {
  return (KINDS[def.trial.kind] as KindBuild<TrialKind>).plan(def as never, study);
}


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
import { planPairItems } from './pair';
import { planRatingItems } from './rating';

/** What a kind planned: its items, attention checks and practice trials, and the sampler's account. */
export interface KindPlan {
  items: PlannedItem[];
  sampler: SamplerSummary | null;
}

interface KindBuild<K extends TrialKind> {
  plan(def: StudyDefinitionOf<K>, study: PlanContext): KindPlan;
  /** Whether each assignment draws which side a listener meets first (assignments.first). */
  drawsOrder: boolean;
}

const KINDS: { [K in TrialKind]: KindBuild<K> } = {
  pair: { plan: planPairItems, drawsOrder: true },
  rating: { plan: planRatingItems, drawsOrder: false },
};

/** The study's item config as item rows, by its trial kind. */
export function planItems(def: StudyDefinition, study: PlanContext): KindPlan {
  return (KINDS[def.trial.kind] as KindBuild<TrialKind>).plan(def as never, study);
}

/** Whether trials of this kind show their two sides in an order drawn per listener. */
export function drawsOrder(kind: TrialKind): boolean {
  return KINDS[kind].drawsOrder;
}

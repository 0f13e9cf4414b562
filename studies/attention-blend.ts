/**
 * How well a study's attention checks blend in with its items, as the build measures it and warns
 * (issue 20 item 8). One plan has a handful of checks, too few to measure, so the study is planned
 * (a dry run) under 12 seeds and the distinct trials of all the plans are pooled: the figures say
 * what the generator does with this corpus, whichever seed the study has.
 */
import type { Db } from '../db/open';
import type { ParsedStudy } from './parse';
import { StudyDefinitionError } from './parse';
import { planStudy, type PlannedItem, type PlanScope } from './build';
import { blendFigures, blendWarning, type BlendFigures, type ShownItem } from './text-classifier';

export const BLEND_SEEDS = 12;

/** A planned item as the classifier reads it: the texts of its first two stimuli (a kind without texts shows none). */
export const shownItem = (i: PlannedItem): ShownItem => ({
  kind: i.kind, trialKind: i.trialKind, captionA: i.stimuli[0]?.text ?? null, captionB: i.stimuli[1]?.text ?? null, expected: i.expected,
});

export function pooledBlend(db: Db, parsed: ParsedStudy, scope?: PlanScope): { figures: BlendFigures | null; planned: number } {
  const trials = new Map<string, ShownItem>();
  let planned = 0;
  for (let seed = 1; seed <= BLEND_SEEDS; seed++) {
    let plan;
    try {
      plan = planStudy(db, { ...parsed, definition: { ...parsed.definition, seed } }, scope);
    } catch (error) {
      // A small corpus cannot meet every count under every seed (the study's own seed plans: the build checked).
      if (error instanceof StudyDefinitionError) continue;
      throw error;
    }
    planned++;
    // One trial once, whichever side it shows first: a trial met twice would be recognised in cross-validation, not read.
    for (const i of plan.items.map(shownItem)) {
      const key = [i.captionA, i.captionB].sort().join(' | ');
      if (i.kind === 'attention') trials.set(`attention ${key} → ${i.expected === 'a' ? i.captionA : i.captionB}`, i);
      else if (i.kind === i.trialKind) trials.set(`item ${key}`, i);
    }
  }
  return { figures: blendFigures([...trials.values()]), planned };
}

/** The build's and validate's warning, or null: checks a text-only reader may spot. */
export function studyBlendWarning(db: Db, parsed: ParsedStudy, scope?: PlanScope): string | null {
  if (!parsed.definition.attentionChecks) return null;
  return blendWarning(pooledBlend(db, parsed, scope).figures);
}

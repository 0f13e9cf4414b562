/**
 * What the server needs from a study's definition at run time: the listener-facing settings
 * (blinded: no items, systems or sources) and the exclusion rules the live dashboard and the
 * export apply.
 */
import type { ListeningRequirement, StudyIntro } from '../server/contract';
import type { Db } from '../server/db/open';
import { StudyDefinition } from './schema';

/** The stored, validated definition of a built study. */
export function readStudyDefinition(db: Db, studyId: string): StudyDefinition {
  const row = db.prepare('SELECT definition FROM studies WHERE id = ?').get(studyId) as { definition: string } | undefined;
  if (!row) throw new Error(`unknown study ${studyId}`);
  return StudyDefinition.parse(JSON.parse(row.definition));
}

export function listeningRequirement(definition: StudyDefinition): ListeningRequirement {
  return definition.listening;
}

/** The welcome/consent/instructions payload (contract StudyIntro) for a study. */
export function studyIntro(studyId: string, status: StudyIntro['status'], definition: StudyDefinition): StudyIntro {
  return {
    study: studyId,
    title: definition.title,
    status,
    consentMarkdown: definition.consent,
    instructionsMarkdown: definition.instructions,
    questionMarkdown: definition.question,
    listening: listeningRequirement(definition),
    screening: definition.screening,
    linkParameters: definition.linkParameters,
  };
}

/**
 * The study's exclusion rules. A rule that is off is null; the dashboard and export must show
 * a rule whose check could not run for a listener (e.g. screening never loaded) as "not run".
 */
export interface ExclusionRules {
  /** Retained if attention-check score ≥ this (0–1); listeners with no attention answers are retained. */
  minAttention: number;
  /** Excluded if their median response time (ms) is below this. */
  minMedianResponseMs: number | null;
  /** Excluded if more trials than this broke the listening requirement. */
  maxListeningViolations: number | null;
  /** Excluded if the headphone screening ran and failed; only when the study screens. */
  excludeFailedScreening: boolean;
  /** Whether a screening is part of the session at all (kind ≠ none). */
  screening: StudyDefinition['screening'];
  listening: ListeningRequirement;
}

export function exclusionRules(definition: StudyDefinition): ExclusionRules {
  return {
    minAttention: definition.exclusion.minAttention,
    minMedianResponseMs: definition.exclusion.minMedianResponseMs ?? null,
    maxListeningViolations: definition.exclusion.maxListeningViolations ?? null,
    excludeFailedScreening: definition.exclusion.excludeFailedScreening && definition.screening.kind !== 'none',
    screening: definition.screening,
    listening: listeningRequirement(definition),
  };
}

/** Completion payload (contract Completion) for a listener who finished. */
export function completion(definition: StudyDefinition): { code: string | null; redirectUrl: string | null } {
  return { code: definition.completion.code ?? null, redirectUrl: definition.completion.redirectUrl ?? null };
}

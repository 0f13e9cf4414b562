/**
 * What the server needs from a study's definition at run time: the listener-facing settings
 * (blinded: no items, systems or sources). The exclusion rules reach the analysis through the
 * export's study.json (server/bundle.ts).
 */
import type { ListeningRequirement, StudyIntro } from '../server/contract';
import type { Db } from '../db/open';
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

/**
 * The welcome/consent/instructions payload (contract StudyIntro) for a study, but for the
 * expected length, which needs the built items' clips (server/store/studies.ts adds it).
 */
export function studyIntro(studyId: string, status: StudyIntro['status'], definition: StudyDefinition): Omit<StudyIntro, 'estimate'> {
  return {
    study: studyId,
    language: definition.language,
    title: definition.title,
    status,
    consentMarkdown: definition.consent,
    instructionsMarkdown: definition.instructions,
    questionMarkdown: definition.question,
    listening: listeningRequirement(definition),
    screening: definition.screening,
    linkParameters: definition.linkParameters,
    breakEvery: definition.breakEvery ?? null,
    comments: definition.comments,
  };
}

/** Completion payload (contract Completion) for a listener who finished. */
export function completion(definition: StudyDefinition): { code: string | null; redirectUrl: string | null } {
  return { code: definition.completion.code ?? null, redirectUrl: definition.completion.redirectUrl ?? null };
}

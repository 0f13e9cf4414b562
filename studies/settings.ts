/**
 * A built study's definition as the server reads it at run time. The listener-facing intro is
 * assembled from it in server/store/studies.ts; the exclusion rules reach the analysis through the
 * export's study.json (server/bundle.ts).
 */
import type { Db } from '../db/open';
import { StudyDefinition } from '../contract/study-definition';
import { studyStore } from './store';

/** The stored, validated definition of a built study. */
export function readStudyDefinition(db: Db, studyId: string): StudyDefinition {
  const stored = studyStore(db).definition(studyId);
  if (stored === undefined) throw new Error(`unknown study ${studyId}`);
  return StudyDefinition.parse(JSON.parse(stored));
}

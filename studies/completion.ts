/**
 * A completion code is what pays a participant: a placeholder left from a template (`REPLACE-ME`)
 * or a code that differs from the one the redirect link hands back (`…/complete?cc=…`) would be
 * shown to listeners and refused by the platform. Validate warns; build and open refuse.
 */
import type { StudyDefinition } from '../contract/study-definition';
import type { FieldPath } from './parse';

/** What templates and forgotten edits leave in a code: REPLACE-ME, CHANGE_ME, TODO, XXXX, <your code>, PLACEHOLDER. */
const PLACEHOLDER = /^(?:<.*>|\{.*\}|\[.*\]|x{3,}|\?+|.*(?:replace|change|fill|insert)[-_ ]?(?:me|this|here|code)|.*\b(?:todo|tbd|fixme|placeholder|dummy)\b.*|your[-_ ]?(?:completion[-_ ]?)?code|completion[-_ ]?code|code|example)$/i;

export function isPlaceholderCode(code: string): boolean {
  return PLACEHOLDER.test(code.trim());
}

export interface CompletionProblem {
  path: FieldPath;
  message: string;
}

/** The `cc=` a redirect link carries (Prolific's completion code parameter), if any. */
function redirectCode(url: string): string | null {
  try {
    return new URL(url).searchParams.get('cc');
  } catch {
    return null;
  }
}

function check(way: { code?: string; redirectUrl?: string }, path: FieldPath, problems: CompletionProblem[]): void {
  const fix = "put the code your platform gave you (Prolific: the study's Completion codes)";
  if (way.code !== undefined && isPlaceholderCode(way.code)) problems.push({ path: [...path, 'code'], message: `"${way.code}" is a placeholder, not a completion code: ${fix}` });
  const cc = way.redirectUrl === undefined ? null : redirectCode(way.redirectUrl);
  if (cc === null) return;
  if (isPlaceholderCode(cc)) problems.push({ path: [...path, 'redirectUrl'], message: `cc=${cc} is a placeholder, not a completion code: ${fix}` });
  else if (way.code !== undefined && cc !== way.code) {
    problems.push({ path: [...path, 'redirectUrl'], message: `cc=${cc} differs from code ${way.code}: listeners would be shown one code and sent back with another; make them the same` });
  }
}

/** Every placeholder or mismatched completion code of the definition, with the field it is in. */
export function completionProblems(definition: StudyDefinition): CompletionProblem[] {
  const problems: CompletionProblem[] = [];
  const { whenStopped, ...finisher } = definition.completion;
  check(finisher, ['completion'], problems);
  if (typeof whenStopped === 'object') check(whenStopped, ['completion', 'whenStopped'], problems);
  return problems;
}

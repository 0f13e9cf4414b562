/**
 * study.yaml → validated StudyDefinition, with every problem reported as
 * `study.yaml:12:3 design.itemsPerListener: expected number, received string`.
 * The YAML document is kept so later checks (e.g. a system missing from the manifest) can point
 * at the line of the offending value too.
 */
import { readFileSync } from 'node:fs';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { z } from 'zod';
import { StudyDefinition } from '../contract/study-definition';

export type FieldPath = readonly (string | number)[];

export interface DefinitionProblem {
  file: string;
  line: number;
  column: number;
  field: string;
  message: string;
}

export class StudyDefinitionError extends Error {
  readonly problems: DefinitionProblem[];
  constructor(problems: DefinitionProblem[]) {
    const sorted = [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
    super(sorted.map(formatProblem).join('\n'));
    this.problems = sorted;
    this.name = 'StudyDefinitionError';
  }
}

export function formatProblem(p: DefinitionProblem): string {
  return `${p.file}:${p.line}:${p.column} ${p.field || '(top level)'}: ${p.message}`;
}

export function fieldName(path: FieldPath): string {
  return path.reduce<string>((acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

export interface ParsedStudy {
  definition: StudyDefinition;
  /** Builds a problem located at the YAML node for `path` (or its nearest existing parent). */
  problemAt(path: FieldPath, message: string): DefinitionProblem;
}

/** Position of the deepest existing node on `path`; for a key the map lacks, the map itself. */
function locator(doc: Document, lines: LineCounter, file: string) {
  return (path: FieldPath, message: string, key?: string): DefinitionProblem => {
    let node: unknown = doc.contents;
    let offset = 0;
    const offsetOf = (n: unknown): number => (n && typeof n === 'object' && 'range' in n && Array.isArray(n.range) ? n.range[0] : offset);
    offset = offsetOf(node);
    const steps: (string | number)[] = key === undefined ? [...path] : [...path, key];
    for (const step of steps) {
      if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === step);
        if (!pair) break;
        // An unknown key is best pointed at by the key itself; a bad value by the value.
        offset = step === key && key !== undefined ? offsetOf(pair.key) : offsetOf(pair.value ?? pair.key);
        node = pair.value;
      } else if (isSeq(node) && typeof step === 'number' && node.items[step] !== undefined) {
        node = node.items[step];
        offset = offsetOf(node);
      } else break;
    }
    const { line, col } = lines.linePos(offset);
    return { file, line, column: col, field: fieldName(key === undefined ? path : [...path, key]), message };
  };
}

function issueMessage(issue: z.core.$ZodIssue): string {
  return issue.message.replace(/^Invalid input: /, '');
}

/** Parses and validates the text of a study.yaml; throws StudyDefinitionError listing every problem. */
export function parseStudyYaml(text: string, file = 'study.yaml'): ParsedStudy {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new StudyDefinitionError(
      doc.errors.map((e) => {
        const { line, col } = lines.linePos(e.pos[0]);
        return { file, line, column: col, field: '', message: `YAML syntax: ${e.message.split('\n')[0]}` };
      }),
    );
  }
  const at = locator(doc, lines, file);
  const result = StudyDefinition.safeParse(plainValue(doc, lines, file) ?? {}, { reportInput: true });
  if (!result.success) {
    const problems: DefinitionProblem[] = [];
    for (const issue of result.error.issues) {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) problems.push(at(path, 'unknown key', key));
      } else if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && issue.input === undefined) {
        problems.push(at(path, 'required'));
      } else {
        problems.push(at(path, issueMessage(issue)));
      }
    }
    throw new StudyDefinitionError(problems);
  }
  return { definition: result.data, problemAt: (path, message) => at(path, message) };
}

/**
 * The document as plain data. The yaml library refuses to expand an alias bomb (aliases that
 * multiply to an enormous value) with a ReferenceError rather than a document error; report it at
 * the first alias like any other problem.
 */
function plainValue(doc: Document, lines: LineCounter, file: string): unknown {
  try {
    return doc.toJS();
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    let offset = 0;
    visit(doc, {
      Alias(_, node) {
        offset = node.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    const { line, col } = lines.linePos(offset);
    throw new StudyDefinitionError([{ file, line, column: col, field: '', message: `YAML: ${error.message}` }]);
  }
}

export function readStudyYaml(path: string, displayName = 'study.yaml'): ParsedStudy {
  return parseStudyYaml(readFileSync(path, 'utf8'), displayName);
}

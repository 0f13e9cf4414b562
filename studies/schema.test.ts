import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseStudyYaml, StudyDefinitionError } from './parse';
import { JSON_SCHEMA_FILE, renderJsonSchema } from './write-json-schema';

const minimal = `title: T
consent: C
instructions: I
question: Q
items:
  mode: explicit
  list:
    - { utterance: metaset:x/1.wav, systemA: a, systemB: b }
design:
  kind: crossed
targetListeners: 3
completion:
  code: OK
`;

function problems(yaml: string): string[] {
  try {
    parseStudyYaml(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(StudyDefinitionError);
    return (error as StudyDefinitionError).message.split('\n');
  }
  throw new Error('expected the definition to be refused');
}

describe('parseStudyYaml', () => {
  it('fills defaults', () => {
    const { definition } = parseStudyYaml(minimal);
    expect(definition).toMatchObject({
      task: 'holistic_creative_synthesis',
      listening: { mode: 'whole' },
      screening: { kind: 'none', required: false },
      exclusion: { minAttention: 0.75, excludeFailedScreening: false },
      linkParameters: ['PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID'],
      seed: 1,
      sources: [],
      practice: [],
    });
  });

  it('takes the grounds for rejection, attention by default; the screening is never one, and a ground needs its rule on', () => {
    expect(parseStudyYaml(minimal).definition.approvals).toEqual({ rejectFor: ['attention'] });
    const own = parseStudyYaml(`${minimal}exclusion: { minMedianResponseMs: 800 }\napprovals: { rejectFor: [fast, incomplete] }\n`);
    expect(own.definition.approvals.rejectFor).toEqual(['fast', 'incomplete']);
    expect(parseStudyYaml(`${minimal}approvals: { rejectFor: [] }\n`).definition.approvals.rejectFor).toEqual([]);
    const screening = problems(`${minimal}approvals: { rejectFor: [attention, screening] }\n`).join('\n');
    expect(screening).toMatch(/approvals\.rejectFor\[1\]: .*returned \(Prolific's screen-out\), never rejected/);
    const off = problems(`${minimal}approvals: { rejectFor: [listener_correlation, fast] }\n`).join('\n');
    expect(off).toMatch(/approvals\.rejectFor\[0\]: names listener_correlation, but that rule is off: set exclusion\.minListenerCorrelation/);
    expect(off).toMatch(/approvals\.rejectFor\[1\]: names fast, but that rule is off: set exclusion\.minMedianResponseMs/);
  });

  it('names line, column and field for wrong types, unknown keys and missing fields', () => {
    const yaml = minimal
      .replace('  kind: crossed', '  kind: incomplete\n  itemsPerListener: ten\n  ratingsPerItem: 3\n  colour: blue')
      .replace('title: T\n', '');
    expect(problems(yaml)).toEqual([
      'study.yaml:1:1 title: required',
      'study.yaml:10:21 design.itemsPerListener: expected number, received string',
      'study.yaml:12:3 design.colour: unknown key',
    ]);
  });

  it('explains bad enum values, nested list entries and cross-field rules', () => {
    const yaml = minimal
      .replace('systemB: b }', 'systemB: b, note: x }')
      .replace('completion:\n  code: OK\n', 'completion: {}\nscreening: { kind: earbuds }\nlistening: { mode: seconds, seconds: -2 }\n');
    const lines = problems(yaml);
    expect(lines).toContain('study.yaml:8:61 items.list[0].note: unknown key');
    expect(lines).toContain('study.yaml:12:13 completion: give a code, a redirectUrl, or both');
    expect(lines.find((l) => l.startsWith('study.yaml:13:20 screening.kind:'))).toMatch(/expected one of "none"\|"antiphase"\|"huggins"\|"both"/);
    expect(lines).toContain('study.yaml:14:38 listening.seconds: Too small: expected number to be >0');
  });

  it('takes the language and per-language study texts, keeping the study\'s language', () => {
    const yaml = minimal
      .replace('title: T\n', 'language: de\ntitle: { en: Listening study, de: Hörstudie }\n')
      .replace('question: Q\n', 'question:\n  en: Which caption fits?\n  de: Welche Beschreibung passt?\n');
    const { definition } = parseStudyYaml(yaml);
    expect(definition).toMatchObject({ language: 'de', title: 'Hörstudie', consent: 'C', question: 'Welche Beschreibung passt?' });
    expect(parseStudyYaml(minimal).definition.language).toBe('en');
    expect(parseStudyYaml(`${minimal}breakEvery: 10\n`).definition.breakEvery).toBe(10);
    expect(problems(`${minimal}breakEvery: 0\n`)[0]).toMatch(/^study\.yaml:\d+:\d+ breakEvery: Too small/);
    // The validated definition is stored and read again (readStudyDefinition): it must still be valid.
    expect(parseStudyYaml(JSON.stringify(definition)).definition).toEqual(definition);
  });

  it('refuses an unknown language and a per-language text without the study\'s language', () => {
    expect(problems(`language: fr\n${minimal}`)[0]).toMatch(/^study\.yaml:1:11 language: .*"en"\|"de"/);
    const lines = problems(minimal.replace('title: T\n', 'language: de\ntitle: { en: Listening study }\n'));
    expect(lines).toEqual(['study.yaml:2:8 title: has no text in the study\'s language "de" (given: en); add de: or change language:']);
    expect(problems(minimal.replace('title: T\n', 'title: { en: A, fr: B }\n'))[0]).toMatch(/^study\.yaml:1:\d+ title/);
  });

  it('reports YAML syntax errors with their position', () => {
    expect(problems('title: [unclosed\n')[0]).toMatch(/^study\.yaml:\d+:\d+ \(top level\): YAML syntax: /);
    expect(problems(`${minimal}title: again\n`)[0]).toMatch(/YAML syntax: Map keys must be unique/);
  });

  it('refuses an alias bomb at its first alias instead of expanding it', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++) levels.push(`${'abcdefghijkl'[i]}: &${'abcdefghijkl'[i]} [${Array(10).fill(`*${'abcdefghijkl'[i - 1]}`).join(', ')}]`);
    expect(problems(`${levels.join('\n')}\n${minimal}`)[0]).toMatch(/^study\.yaml:2:\d+ \(top level\): YAML: /);
  });
});

describe('study.schema.json', () => {
  it('is generated from the current zod schema (run npx tsx studies/write-json-schema.ts)', () => {
    expect(readFileSync(JSON_SCHEMA_FILE, 'utf8')).toBe(renderJsonSchema());
  });

  it('refuses unknown keys and knows the defaults', () => {
    const schema = JSON.parse(renderJsonSchema());
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(expect.arrayContaining(['title', 'items', 'design', 'targetListeners', 'completion']));
    expect(schema.required).not.toContain('seed');
    expect(schema.properties.linkParameters.default).toEqual(['PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID']);
  });
});

describe('shipped definitions', () => {
  const templates = fileURLToPath(new URL('./templates/', import.meta.url));
  it.each(readdirSync(templates).filter((f) => f.endsWith('.yaml')))('template %s is a valid definition', (file) => {
    expect(() => parseStudyYaml(readFileSync(templates + file, 'utf8'), file)).not.toThrow();
  });
  it('has the templates', () => {
    expect(readdirSync(templates).sort()).toEqual(['demo-ab.yaml', 'demo-abx.yaml', 'demo-caption-rating.yaml', 'demo-ccr.yaml', 'demo-mushra.yaml', 'describe-style.yaml', 'metaset-caption-preference.yaml', 'psc-style-tags.yaml', 'ravdess-audio-mos.yaml', 'ravdess-emotion-tags.yaml', 'ravdess-plan-preference.yaml', 'vctk-speaker-style.yaml']);
  });
});

/**
 * The settings form's design switch on real templates, checked by the study schema itself
 * (studies/parse.ts): every switch leaves a definition that parses, with no key the new kind refuses.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseStudyYaml, StudyDefinitionError } from '../../studies/parse';
import { setSettings, switchDesign } from './SettingsForm';

const template = (name: string) => readFileSync(new URL(`../../studies/templates/${name}.yaml`, import.meta.url), 'utf8');
const design = (yaml: string) => parseStudyYaml(yaml).definition.design;

describe('the settings form switches designs', () => {
  it('takes a pair study from crossed to adaptive (with a stop rule to edit) and back', () => {
    const adaptive = switchDesign(template('metaset-caption-preference'), 'adaptive');
    expect(design(adaptive)).toMatchObject({ kind: 'adaptive', itemsPerListener: 20, maxPairRepeats: 2, stop: { ciHalfWidth: 0.3 } });
    const budget = setSettings(adaptive, [[['design', 'stop', 'votes'], 5000]]);
    expect(design(budget)).toMatchObject({ stop: { ciHalfWidth: 0.3, votes: 5000 } });
    expect(design(switchDesign(budget, 'crossed'))).toEqual({ kind: 'crossed' });
    expect(design(switchDesign(budget, 'incomplete'))).toMatchObject({ kind: 'incomplete', itemsPerListener: 20 });
  });

  it('keeps a rating study’s items per listener and drops its listeners per item for adaptive', () => {
    const yaml = template('ravdess-audio-mos');
    const before = design(yaml) as { itemsPerListener: number };
    const after = design(switchDesign(yaml, 'adaptive'));
    expect(after).toMatchObject({ kind: 'adaptive', itemsPerListener: before.itemsPerListener });
    expect(after).not.toHaveProperty('ratingsPerItem');
  });

  it('leaves the schema to refuse adaptive for a kind without a rule, naming the field', () => {
    try {
      parseStudyYaml(switchDesign(template('demo-abx'), 'adaptive'));
      expect.unreachable('adaptive ABX was accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(StudyDefinitionError);
      expect((error as StudyDefinitionError).problems.map((p) => p.field)).toContain('design.kind');
    }
  });
});

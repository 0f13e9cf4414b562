import { describe, expect, it } from 'vitest';
import { expectCompleteCatalogues } from '../words.test-support';
import { en, tagsCatalogues } from './words';

describe('tags trial words', () => {
  it('has a catalogue per listener language, complete and translated', () => {
    expectCompleteCatalogues(tagsCatalogues);
    expect(en.noneOfThese).toBe('None of these');
    expect(tagsCatalogues.de.incomplete('emotion, timbre')).toBe('Noch offen: emotion, timbre.');
  });
});

import { describe, expect, it } from 'vitest';
import { expectCompleteCatalogues } from '../words.test-support';
import { ccrCatalogues, en } from './words';

describe('CCR trial words', () => {
  it('has ITU-T P.800 Annex E’s seven categories from −3 to +3 in English, and every language complete and translated', () => {
    expect(en.scale).toEqual(['Much worse', 'Worse', 'Slightly worse', 'About the same', 'Slightly better', 'Better', 'Much better']);
    expect(en.question).toBe('The quality of the second compared to the quality of the first is:');
    expectCompleteCatalogues(ccrCatalogues);
    for (const words of Object.values(ccrCatalogues)) expect(new Set(words.scale).size).toBe(7);
    expect(ccrCatalogues.de.scale[3]).toBe('Ungefähr gleich');
  });
});

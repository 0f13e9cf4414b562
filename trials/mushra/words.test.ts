import { describe, expect, it } from 'vitest';
import { expectCompleteCatalogues } from '../words.test-support';
import { en, mushraCatalogues } from './words';

describe('MUSHRA page words', () => {
  it('has BS.1534-3’s five bands from the top down in English, and every language complete and translated', () => {
    expect(en.bands).toEqual(['Excellent', 'Good', 'Fair', 'Poor', 'Bad']);
    expectCompleteCatalogues(mushraCatalogues);
    expect(new Set(mushraCatalogues.de.bands).size).toBe(5);
    expect(en.remaining(2, 1, 5)).toBe('Heard 2 of 5, scored 1 of 5. Play and score every version to go on.');
  });
});

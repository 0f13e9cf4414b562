import { describe, expect, it } from 'vitest';
import { catalogues as shared } from '../../client/listener/messages';
import { expectCompleteCatalogues } from '../words.test-support';
import { en, ratingCatalogues } from './words';

describe('rating trial words', () => {
  it('has a catalogue for every language a study may pick, complete and translated', () => {
    expectCompleteCatalogues(ratingCatalogues);
  });

  it('moved out of the shared words unchanged: ACR labels lowest first, the point in its sentence, none left behind', () => {
    expect(en.acrLabels).toEqual(['Bad', 'Poor', 'Fair', 'Good', 'Excellent']);
    expect(ratingCatalogues.de.acrLabels).toHaveLength(5);
    expect(en.ratingCorrect('4 (Good)')).toBe('Right — the intended rating is 4 (Good).');
    for (const key of Object.keys(en)) expect(Object.keys(shared.en), key).not.toContain(key);
    // The instructions screen's rating hints stay shared: it shows them before any trial.
    expect(shared.en.keysRate).toBe('rate');
  });
});

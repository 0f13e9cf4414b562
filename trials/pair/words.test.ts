import { describe, expect, it } from 'vitest';
import { catalogues as shared } from '../../client/listener/messages';
import { expectCompleteCatalogues } from '../words.test-support';
import { en, pairCatalogues } from './words';

describe('caption pair trial words', () => {
  it('has a catalogue for every language a study may pick, complete and translated', () => {
    expectCompleteCatalogues(pairCatalogues);
  });

  it('moved out of the shared words unchanged: the caption number in its sentence, none left behind', () => {
    expect(en.correct(2)).toBe('Correct — caption 2 describes the delivery better.');
    expect(pairCatalogues.de.wrong(1)).toBe('Nicht ganz — Beschreibung 1 trifft die Sprechweise besser.');
    for (const key of Object.keys(en)) expect(Object.keys(shared.en), key).not.toContain(key);
  });
});

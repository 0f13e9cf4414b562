import { describe, expect, it } from 'vitest';
import { expectCompleteCatalogues } from '../words.test-support';
import { abCatalogues, en } from './words';

describe('A/B trial words', () => {
  it('has a catalogue for every language a study may pick, complete and translated', () => {
    expectCompleteCatalogues(abCatalogues);
  });

  it('the sides and seconds appear in their sentences', () => {
    expect(abCatalogues.de.better('B')).toBe('B ist besser');
    expect(en.wrong('A')).toBe('Not quite — A is the better one.');
    expect(en.listenSeconds(2)).toBe('Listen to at least 2 seconds of A and of B to unlock the choice.');
  });
});

describe('A/B practice feedback', () => {
  it('says both versions may be heard again, in English and German', () => {
    expect(en.listenAgain).toBe('You can listen to A and B again before you continue.');
    expect(abCatalogues.de.listenAgain).toBe('Sie können A und B noch einmal anhören, bevor Sie weitermachen.');
  });
});

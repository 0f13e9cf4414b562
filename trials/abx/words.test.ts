import { describe, expect, it } from 'vitest';
import { expectCompleteCatalogues } from '../words.test-support';
import { abxCatalogues, en } from './words';

describe('ABX trial words', () => {
  it('has a catalogue for every language a study may pick, complete and translated, the sides in their sentences', () => {
    expectCompleteCatalogues(abxCatalogues);
    expect(abxCatalogues.de.xIs('B')).toBe('X ist B');
    expect(en.wrong('A')).toBe('Not quite — X is A.');
  });
});

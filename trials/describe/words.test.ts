import { describe, expect, it } from 'vitest';
import { expectCompleteCatalogues } from '../words.test-support';
import { describeCatalogues, en } from './words';

describe('describe trial words', () => {
  it('has a catalogue per listener language, complete and translated', () => {
    expectCompleteCatalogues(describeCatalogues);
    expect(en.tooShort(3)).toBe('Write 3 more characters.');
    expect(describeCatalogues.de.count(5, 20, 600)).toBe('5 Zeichen (mindestens 20, höchstens 600)');
  });
});

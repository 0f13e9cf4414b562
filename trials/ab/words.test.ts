import { describe, expect, it } from 'vitest';
import { Language } from '../../contract/study-definition';
import { abCatalogues, en } from './words';

/** Every word as text, functions called with both sides or a number. */
function texts(words: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(words)) {
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'function') out[key] = [(value as (x: unknown) => string)('A'), (value as (x: unknown) => string)('B'), (value as (x: unknown) => string)(3)].join(' | ');
    else throw new Error(`${key}: a word is a string or a function`);
  }
  return out;
}

describe('A/B trial words', () => {
  it('has a catalogue for every language a study may pick, each with exactly the English keys and no empty word', () => {
    expect(Object.keys(abCatalogues).sort()).toEqual([...Language.options].sort());
    for (const language of Language.options) {
      const all = texts(abCatalogues[language]);
      expect(Object.keys(all).sort(), language).toEqual(Object.keys(texts(en)).sort());
      for (const [key, v] of Object.entries(all)) {
        expect(v.trim(), `${language}.${key}`).not.toBe('');
        expect(v, `${language}.${key}`).not.toMatch(/undefined|NaN|\[object/);
      }
    }
  });

  it('German is a translation, not a copy, and the sides and seconds appear in their sentences', () => {
    const de = texts(abCatalogues.de);
    expect(Object.entries(texts(en)).filter(([k, v]) => v === de[k]).map(([k]) => k)).toEqual([]);
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

import { describe, expect, it } from 'vitest';
import { Language } from '../../contract/study-definition';
import { abxCatalogues, en } from './words';

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

describe('ABX trial words', () => {
  it('has a catalogue for every language a study may pick, each with exactly the English keys, none empty, German not a copy', () => {
    expect(Object.keys(abxCatalogues).sort()).toEqual([...Language.options].sort());
    for (const language of Language.options) {
      const all = texts(abxCatalogues[language]);
      expect(Object.keys(all).sort(), language).toEqual(Object.keys(texts(en)).sort());
      for (const [key, v] of Object.entries(all)) expect(v.trim(), `${language}.${key}`).not.toBe('');
    }
    const de = texts(abxCatalogues.de);
    expect(Object.entries(texts(en)).filter(([k, v]) => v === de[k]).map(([k]) => k)).toEqual([]);
    expect(abxCatalogues.de.xIs('B')).toBe('X ist B');
    expect(en.wrong('A')).toBe('Not quite — X is A.');
  });
});

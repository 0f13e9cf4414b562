/**
 * The checks every kind's words catalogue (trials/<kind>/words.ts) passes: one catalogue per
 * language a study may pick, each with exactly the English keys and no empty word, and German a
 * translation rather than a copy. Words are strings, lists or functions (called with a number
 * and with a text in every argument).
 */
import { expect } from 'vitest';
import { Language } from '../contract/study-definition';

function texts(words: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(words)) {
    if (typeof value === 'string') out[key] = value;
    else if (Array.isArray(value)) out[key] = value.map(String).join(' | ');
    else if (typeof value === 'function') {
      // Every argument given (a word may take several, e.g. "heard 2 of 3").
      const call = (x: unknown) => (value as (...args: unknown[]) => string)(...Array.from({ length: Math.max(1, value.length) }, () => x));
      out[key] = [call(2), call('4 (Good)')].join(' | ');
    }
    else throw new Error(`${key}: a word is a string, a list or a function`);
  }
  return out;
}

export function expectCompleteCatalogues(catalogues: Record<Language, Record<string, unknown>>): void {
  expect(Object.keys(catalogues).sort()).toEqual([...Language.options].sort());
  const en = texts(catalogues.en);
  for (const language of Language.options) {
    const all = texts(catalogues[language]);
    expect(Object.keys(all).sort(), language).toEqual(Object.keys(en).sort());
    for (const [key, v] of Object.entries(all)) {
      expect(v.trim(), `${language}.${key}`).not.toBe('');
      expect(v, `${language}.${key}`).not.toMatch(/undefined|NaN|\[object/);
    }
  }
  const de = texts(catalogues.de);
  expect(Object.entries(en).filter(([k, v]) => v === de[k]).map(([k]) => k)).toEqual([]);
}

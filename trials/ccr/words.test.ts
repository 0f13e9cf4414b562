import { describe, expect, it } from 'vitest';
import { Language } from '../../contract/study-definition';
import { ccrCatalogues, en } from './words';

describe('CCR trial words', () => {
  it('has ITU-T P.800 Annex E’s seven categories from −3 to +3 in English, and a German catalogue with the same keys, none empty, not a copy', () => {
    expect(en.scale).toEqual(['Much worse', 'Worse', 'Slightly worse', 'About the same', 'Slightly better', 'Better', 'Much better']);
    expect(en.question).toBe('The quality of the second compared to the quality of the first is:');
    expect(Object.keys(ccrCatalogues).sort()).toEqual([...Language.options].sort());
    for (const language of Language.options) {
      const words = ccrCatalogues[language];
      expect(Object.keys(words).sort(), language).toEqual(Object.keys(en).sort());
      expect(words.scale, language).toHaveLength(7);
      for (const [key, v] of Object.entries(words)) {
        const text = typeof v === 'function' ? (v as (x: unknown) => string)(2) : String(v);
        expect(text.trim(), `${language}.${key}`).not.toBe('');
        if (key !== 'scale' && typeof v === 'string') expect(v, `de.${key}`).not.toBe(ccrCatalogues.de === words ? en[key as keyof typeof en] : '');
      }
    }
    expect(new Set(ccrCatalogues.de.scale).size).toBe(7);
    expect(ccrCatalogues.de.scale[3]).toBe('Ungefähr gleich');
  });
});

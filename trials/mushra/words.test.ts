import { describe, expect, it } from 'vitest';
import { Language } from '../../contract/study-definition';
import { en, mushraCatalogues } from './words';

describe('MUSHRA page words', () => {
  it('has BS.1534-3’s five bands from the top down in English, and a German catalogue with the same keys, none empty, not a copy', () => {
    expect(en.bands).toEqual(['Excellent', 'Good', 'Fair', 'Poor', 'Bad']);
    expect(Object.keys(mushraCatalogues).sort()).toEqual([...Language.options].sort());
    for (const language of Language.options) {
      const words = mushraCatalogues[language];
      expect(Object.keys(words).sort(), language).toEqual(Object.keys(en).sort());
      for (const [key, v] of Object.entries(words)) {
        const text = typeof v === 'function' ? (v as (...x: unknown[]) => string)(2, 3, 4) : String(v);
        expect(text.trim(), `${language}.${key}`).not.toBe('');
      }
    }
    const de = mushraCatalogues.de;
    expect(new Set(de.bands).size).toBe(5);
    for (const key of Object.keys(en) as (keyof typeof en)[]) if (typeof en[key] === 'string') expect(de[key], key).not.toBe(en[key]);
  });
});

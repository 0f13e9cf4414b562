import { describe, expect, it } from 'vitest';
import { Language } from '../../contract/study-definition';
import { en, tagsCatalogues } from './words';

describe('tags trial words', () => {
  it('has a catalogue per listener language with the same keys, none empty, none a copy of the English', () => {
    expect(Object.keys(tagsCatalogues).sort()).toEqual([...Language.options].sort());
    for (const language of Language.options) {
      const words = tagsCatalogues[language];
      expect(Object.keys(words).sort(), language).toEqual(Object.keys(en).sort());
      for (const [key, v] of Object.entries(words)) {
        const text = typeof v === 'function' ? (v as (x: string) => string)('emotion') : v;
        expect(text.trim(), `${language}.${key}`).not.toBe('');
        if (language !== 'en') expect(text, `${language}.${key}`).not.toBe(typeof en[key as keyof typeof en] === 'function' ? (en[key as keyof typeof en] as (x: string) => string)('emotion') : en[key as keyof typeof en]);
      }
    }
    expect(en.noneOfThese).toBe('None of these');
    expect(tagsCatalogues.de.incomplete('emotion, timbre')).toBe('Noch offen: emotion, timbre.');
  });
});

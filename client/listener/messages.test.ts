import { describe, expect, it } from 'vitest';
import { Language } from '../../contract/study-definition';
import { catalogues, en } from './messages';

/** Every message as text: functions are called with typical arguments (1 and many, both states). */
function texts(m: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(m)) {
    if (typeof value === 'string') out[key] = [value];
    else if (Array.isArray(value)) out[key] = value.map(String);
    else if (typeof value === 'function') {
      const f = value as (...args: unknown[]) => string;
      out[key] = f.length === 1 && key === 'stoppedText' ? [f(true), f(false)] : [f(1, 1), f(3, 20), f(7, 600)];
    } else throw new Error(`${key}: a message is a string, a list or a function`);
  }
  return out;
}

describe('listener message catalogues', () => {
  it('has a catalogue for every language a study may pick', () => {
    expect(Object.keys(catalogues).sort()).toEqual([...Language.options].sort());
  });

  it.each(Language.options)('%s has exactly the English keys, and no message is empty', (language) => {
    const all = texts(catalogues[language]);
    expect(Object.keys(all).sort()).toEqual(Object.keys(texts(en)).sort());
    for (const [key, values] of Object.entries(all)) {
      for (const v of values) expect(v.trim(), `${language}.${key}`).not.toBe('');
      expect(values.join(' '), `${language}.${key}`).not.toMatch(/undefined|NaN|\[object/);
    }
    for (const key of Object.keys(en) as Array<keyof typeof en>)
      expect(typeof catalogues[language][key], `${language}.${key}`).toBe(typeof en[key]);
  });

  it('German is a translation, not a copy of the English', () => {
    const de = texts(catalogues.de);
    const same = Object.entries(texts(en)).filter(([k, v]) => v.join() === de[k].join()).map(([k]) => k);
    expect(same).toEqual([]);
  });

  it('counts and numbers appear in the sentences that carry them', () => {
    expect(catalogues.de.trialOf(5, 20)).toBe('Durchgang 5 von 20');
    expect(en.trialOf(5, 20)).toBe('Trial 5 of 20');
    expect(en.rejected(1)).toBe('1 answer was not accepted by the study');
    expect(en.rejected(2)).toBe('2 answers were not accepted by the study');
    expect(en.expectation(12, 290)).toBe('There are 12 clips to judge, which takes about 5 minutes.');
    expect(catalogues.de.expectation(1, 30)).toBe('Sie bewerten einen Clip; das dauert etwa 1 Minute.');
  });
});

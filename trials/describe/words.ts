/**
 * The describe trial's words, in every language a study may pick; `en` is the source of truth.
 * The instruction itself is the study's (study.yaml), shown as written.
 */
import type { Language } from '../../contract/study-definition';
import { useKindWords } from '../../client/listener/messages';

export const en = {
  label: 'Your description',
  nowWrite: 'Now write how the speech is delivered.',
  count: (n: number, min: number, max: number) => `${n} characters (at least ${min}, at most ${max})`,
  tooShort: (n: number) => `Write ${n} more characters.`,
  confirm: 'Send description',
  keyHints: 'Tab moves to the text box; Ctrl+Enter sends the description',
  touchHints: 'Play the clip, write your description in the box, then tap Send description.',
  thanks: 'Thank you — that is how the description works.',
};

export type DescribeWords = typeof en;

export const de: DescribeWords = {
  label: 'Ihre Beschreibung',
  nowWrite: 'Beschreiben Sie jetzt, wie gesprochen wird.',
  count: (n: number, min: number, max: number) => `${n} Zeichen (mindestens ${min}, höchstens ${max})`,
  tooShort: (n: number) => `Schreiben Sie noch ${n} Zeichen.`,
  confirm: 'Beschreibung senden',
  keyHints: 'Tab springt in das Textfeld; Strg+Enter sendet die Beschreibung',
  touchHints: 'Spielen Sie den Ausschnitt ab, schreiben Sie Ihre Beschreibung in das Feld und tippen Sie dann auf „Beschreibung senden“.',
  thanks: 'Danke — so funktioniert die Beschreibung.',
};

export const describeCatalogues: Record<Language, DescribeWords> = { en, de };

/** The describe words in the language of the shared catalogue on screen (English where none matches). */
export const useDescribeWords = (): DescribeWords => useKindWords(describeCatalogues);

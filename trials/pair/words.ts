/**
 * The caption pair trial's words, in every language a study may pick; `en` is the source of truth
 * and every other catalogue is typed against it (as client/listener/messages.ts does for the
 * shared words, which this screen also uses: Play, Confirm choice, the keys, the practice notes).
 */
import type { Language } from '../../contract/study-definition';
import { useKindWords } from '../../client/listener/messages';

export const en = {
  nowChoose: 'Now choose the caption that fits better.',
  captions: 'Captions',
  yourChoice: '✓ Your choice',
  correct: (n: number) => `Correct — caption ${n} describes the delivery better.`,
  wrong: (n: number) => `Not quite — caption ${n} describes the delivery better.`,
  touchHints: 'Tap ▶ to listen, tap the caption that fits better, then Confirm.',
};

export type PairWords = typeof en;

export const de: PairWords = {
  nowChoose: 'Wählen Sie jetzt die Beschreibung, die besser passt.',
  captions: 'Beschreibungen',
  yourChoice: '✓ Ihre Wahl',
  correct: (n: number) => `Richtig — Beschreibung ${n} trifft die Sprechweise besser.`,
  wrong: (n: number) => `Nicht ganz — Beschreibung ${n} trifft die Sprechweise besser.`,
  touchHints: 'Tippen Sie auf ▶ zum Anhören, dann auf die passendere Beschreibung und zuletzt auf Bestätigen.',
};

export const pairCatalogues: Record<Language, PairWords> = { en, de };

/** The caption pair's words in the language of the shared catalogue on screen. */
export const usePairWords = (): PairWords => useKindWords(pairCatalogues);

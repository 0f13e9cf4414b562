/**
 * The tags trial's words, in every language a study may pick; `en` is the source of truth. The
 * attributes and values themselves are the study's (study.yaml), shown as written.
 */
import type { Language } from '../../contract/study-definition';
import { useKindWords } from '../../client/listener/messages';

export const en = {
  labels: 'Labels for this clip',
  nowLabel: 'Now label the clip: answer every question below.',
  chooseOne: 'choose one',
  chooseAny: 'choose all that apply, or “none of these”',
  noneOfThese: 'None of these',
  incomplete: (missing: string) => `Still to answer: ${missing}.`,
  confirm: 'Confirm labels',
  keyHints: 'Tab moves between questions, arrow keys within one, Space ticks a box',
  touchHints: 'Play the clip, answer every question (tap to choose), then tap Confirm labels.',
  correct: 'Right — that is what the clip is.',
  wrong: 'Not quite — listen again: the clip was chosen because this label is clear in it.',
};

export type TagsWords = typeof en;

// No word of the German holds a corpus label as a substring ("Merkmale" holds "male"): e2e/support/blinding.ts reads the listener's script for them.
export const de: TagsWords = {
  labels: 'Eigenschaften dieses Ausschnitts',
  nowLabel: 'Beschreiben Sie jetzt den Ausschnitt: beantworten Sie jede Frage unten.',
  chooseOne: 'eines auswählen',
  chooseAny: 'alle zutreffenden auswählen, oder „Nichts davon“',
  noneOfThese: 'Nichts davon',
  incomplete: (missing: string) => `Noch offen: ${missing}.`,
  confirm: 'Eigenschaften bestätigen',
  keyHints: 'Tab wechselt zwischen den Fragen, die Pfeiltasten innerhalb einer Frage, die Leertaste setzt ein Häkchen',
  touchHints: 'Spielen Sie den Ausschnitt ab, beantworten Sie jede Frage (zum Auswählen tippen) und tippen Sie dann auf „Eigenschaften bestätigen“.',
  correct: 'Richtig — genau so klingt der Ausschnitt.',
  wrong: 'Nicht ganz — hören Sie noch einmal hin: der Ausschnitt wurde gewählt, weil diese Eigenschaft in ihm deutlich ist.',
};

export const tagsCatalogues: Record<Language, TagsWords> = { en, de };

/** The tags words in the language of the shared catalogue on screen (English where none matches). */
export const useTagsWords = (): TagsWords => useKindWords(tagsCatalogues);

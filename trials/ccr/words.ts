/**
 * The CCR trial's words, in every language a study may pick; `en` is the source of truth. The
 * seven categories are ITU-T P.800 Annex E's (Table E.1, "The quality of the second compared to
 * the quality of the first is:"), from +3 Much better to −3 Much worse; the German ones are the
 * usual rendering of that scale (P.800 itself is English).
 */
import type { Language } from '../../contract/study-definition';
import { useKindWords } from '../../client/listener/messages';
import type { StimuliWords } from '../../client/listener/trials/StimuliTrial';

/** The categories, from −3 to +3 (the order on screen, left to right). */
type Scale = readonly [string, string, string, string, string, string, string];

export const en = {
  versions: 'First and second version',
  listenTo: 'Listen to version',
  heard: 'heard',
  notHeard: 'not heard yet',
  playing: (label: string) => `Playing version ${label}`,
  loading: 'Loading the two versions…',
  listenWhole: 'Listen to all of version 1 and all of version 2 to unlock the rating.',
  listenSeconds: (seconds: number) => `Listen to at least ${seconds} seconds of version 1 and of version 2 to unlock the rating.`,
  nowChoose: 'Now rate the second version against the first.',
  question: 'The quality of the second compared to the quality of the first is:',
  scale: ['Much worse', 'Worse', 'Slightly worse', 'About the same', 'Slightly better', 'Better', 'Much better'] as Scale,
  keysSwitch: 'switch',
  touchHints: 'Tap 1 or 2 to listen (switching keeps the place), then rate the second against the first, then Confirm.',
  correct: 'Right — you heard which of the two is worse.',
  wrong: 'Not quite — listen again: one of the two is clearly worse than the other.',
} satisfies StimuliWords & Record<string, unknown>;

export type CcrWords = typeof en;

export const de: CcrWords = {
  versions: 'Erste und zweite Fassung',
  listenTo: 'Fassung anhören:',
  heard: 'gehört',
  notHeard: 'noch nicht gehört',
  playing: (label: string) => `Fassung ${label} wird abgespielt`,
  loading: 'Die beiden Fassungen werden geladen…',
  listenWhole: 'Hören Sie Fassung 1 und Fassung 2 ganz an, um die Bewertung freizuschalten.',
  listenSeconds: (seconds: number) => `Hören Sie von Fassung 1 und von Fassung 2 jeweils mindestens ${seconds} Sekunden an, um die Bewertung freizuschalten.`,
  nowChoose: 'Bewerten Sie jetzt die zweite Fassung im Vergleich zur ersten.',
  question: 'Die Qualität der zweiten im Vergleich zur Qualität der ersten ist:',
  scale: ['Viel schlechter', 'Schlechter', 'Etwas schlechter', 'Ungefähr gleich', 'Etwas besser', 'Besser', 'Viel besser'],
  keysSwitch: 'wechseln',
  touchHints: 'Tippen Sie auf 1 oder 2 zum Anhören (beim Wechseln bleibt die Stelle), bewerten Sie dann die zweite Fassung im Vergleich zur ersten und tippen Sie auf Bestätigen.',
  correct: 'Richtig — Sie haben gehört, welche der beiden schlechter ist.',
  wrong: 'Nicht ganz — hören Sie noch einmal hin: eine der beiden ist deutlich schlechter als die andere.',
};

export const ccrCatalogues: Record<Language, CcrWords> = { en, de };

/** The CCR words in the language of the shared catalogue on screen (English where none matches). */
export const useCcrWords = (): CcrWords => useKindWords(ccrCatalogues);

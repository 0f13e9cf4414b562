/**
 * The A/B trial's words, in every language a study may pick; `en` is the source of truth and every
 * other catalogue is typed against it (as client/listener/messages.ts does for the shared words,
 * which this screen also uses: Play, Confirm, Try again, the practice notes). The catalogue on
 * screen is the one of the study's language, found from the shared catalogue the session provides.
 */
import type { Language } from '../../contract/study-definition';
import { useKindWords } from '../../client/listener/messages';

type Side = 'A' | 'B';

export const en = {
  versions: 'Versions',
  /** Read before the letter on a stimulus button: "Listen to A". */
  listenTo: 'Listen to',
  heard: 'heard',
  notHeard: 'not heard yet',
  playing: (side: string) => `Playing ${side}`,
  loading: 'Loading the two versions…',
  listenWhole: 'Listen to all of A and all of B to unlock the choice.',
  listenSeconds: (seconds: number) => `Listen to at least ${seconds} seconds of A and of B to unlock the choice.`,
  nowChoose: 'Now choose the version you prefer.',
  preference: 'Your preference',
  better: (side: Side) => `${side} is better`,
  tie: 'No preference',
  keysSwitch: 'switch',
  touchHints: 'Tap A or B to listen (switching keeps the place), tap the one you prefer, then Confirm.',
  correct: (side: Side) => `Correct — ${side} is the better one.`,
  wrong: (side: Side) => `Not quite — ${side} is the better one.`,
  wrongTie: 'Not quite — one of the two is clearly better. Listen again.',
  /** Beside the practice feedback. */
  listenAgain: 'You can listen to A and B again before you continue.',
};

export type AbWords = typeof en;

export const de: AbWords = {
  versions: 'Fassungen',
  listenTo: 'Anhören:',
  heard: 'gehört',
  notHeard: 'noch nicht gehört',
  playing: (side: string) => `${side} wird abgespielt`,
  loading: 'Die beiden Fassungen werden geladen…',
  listenWhole: 'Hören Sie A und B ganz an, um die Auswahl freizuschalten.',
  listenSeconds: (seconds: number) => `Hören Sie von A und von B jeweils mindestens ${seconds} Sekunden an, um die Auswahl freizuschalten.`,
  nowChoose: 'Wählen Sie jetzt die Fassung, die Ihnen besser gefällt.',
  preference: 'Ihre Präferenz',
  better: (side: Side) => `${side} ist besser`,
  tie: 'Kein Unterschied',
  keysSwitch: 'wechseln',
  touchHints: 'Tippen Sie auf A oder B zum Anhören (beim Wechseln bleibt die Stelle), dann auf die bessere Fassung und zuletzt auf Bestätigen.',
  correct: (side: Side) => `Richtig — ${side} ist die bessere Fassung.`,
  wrong: (side: Side) => `Nicht ganz — ${side} ist die bessere Fassung.`,
  wrongTie: 'Nicht ganz — eine der beiden Fassungen ist deutlich besser. Hören Sie noch einmal hin.',
  listenAgain: 'Sie können A und B noch einmal anhören, bevor Sie weitermachen.',
};

export const abCatalogues: Record<Language, AbWords> = { en, de };

/** The A/B words in the language of the shared catalogue on screen (English where none matches, as the shared words). */
export const useAbWords = (): AbWords => useKindWords(abCatalogues);

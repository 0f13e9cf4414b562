/**
 * The ABX trial's words, in every language a study may pick; `en` is the source of truth and every
 * other catalogue is typed against it (as trials/ab/words.ts). The screen also uses the shared
 * words (Play, Confirm, the practice notes).
 */
import type { Language } from '../../contract/study-definition';
import { useKindWords } from '../../client/listener/messages';
import type { StimuliWords } from '../../client/listener/trials/StimuliTrial';

type Side = 'A' | 'B';

export const en = {
  versions: 'Versions A, B and X',
  listenTo: 'Listen to',
  heard: 'heard',
  notHeard: 'not heard yet',
  playing: (label: string) => `Playing ${label}`,
  loading: 'Loading the three versions…',
  listenWhole: 'Listen to all of A, B and X to unlock the answer.',
  listenSeconds: (seconds: number) => `Listen to at least ${seconds} seconds of A, of B and of X to unlock the answer.`,
  nowChoose: 'Now say which one X is.',
  question: 'X is the same as',
  xIs: (side: Side) => `X is ${side}`,
  keysSwitch: 'switch',
  touchHints: 'Tap A, B or X to listen (switching keeps the place), then say whether X is A or B, then Confirm.',
  correct: (side: Side) => `Correct — X is ${side}.`,
  wrong: (side: Side) => `Not quite — X is ${side}.`,
} satisfies StimuliWords & Record<string, unknown>;

export type AbxWords = typeof en;

export const de: AbxWords = {
  versions: 'Fassungen A, B und X',
  listenTo: 'Anhören:',
  heard: 'gehört',
  notHeard: 'noch nicht gehört',
  playing: (label: string) => `${label} wird abgespielt`,
  loading: 'Die drei Fassungen werden geladen…',
  listenWhole: 'Hören Sie A, B und X ganz an, um die Antwort freizuschalten.',
  listenSeconds: (seconds: number) => `Hören Sie von A, B und X jeweils mindestens ${seconds} Sekunden an, um die Antwort freizuschalten.`,
  nowChoose: 'Sagen Sie jetzt, welche Fassung X ist.',
  question: 'X ist dasselbe wie',
  xIs: (side: Side) => `X ist ${side}`,
  keysSwitch: 'wechseln',
  touchHints: 'Tippen Sie auf A, B oder X zum Anhören (beim Wechseln bleibt die Stelle), dann darauf, ob X gleich A oder B ist, und zuletzt auf Bestätigen.',
  correct: (side: Side) => `Richtig — X ist ${side}.`,
  wrong: (side: Side) => `Nicht ganz — X ist ${side}.`,
};

export const abxCatalogues: Record<Language, AbxWords> = { en, de };

/** The ABX words in the language of the shared catalogue on screen (English where none matches). */
export const useAbxWords = (): AbxWords => useKindWords(abxCatalogues);

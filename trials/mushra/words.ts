/**
 * The MUSHRA page's words, in every language a study may pick; `en` is the source of truth. The five
 * bands of the 0–100 scale are ITU-R BS.1534-3's (Excellent 80–100, Good 60–80, Fair 40–60, Poor
 * 20–40, Bad 0–20; the continuous quality scale of ITU-R BS.1284); the German ones are the usual
 * rendering (ausgezeichnet, gut, ordentlich, mäßig, schlecht).
 */
import type { Language } from '../../contract/study-definition';
import { useKindWords } from '../../client/listener/messages';

/** The bands from the top of the scale down (the order on screen, top to bottom). */
type Bands = readonly [string, string, string, string, string];

export const en = {
  reference: 'Reference',
  stimulus: (n: number) => `Version ${n}`,
  stimuli: 'The versions to score',
  play: (label: string) => `Play ${label}`,
  playing: (label: string) => `Playing ${label}`,
  heard: 'heard',
  notHeard: 'not heard yet',
  score: (label: string) => `Score of ${label}, 0 to 100`,
  notRated: 'not scored yet',
  scoreOnlyPlaying: 'Play a version to move its slider.',
  bands: ['Excellent', 'Good', 'Fair', 'Poor', 'Bad'] as Bands,
  stop: 'Stop',
  playStop: 'Play or stop',
  loop: 'Loop a part',
  loopFrom: 'Loop from (seconds)',
  loopTo: 'Loop to (seconds)',
  loopTooShort: 'A loop must be at least half a second long.',
  restart: 'Start each version from the beginning when switching',
  loading: 'Loading the versions…',
  remaining: (heard: number, rated: number, n: number) => `Heard ${heard} of ${n}, scored ${rated} of ${n}. Play and score every version to go on.`,
  ready: 'Every version is heard and scored.',
  next: 'Next',
  keys: 'Keys: R reference, 1–9 and 0 the versions, Space play/stop, L loop, ↑/↓ move the playing version’s slider, Enter next.',
  touchHints: 'Tap a version to hear it (switching keeps the place), then drag its slider. The reference is the unprocessed original.',
} satisfies Record<string, unknown>;

export type MushraWords = typeof en;

export const de: MushraWords = {
  reference: 'Referenz',
  stimulus: (n: number) => `Fassung ${n}`,
  stimuli: 'Die zu bewertenden Fassungen',
  play: (label: string) => `${label} abspielen`,
  playing: (label: string) => `${label} wird abgespielt`,
  heard: 'gehört',
  notHeard: 'noch nicht gehört',
  score: (label: string) => `Bewertung von ${label}, 0 bis 100`,
  notRated: 'noch nicht bewertet',
  scoreOnlyPlaying: 'Spielen Sie eine Fassung ab, um ihren Regler zu bewegen.',
  bands: ['Ausgezeichnet', 'Gut', 'Ordentlich', 'Mäßig', 'Schlecht'],
  stop: 'Stopp',
  playStop: 'Abspielen oder stoppen',
  loop: 'Einen Abschnitt wiederholen',
  loopFrom: 'Wiederholen ab (Sekunden)',
  loopTo: 'Wiederholen bis (Sekunden)',
  loopTooShort: 'Ein wiederholter Abschnitt muss mindestens eine halbe Sekunde lang sein.',
  restart: 'Beim Wechseln jede Fassung von vorn beginnen',
  loading: 'Die Fassungen werden geladen…',
  remaining: (heard: number, rated: number, n: number) => `${heard} von ${n} gehört, ${rated} von ${n} bewertet. Hören und bewerten Sie jede Fassung, um weiterzugehen.`,
  ready: 'Jede Fassung ist gehört und bewertet.',
  next: 'Weiter',
  keys: 'Tasten: R Referenz, 1–9 und 0 die Fassungen, Leertaste abspielen/stoppen, L wiederholen, ↑/↓ den Regler der spielenden Fassung bewegen, Eingabe weiter.',
  touchHints: 'Tippen Sie auf eine Fassung, um sie zu hören (beim Wechseln bleibt die Stelle), und ziehen Sie dann ihren Regler. Die Referenz ist das unbearbeitete Original.',
};

export const mushraCatalogues: Record<Language, MushraWords> = { en, de };

/** The MUSHRA words in the language of the shared catalogue on screen (English where none matches). */
export const useMushraWords = (): MushraWords => useKindWords(mushraCatalogues);

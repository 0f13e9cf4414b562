/**
 * The rating trial's words, in every language a study may pick; `en` is the source of truth and
 * every other catalogue is typed against it (as client/listener/messages.ts does for the shared
 * words, which this screen also uses: Play, the keys, the practice notes). The instructions'
 * key hints of a rating study (keysRate, touchHintsLongRating) stay with the shared words: the
 * instructions screen shows them before any trial.
 */
import type { Language } from '../../contract/study-definition';
import { useKindWords } from '../../client/listener/messages';

export const en = {
  /** ACR's five points (ITU-T P.800 Annex B), lowest first: a 5-point scale's labels unless the study gives its own. */
  acrLabels: ['Bad', 'Poor', 'Fair', 'Good', 'Excellent'],
  captionToRate: 'Caption to rate',
  ratingScale: 'Your rating',
  nowRate: 'Now choose your rating.',
  confirmRating: 'Confirm rating',
  touchHintsRating: 'Tap ▶ to listen, tap your rating, then Confirm.',
  ratingCorrect: (point: string) => `Right — the intended rating is ${point}.`,
  ratingWrong: (point: string) => `Not quite — the intended rating is ${point}.`,
};

export type RatingWords = typeof en;

export const de: RatingWords = {
  acrLabels: ['schlecht', 'dürftig', 'ordentlich', 'gut', 'ausgezeichnet'],
  captionToRate: 'Zu bewertende Beschreibung',
  ratingScale: 'Ihre Bewertung',
  nowRate: 'Wählen Sie jetzt Ihre Bewertung.',
  confirmRating: 'Bewertung bestätigen',
  touchHintsRating: 'Tippen Sie auf ▶ zum Anhören, dann auf Ihre Bewertung und zuletzt auf Bestätigen.',
  ratingCorrect: (point: string) => `Richtig — die vorgesehene Bewertung ist ${point}.`,
  ratingWrong: (point: string) => `Nicht ganz — die vorgesehene Bewertung ist ${point}.`,
};

export const ratingCatalogues: Record<Language, RatingWords> = { en, de };

/** The rating's words in the language of the shared catalogue on screen. */
export const useRatingWords = (): RatingWords => useKindWords(ratingCatalogues);

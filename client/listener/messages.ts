/**
 * Every word the listener sees or hears from a screen reader, in one place per language.
 * `en` is the source of truth; every other catalogue is typed against it, so a missing or
 * misspelt key fails the typecheck. Messages with numbers are functions of them. The study's
 * own texts (title, consent, instructions, question) come from study.yaml, not from here.
 */
import { createContext, useContext } from 'react';
import type { Language } from '../../contract/study-definition';

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** "about 5 minutes" from a time in seconds, rounded up to whole minutes. */
function minutesEn(seconds: number): string {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return `${m} minute${m === 1 ? '' : 's'}`;
}
function minutesDe(seconds: number): string {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return `${m} ${m === 1 ? 'Minute' : 'Minuten'}`;
}

export const en = {
  defaultTitle: 'Listening study',
  loading: 'Loading…',
  tryAgain: 'Try again',
  continue: 'Continue',

  // Problems before the session
  closedTitle: 'This study is closed',
  closedText: 'It no longer takes answers. Please return the study on the platform where you found it; no completion code is needed.',
  pausedTitle: 'This study is paused',
  pausedText:
    'It is not taking answers right now. Please try again later, or return the study on the platform where you found it; no completion code is needed.',
  notFoundTitle: 'Study not found',
  notFoundText: 'Please check the link you were given.',
  unreachableTitle: 'Could not reach the study',
  unreachableText: 'Please check your connection.',
  startFailedTitle: 'Could not start',
  startFailedText: 'The study could not be started. Please check your connection.',
  completeTitle: 'This study has all the answers it needs',
  completeText: 'Thank you for your interest. It takes no new listeners; please return the study on the platform where you found it. No completion code is needed.',

  // Welcome and instructions
  welcome: 'Welcome',
  agree: 'I agree — continue',
  instructions: 'Instructions',
  start: 'Start',
  starting: 'Starting…',
  headphoneCheckAhead: 'Before the first clip there is a short headphone check: please have your headphones on.',
  touchHintsLong: 'Use headphones in a quiet place. Tap ▶ to listen, tap the caption that fits better, then Confirm.',
  keysIntro: 'Use headphones in a quiet place. Keys:',
  keysPlayPause: 'play/pause',
  keysOr: 'or',
  keysChoose: 'choose',
  keysConfirm: 'confirm',
  keysCanBeOff: '(they can be turned off on the trial screen).',
  expectation: (trials: number, seconds: number) =>
    `There ${plural(trials, 'is 1 clip', `are ${trials} clips`)} to judge, which takes about ${minutesEn(seconds)}.`,

  // Resume
  welcomeBack: 'Welcome back',
  welcomeBackText: 'Your earlier answers are saved. Continue where you left off.',

  // Screened out
  screenedOutTitle: 'Thank you for your time',
  screenedOutText: 'This study needs headphones that play a separate sound to each ear, and the check did not confirm that.',
  screenedOutReturn: 'Please close this page and return the study on the platform where you found it.',

  // Progress and saving
  trialOf: (n: number, total: number) => `Trial ${n} of ${total}`,
  practiceLabel: (label: string) => `Practice: ${label}`,
  trial: 'Trial',
  rejected: (n: number) => `${n} ${plural(n, 'answer was', 'answers were')} not accepted by the study`,
  offline: (n: number) =>
    `Offline — ${n} ${plural(n, 'answer', 'answers')} kept on this device, sent when you are back online`,
  retrying: 'Connection trouble — still saving, you can keep going',
  saving: 'Saving…',
  allSaved: 'All answers saved',
  savingBeforeNext: 'Saving your answers before the next clip…',
  loadingNext: 'Loading the next clip…',
  breakReminder: (done: number) =>
    `You have judged ${plural(done, '1 clip', `${done} clips`)}. Take a short break if you like — your answers are saved.`,

  // Completion and stopped study
  thanks: "Thank you — you're done!",
  allYourAnswersSaved: 'All your answers are saved.',
  commentsLabel: 'Anything you would like to tell the researchers? (optional)',
  trialCommentLabel: 'Comment on this clip (optional)',
  questionsBeforeTitle: 'A few questions first',
  questionsAfterTitle: 'A few questions to finish',
  questionRequired: '(required)',
  questionOptional: '(optional)',
  questionNumberRange: (min: number | undefined, max: number | undefined) =>
    min !== undefined && max !== undefined ? `from ${min} to ${max}` : min !== undefined ? `at least ${min}` : max !== undefined ? `at most ${max}` : '',
  questionsMissing: 'Please answer the questions marked as required.',
  questionsSaving: 'Saving…',
  questionsFailed: 'Your answers could not be saved. Please check them and try again.',
  sendComments: 'Send comments',
  commentsSent: 'Thank you — your comments were sent.',
  commentsFailed: 'Your comments could not be sent. Please try again.',
  completionCode: 'Your completion code:',
  copyCode: 'Copy code',
  copied: 'Copied',
  codeSelected: "The code is selected: copy it with your device's copy command.",
  returnToPlatform: 'Return to the study platform',
  autoReturnStopped: 'Automatic return stopped: use the button when you are ready.',
  autoReturnIn: (seconds: number) => `Taking you back automatically in ${seconds} s.`,
  stayHere: 'Stay on this page',
  stoppedText: (paused: boolean) =>
    `The researchers have stopped taking answers${paused ? ' for now' : ''}. There are no more clips for you.`,
  keptAnswers: (n: number) => `Your ${n} saved ${plural(n, 'answer is', 'answers are')} kept.`,
  returnNoCode: 'Please return the study on the platform where you found it; no completion code is needed.',
  mayReopen: 'If the study reopens, this link brings you back where you stopped.',
  leaveStudy: 'Leave the study',
  leaveAsk: 'Leave the study now? Your saved answers are kept, but you cannot come back to the clips that are left.',
  leaveConfirm: 'Yes, leave the study',
  leaveCancel: 'Carry on',
  leaving: 'Saving your answers, then leaving…',
  leaveFailed: 'Leaving did not work. Please check your connection and try again.',
  leftTitle: 'You have left the study',
  leftText: 'Thank you for your time. There are no more clips for you.',

  // Clip trials (the caption pair's and the rating's own words are in trials/pair/words.ts, trials/rating/words.ts)
  practice: 'Practice',
  playClip: 'Play clip',
  pauseClip: 'Pause clip',
  loadingClip: 'Loading clip',
  waveformRetry: 'Waveform unavailable — retry',
  loadFailed: 'The clip could not be loaded.',
  playFailed: 'The clip could not start playing.',
  pleaseTryAgain: 'Please try again.',
  reportIfStill: 'If it still does not work, report the problem and go on to the next clip.',
  reporting: 'Reporting…',
  reportAndSkip: 'Report a problem and skip this clip',
  loadingTheClip: 'Loading the clip…',
  skippedAhead: 'Part of the clip was skipped (the position was moved ahead). Play the parts you skipped to unlock the choice.',
  listenWhole: 'Listen to the whole clip to unlock the choice.',
  listenSeconds: (seconds: number) => `Listen to at least ${seconds} seconds to unlock the choice.`,
  intendedMark: 'Intended answer',
  listenAgain: 'You can listen to the clip again before you continue.',
  checking: 'Checking…',
  confirmChoice: 'Confirm choice',
  shortcutsSwitch: 'Single-key shortcuts',

  // Instructions of a rating study
  keysRate: 'rate',
  touchHintsLongRating: 'Use headphones in a quiet place. Tap ▶ to listen, tap your rating, then Confirm.',

  // Headphone check
  antiphaseTitle: 'Headphone check',
  antiphaseQuestion: 'Which of the three sounds was the quietest?',
  antiphaseTask: 'You will hear three tones. One of them is quieter than the other two. Pick the quietest one.',
  hugginsTitle: 'Headphone check: hidden tone',
  hugginsQuestion: 'Which of the three noises had a faint tone in it?',
  hugginsTask: 'You will hear three bursts of noise. One of them contains a faint tone. Pick that one.',
  checkUsedUp: 'This check was already started in this browser and cannot be taken again.',
  putOnHeadphones: 'Please put on your headphones now. This check makes sure sounds reach each ear separately.',
  setVolume: "Play the sound below and set your computer's volume so that it is clearly audible but comfortable.",
  stopSound: 'Stop sound',
  playCalibration: 'Play calibration sound',
  volumeSet: 'Volume is set — continue',
  playableOnce: 'Each sound can be played only once.',
  soundOf: (n: number, total: number) => `Sound ${n} of ${total}`,
  playing: 'Playing…',
  played: 'Played',
  playSounds: 'Play the sounds',
  ordinals: ['First', 'Second', 'Third'] as [string, string, string],
  checkRetry: 'That did not quite work. Please check that both headphone sides are on and try once more.',
};

export type Messages = typeof en;

export const de: Messages = {
  defaultTitle: 'Hörstudie',
  loading: 'Wird geladen…',
  tryAgain: 'Erneut versuchen',
  continue: 'Weiter',

  closedTitle: 'Diese Studie ist beendet',
  closedText:
    'Sie nimmt keine Antworten mehr an. Bitte geben Sie die Studie auf der Plattform zurück, auf der Sie sie gefunden haben; ein Abschlusscode ist nicht nötig.',
  pausedTitle: 'Diese Studie ist pausiert',
  pausedText:
    'Sie nimmt gerade keine Antworten an. Bitte versuchen Sie es später noch einmal oder geben Sie die Studie auf der Plattform zurück, auf der Sie sie gefunden haben; ein Abschlusscode ist nicht nötig.',
  notFoundTitle: 'Studie nicht gefunden',
  notFoundText: 'Bitte prüfen Sie den Link, den Sie erhalten haben.',
  unreachableTitle: 'Die Studie ist nicht erreichbar',
  unreachableText: 'Bitte prüfen Sie Ihre Internetverbindung.',
  startFailedTitle: 'Start nicht möglich',
  startFailedText: 'Die Studie konnte nicht gestartet werden. Bitte prüfen Sie Ihre Internetverbindung.',
  completeTitle: 'Diese Studie hat alle Antworten, die sie braucht',
  completeText: 'Vielen Dank für Ihr Interesse. Sie nimmt keine neuen Teilnehmenden mehr auf; bitte geben Sie die Studie auf der Plattform zurück, auf der Sie sie gefunden haben. Ein Abschlusscode ist nicht nötig.',

  welcome: 'Willkommen',
  agree: 'Ich stimme zu — weiter',
  instructions: 'Anleitung',
  start: 'Starten',
  starting: 'Wird gestartet…',
  headphoneCheckAhead: 'Vor dem ersten Clip folgt ein kurzer Kopfhörertest: Bitte setzen Sie Ihre Kopfhörer auf.',
  touchHintsLong:
    'Benutzen Sie Kopfhörer an einem ruhigen Ort. Tippen Sie auf ▶ zum Anhören, dann auf die passendere Beschreibung und zuletzt auf Bestätigen.',
  keysIntro: 'Benutzen Sie Kopfhörer an einem ruhigen Ort. Tasten:',
  keysPlayPause: 'Abspielen/Pause',
  keysOr: 'oder',
  keysChoose: 'auswählen',
  keysConfirm: 'bestätigen',
  keysCanBeOff: '(sie lassen sich auf der Bewertungsseite ausschalten).',
  expectation: (trials: number, seconds: number) =>
    `Sie bewerten ${trials === 1 ? 'einen Clip' : `${trials} Clips`}; das dauert etwa ${minutesDe(seconds)}.`,

  welcomeBack: 'Willkommen zurück',
  welcomeBackText: 'Ihre bisherigen Antworten sind gespeichert. Machen Sie dort weiter, wo Sie aufgehört haben.',

  screenedOutTitle: 'Vielen Dank für Ihre Zeit',
  screenedOutText:
    'Für diese Studie sind Kopfhörer nötig, die jedem Ohr einen eigenen Ton zuspielen, und der Test konnte das nicht bestätigen.',
  screenedOutReturn: 'Bitte schließen Sie diese Seite und geben Sie die Studie auf der Plattform zurück, auf der Sie sie gefunden haben.',

  trialOf: (n: number, total: number) => `Durchgang ${n} von ${total}`,
  practiceLabel: (label: string) => `Übung: ${label}`,
  trial: 'Durchgang',
  rejected: (n: number) => `${n} ${n === 1 ? 'Antwort wurde' : 'Antworten wurden'} von der Studie nicht angenommen`,
  offline: (n: number) =>
    `Offline — ${n} ${n === 1 ? 'Antwort bleibt' : 'Antworten bleiben'} auf diesem Gerät und ${n === 1 ? 'wird' : 'werden'} gesendet, sobald Sie wieder online sind`,
  retrying: 'Verbindungsprobleme — es wird weiter gespeichert, Sie können fortfahren',
  saving: 'Wird gespeichert…',
  allSaved: 'Alle Antworten gespeichert',
  savingBeforeNext: 'Ihre Antworten werden vor dem nächsten Clip gespeichert…',
  loadingNext: 'Der nächste Clip wird geladen…',
  breakReminder: (done: number) =>
    `Sie haben ${done === 1 ? 'einen Clip' : `${done} Clips`} bewertet. Machen Sie gern eine kurze Pause — Ihre Antworten sind gespeichert.`,

  thanks: 'Vielen Dank — Sie sind fertig!',
  allYourAnswersSaved: 'Alle Ihre Antworten sind gespeichert.',
  commentsLabel: 'Möchten Sie den Forschenden noch etwas mitteilen? (freiwillig)',
  trialCommentLabel: 'Kommentar zu diesem Clip (freiwillig)',
  questionsBeforeTitle: 'Zuerst ein paar Fragen',
  questionsAfterTitle: 'Zum Schluss ein paar Fragen',
  questionRequired: '(Pflichtangabe)',
  questionOptional: '(freiwillig)',
  questionNumberRange: (min: number | undefined, max: number | undefined) =>
    min !== undefined && max !== undefined ? `von ${min} bis ${max}` : min !== undefined ? `mindestens ${min}` : max !== undefined ? `höchstens ${max}` : '',
  questionsMissing: 'Bitte beantworten Sie die als Pflichtangabe markierten Fragen.',
  questionsSaving: 'Wird gespeichert…',
  questionsFailed: 'Ihre Antworten konnten nicht gespeichert werden. Bitte prüfen Sie sie und versuchen Sie es erneut.',
  sendComments: 'Kommentar senden',
  commentsSent: 'Vielen Dank — Ihr Kommentar wurde gesendet.',
  commentsFailed: 'Ihr Kommentar konnte nicht gesendet werden. Bitte versuchen Sie es erneut.',
  completionCode: 'Ihr Abschlusscode:',
  copyCode: 'Code kopieren',
  copied: 'Kopiert',
  codeSelected: 'Der Code ist markiert: Kopieren Sie ihn mit dem Kopierbefehl Ihres Geräts.',
  returnToPlatform: 'Zurück zur Studienplattform',
  autoReturnStopped: 'Automatische Weiterleitung angehalten: Nutzen Sie die Schaltfläche, wenn Sie so weit sind.',
  autoReturnIn: (seconds: number) => `Sie werden in ${seconds} s automatisch zurückgeleitet.`,
  stayHere: 'Auf dieser Seite bleiben',
  stoppedText: (paused: boolean) =>
    `Die Forschenden nehmen ${paused ? 'vorerst ' : ''}keine Antworten mehr an. Es gibt keine weiteren Clips für Sie.`,
  keptAnswers: (n: number) =>
    n === 1 ? 'Ihre gespeicherte Antwort bleibt erhalten.' : `Ihre ${n} gespeicherten Antworten bleiben erhalten.`,
  returnNoCode: 'Bitte geben Sie die Studie auf der Plattform zurück, auf der Sie sie gefunden haben; ein Abschlusscode ist nicht nötig.',
  mayReopen: 'Wenn die Studie wieder geöffnet wird, bringt Sie dieser Link dorthin zurück, wo Sie aufgehört haben.',
  leaveStudy: 'Studie verlassen',
  leaveAsk: 'Die Studie jetzt verlassen? Ihre gespeicherten Antworten bleiben erhalten, aber Sie können nicht zu den übrigen Clips zurückkehren.',
  leaveConfirm: 'Ja, Studie verlassen',
  leaveCancel: 'Weitermachen',
  leaving: 'Ihre Antworten werden gespeichert, dann wird die Studie verlassen …',
  leaveFailed: 'Das Verlassen hat nicht geklappt. Bitte prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
  leftTitle: 'Sie haben die Studie verlassen',
  leftText: 'Vielen Dank für Ihre Zeit. Es gibt keine weiteren Clips für Sie.',

  practice: 'Übung',
  playClip: 'Clip abspielen',
  pauseClip: 'Clip anhalten',
  loadingClip: 'Clip wird geladen',
  waveformRetry: 'Wellenform nicht verfügbar — erneut laden',
  loadFailed: 'Der Clip konnte nicht geladen werden.',
  playFailed: 'Der Clip konnte nicht abgespielt werden.',
  pleaseTryAgain: 'Bitte versuchen Sie es erneut.',
  reportIfStill: 'Wenn es weiterhin nicht klappt, melden Sie das Problem und gehen Sie zum nächsten Clip.',
  reporting: 'Wird gemeldet…',
  reportAndSkip: 'Problem melden und diesen Clip überspringen',
  loadingTheClip: 'Der Clip wird geladen…',
  skippedAhead:
    'Ein Teil des Clips wurde übersprungen (die Position wurde nach vorn verschoben). Spielen Sie die übersprungenen Stellen ab, um die Auswahl freizuschalten.',
  listenWhole: 'Hören Sie den ganzen Clip an, um die Auswahl freizuschalten.',
  listenSeconds: (seconds: number) => `Hören Sie mindestens ${seconds} Sekunden an, um die Auswahl freizuschalten.`,
  intendedMark: 'Vorgesehene Antwort',
  listenAgain: 'Sie können den Clip noch einmal anhören, bevor Sie weitermachen.',
  checking: 'Wird geprüft…',
  confirmChoice: 'Auswahl bestätigen',
  shortcutsSwitch: 'Einzeltasten-Kürzel',

  keysRate: 'bewerten',
  touchHintsLongRating:
    'Benutzen Sie Kopfhörer an einem ruhigen Ort. Tippen Sie auf ▶ zum Anhören, dann auf Ihre Bewertung und zuletzt auf Bestätigen.',

  antiphaseTitle: 'Kopfhörertest',
  antiphaseQuestion: 'Welcher der drei Töne war am leisesten?',
  antiphaseTask: 'Sie hören drei Töne. Einer davon ist leiser als die beiden anderen. Wählen Sie den leisesten.',
  hugginsTitle: 'Kopfhörertest: versteckter Ton',
  hugginsQuestion: 'In welchem der drei Rauschsignale war ein leiser Ton?',
  hugginsTask: 'Sie hören drei Rauschsignale. In einem davon steckt ein leiser Ton. Wählen Sie dieses aus.',
  checkUsedUp: 'Dieser Test wurde in diesem Browser bereits begonnen und kann nicht wiederholt werden.',
  putOnHeadphones: 'Bitte setzen Sie jetzt Ihre Kopfhörer auf. Dieser Test stellt sicher, dass die Töne jedes Ohr getrennt erreichen.',
  setVolume: 'Spielen Sie den Ton unten ab und stellen Sie die Lautstärke so ein, dass er deutlich hörbar, aber angenehm ist.',
  stopSound: 'Ton anhalten',
  playCalibration: 'Kalibrierton abspielen',
  volumeSet: 'Lautstärke eingestellt — weiter',
  playableOnce: 'Jeder Ton kann nur einmal abgespielt werden.',
  soundOf: (n: number, total: number) => `Ton ${n} von ${total}`,
  playing: 'Wird abgespielt…',
  played: 'Abgespielt',
  playSounds: 'Töne abspielen',
  ordinals: ['Erster', 'Zweiter', 'Dritter'],
  checkRetry: 'Das hat nicht ganz geklappt. Bitte prüfen Sie, ob beide Kopfhörerseiten aufgesetzt sind, und versuchen Sie es noch einmal.',
};

export const catalogues: Record<Language, Messages> = { en, de };

/** The catalogue of the study on screen; English until the study's language is known (and in the studio). */
export const MessagesContext = createContext<Messages>(en);
export const useMessages = (): Messages => useContext(MessagesContext);

/**
 * A trial kind's own words (trials/<kind>/words.ts) in the language of the shared catalogue on
 * screen, English where none matches (as the shared words).
 */
export function useKindWords<Words>(kindCatalogues: Record<Language, Words>): Words {
  const shared = useMessages();
  const language = (Object.keys(catalogues) as Language[]).find((l) => catalogues[l] === shared);
  return kindCatalogues[language ?? 'en'];
}

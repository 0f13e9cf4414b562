/**
 * The contract's fixed values without zod, so every layer (the client bundle included) can use them.
 * Each enum of the API and of the stored data is listed here once; its zod schema is derived from it.
 */

export const STUDY_STATUSES = ['draft', 'open', 'paused', 'closed'] as const;
export type StudyStatus = (typeof STUDY_STATUSES)[number];

/** The listener pages' languages (client/listener/messages.ts has one catalogue for each). */
export const LANGUAGES = ['en', 'de'] as const;

/** The headphone checks a study can ask for before its trials. */
export const HEADPHONE_CHECKS = ['antiphase', 'huggins'] as const;
export const SCREENINGS = ['none', ...HEADPHONE_CHECKS, 'both'] as const;
/**
 * Each check's rounds per attempt, how many must be right to pass, and how many attempts a
 * listener gets; the server issues the rounds and scores the answers (server/store/screening.ts).
 */
export const SCREENING_RULES = {
  antiphase: { trials: 6, passAt: 5, attempts: 1 },
  huggins: { trials: 6, passAt: 6, attempts: 2 },
} as const;

export const STAFF_ROLES = ['researcher', 'analyst'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** An item's role in its study: an ordinary trial of the study's kind (contract/trials), or an attention check or practice trial. */
export const ITEM_KINDS = ['pair', 'rating', 'ab', 'attention', 'practice', 'abx', 'ccr', 'tags', 'mushra', 'describe'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];
/** A study's items per kind, every kind listed (the studio's counts). */
export const countItemKinds = (count: (kind: ItemKind) => number): Record<ItemKind, number> =>
  Object.fromEntries(ITEM_KINDS.map((kind) => [kind, count(kind)])) as Record<ItemKind, number>;

/** Why a listener skipped a trial (its clip would not load or play). */
export const TRIAL_PROBLEMS = ['load_failed', 'play_failed'] as const;

/** How many unanswered trials after the current one a SessionState carries (the client's offline runway). */
export const UPCOMING_TRIALS = 5;

/** The most stimuli one trial plays (BS.1534-3: at most 12 on one MUSHRA page); a vote's listening record has at most this many entries. */
export const MAX_STIMULI = 12;

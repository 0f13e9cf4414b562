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

export const STAFF_ROLES = ['researcher', 'analyst'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** Why a listener skipped a trial (its clip would not load or play). */
export const TRIAL_PROBLEMS = ['load_failed', 'play_failed'] as const;

/** How many unanswered trials after the current one a SessionState carries (the client's offline runway). */
export const UPCOMING_TRIALS = 5;

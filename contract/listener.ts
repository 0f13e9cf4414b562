/**
 * The listener's API: the one surface a listener's browser receives, so it is blinded. Nothing here
 * (StudyIntro, Trial, SessionState, VoteAck) may carry a system name, an attention flag or expected
 * answer, a judge score or a corpus path/label (docs/blinding.md; e2e/support/blinding.ts checks).
 */
import { z } from 'zod';
import { HEADPHONE_CHECKS, MAX_STIMULI, SCREENING_RULES, TRIAL_PROBLEMS, UPCOMING_TRIALS } from './constants';
import { StudyId, StudyStatus } from './common';
import { Language, ListeningRequirement, Screening } from './study-definition';
import { Question } from './questionnaire';
import { answerFields, answerOf, ListenerTrialSettings, Trial, TrialSettings } from './trials';

export { AnswersAck, AnswersBody } from './questionnaire';

export { UPCOMING_TRIALS };

/** What the welcome/consent/instructions screens show (public, per study). */
export const StudyIntro = z.object({
  study: StudyId,
  /** The study's language: the listener pages' words, and the study texts below already in it. */
  language: Language,
  title: z.string(),
  status: StudyStatus,
  consentMarkdown: z.string(),
  instructionsMarkdown: z.string(),
  questionMarkdown: z.string(),
  listening: ListeningRequirement,
  /** The study's kind of trial and, for ratings, the scale every trial shows (no system names). */
  trial: ListenerTrialSettings,
  screening: z.object({ kind: Screening, required: z.boolean() }),
  /** Link parameters the study records (e.g. PROLIFIC_PID), read from the listener's URL. */
  linkParameters: z.array(z.string()),
  /** What the listener is in for: trials in one session and a rough time (server/store/studies.ts says how). */
  estimate: z.object({ trials: z.number().int().nonnegative(), seconds: z.number().nonnegative() }),
  /** A "take a short break" notice after every this many trials (study.yaml breakEvery), or null. */
  breakEvery: z.number().int().positive().nullable(),
  /** The completion screen offers an optional comments box (study.yaml comments). */
  comments: z.boolean(),
  /** Questions before and after the trials (study.yaml questions), as listeners see them. */
  questions: z.array(Question),
  /** Every trial offers an optional comment box (study.yaml trialComments). */
  trialComments: z.boolean(),
});
export type StudyIntro = z.infer<typeof StudyIntro>;

export const StartSessionBody = z
  .object({
    study: StudyId,
    /** External ids from the link, e.g. { PROLIFIC_PID: "…" }; only the study's linkParameters are kept. */
    external: z.record(z.string().max(64), z.string().max(256)).default({}),
  })
  .strict();
export type StartSessionBody = z.infer<typeof StartSessionBody>;

export const Progress = z.object({
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
});
export type Progress = z.infer<typeof Progress>;

export { Trial, TrialSettings } from './trials';

export const Completion = z.object({
  code: z.string().nullable(),
  redirectUrl: z.string().nullable(),
});
export type Completion = z.infer<typeof Completion>;

/**
 * GET /api/session: where this listener stands. `upcoming` is the next up to UPCOMING_TRIALS
 * unanswered trials after `trial`, in order: the client prefetches them and lets the listener
 * answer them while offline.
 */
export const SessionState = z.object({
  study: StudyId,
  progress: Progress,
  trial: Trial.nullable(),
  upcoming: z.array(Trial).max(UPCOMING_TRIALS),
  completion: Completion.nullable(),
  /** The study's status: anything but open means no more trials and no more votes (studies/README.md). */
  status: StudyStatus.exclude(['draft']),
  /** The listener left the study part-way from its page (POST /api/session/leave): no more trials, no more votes. */
  left: z.boolean(),
  /**
   * Set while the study is paused or closed, or once the listener left it, and this listener has not
   * finished: the way out the researcher set (the completion code and link, only for a listener with
   * saved answers).
   */
  stopped: Completion.nullable(),
  /** The study's questions this listener has still to see: those before the trials, those after. */
  questionsDue: z.object({ before: z.boolean(), after: z.boolean() }),
  /**
   * The listener's own headphone checks: the kinds whose outcome is recorded, and whether one of
   * this participant's checks (in this session or another of theirs) did not pass. A study that
   * requires the check takes no votes once `failed` (server/store/votes.ts). `usedUp`: checks not
   * recorded whose every attempt was begun (left by a reload); beginning one records it as not passed.
   */
  screening: z.object({ done: z.array(z.enum(HEADPHONE_CHECKS)), usedUp: z.array(z.enum(HEADPHONE_CHECKS)), failed: z.boolean() }),
});
export type SessionState = z.infer<typeof SessionState>;

export const StartSessionReply = z.object({
  /** Unguessable bearer token bound to this study; the client keeps it to resume. */
  token: z.string(),
  state: SessionState,
});
export type StartSessionReply = z.infer<typeof StartSessionReply>;

const ANSWER_KEYS = Object.keys(answerFields) as Array<keyof typeof answerFields>;
const partial = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };

export const VoteBody = z
  .object({
    /** Client-generated id of one answer to one trial: a retry of it (same trial, same answer) returns the first acknowledgement. */
    voteId: z
      .string()
      .uuid()
      // The nil and max UUIDs are placeholders, not generated ids: a client sending one would make every vote a replay.
      .refine((id) => !/^(0{8}-0{4}-0{4}-0{4}-0{12}|f{8}-f{4}-f{4}-f{4}-f{12})$/i.test(id), 'the nil (or max) UUID is not a vote id; send a random UUID'),
    position: z.number().int().nonnegative(),
    /** The answer, in the fields of the trial's kind (contract/trials): `choice` for a pair, `score` for a rating. */
    ...partial(answerFields),
    playCount: z.number().int().nonnegative().max(10_000),
    secondsListened: z.number().nonnegative().max(86_400),
    heardToEnd: z.boolean(),
    hiddenMs: z.number().int().nonnegative().max(86_400_000),
    responseMs: z.number().int().nonnegative().max(86_400_000),
    clientTs: z.string().datetime({ offset: true }),
    /**
     * A trial of several stimuli (an A/B's two renditions): how each was listened to, in the order the
     * trial listed them; playCount, secondsListened and heardToEnd are then their totals (every one heard
     * to end). Absent for a trial of one clip, whose record the totals are.
     */
    listening: z
      .array(z.object({ plays: z.number().int().nonnegative().max(10_000), secondsHeard: z.number().nonnegative().max(86_400), heardToEnd: z.boolean() }).strict())
      .min(1)
      .max(MAX_STIMULI)
      .optional(),
    /** The listener's optional comment on this trial, in a study that offers the box (trialComments). */
    comment: z.string().trim().max(1000).optional(),
  })
  .strict()
  .superRefine((vote, ctx) => {
    const given = ANSWER_KEYS.filter((key) => vote[key] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        path: [given[1] ?? ANSWER_KEYS[0]],
        message: `a vote carries one answer: ${ANSWER_KEYS.map((key) => `${key} (${answerOf[key]})`).join(' or ')}${given.length ? `, not ${given.join(' and ')}` : ''}`,
      });
  });
export type VoteBody = z.infer<typeof VoteBody>;

/** A vote's acknowledgement: stored with the vote and replayed identically for a retried vote id. */
export const VoteAck = z.object({
  voteId: z.string(),
  position: z.number().int(),
  serverTs: z.string(),
  /**
   * Practice trials only: whether the answer matched the intended one; a rating's feedback also
   * says the intended score (the scale point the practice clip was meant to get).
   */
  feedback: z.object({ correct: z.boolean(), score: z.number().int().optional() }).nullable(),
});
export type VoteAck = z.infer<typeof VoteAck>;

/** What the listener's browser says about itself with a check: kept with the outcome, for the researcher. */
const screeningDevice = {
  userAgent: z.string().max(512),
  audioOutput: z.record(z.string().max(64), z.union([z.string().max(256), z.number(), z.boolean(), z.null()])),
};

/** POST /api/session/screening/attempts: begin an attempt at one headphone check. */
export const ScreeningStartBody = z.object({ kind: z.enum(HEADPHONE_CHECKS), ...screeningDevice }).strict();
export type ScreeningStartBody = z.infer<typeof ScreeningStartBody>;

/**
 * An attempt as the browser receives it: where each round's sound is, nothing about which interval
 * is the target (the server keeps that, and scores the answers).
 */
export const ScreeningAttempt = z.object({
  kind: z.enum(HEADPHONE_CHECKS),
  attempt: z.number().int().positive(),
  attempts: z.number().int().positive(),
  rounds: z.array(z.object({ audioUrl: z.string() })),
});
export type ScreeningAttempt = z.infer<typeof ScreeningAttempt>;

/**
 * POST /api/session/screening: the interval (0, 1 or 2) the listener picked in each round of the
 * open attempt. The server scores them; a browser's own "passed" is not accepted.
 */
export const ScreeningBody = z
  .object({
    kind: z.enum(HEADPHONE_CHECKS),
    attempt: z.number().int().positive(),
    answers: z.array(z.number().int().min(0).max(2)).max(Math.max(SCREENING_RULES.antiphase.trials, SCREENING_RULES.huggins.trials)),
    ...screeningDevice,
  })
  .strict();
export type ScreeningBody = z.infer<typeof ScreeningBody>;

/** The server's score of an attempt: passed, another attempt allowed (retry), or failed; and where the listener stands. */
export const ScreeningReply = z.object({ outcome: z.enum(['passed', 'retry', 'failed']), state: SessionState });
export type ScreeningReply = z.infer<typeof ScreeningReply>;

/**
 * POST /api/session/problems: the trial's clip would not load or play even after "Try again"; the
 * listener skips it. Stored as a problem, never as a vote; the reply is the new SessionState.
 */
export const ProblemBody = z
  .object({
    position: z.number().int().nonnegative(),
    problem: z.enum(TRIAL_PROBLEMS),
    /** What the browser said (a MediaError code or the play() rejection's name), for the researcher. */
    detail: z.string().max(256).nullable(),
    clientTs: z.string().datetime({ offset: true }),
  })
  .strict();
export type ProblemBody = z.infer<typeof ProblemBody>;

/** POST /api/session/comments: what a listener who finished wants to tell the researchers (optional). */
export const CommentsBody = z.object({ text: z.string().trim().min(1).max(2000) }).strict();
export type CommentsBody = z.infer<typeof CommentsBody>;
export const CommentsAck = z.object({ saved: z.literal(true) });

/**
 * Every request and response of the HTTP API as zod schemas. The server validates with them
 * (fastify-type-provider-zod) and the client imports the same schemas and types, so the two
 * sides cannot drift apart.
 *
 * Blinding: nothing a listener can receive (StudyIntro, Trial, VoteAck, SessionState) may carry
 * a system name, an attention flag or expected answer, a judge score or a corpus path/label.
 */
import { z } from 'zod';

/** Every 4xx/5xx body. `field` names the request field at fault, when one is. */
export const ApiError = z.object({
  error: z.string(),
  message: z.string(),
  field: z.string().optional(),
});
export type ApiError = z.infer<typeof ApiError>;

export const StudyId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'a study id is lower-case letters, digits and dashes');

/** The listening requirement before a choice is allowed. */
export const ListeningRequirement = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('whole') }),
  z.object({ mode: z.literal('seconds'), seconds: z.number().positive() }),
]);
export type ListeningRequirement = z.infer<typeof ListeningRequirement>;

export const Screening = z.enum(['none', 'antiphase', 'huggins', 'both']);

/** What the welcome/consent/instructions screens show (public, per study). */
export const StudyIntro = z.object({
  study: StudyId,
  title: z.string(),
  status: z.enum(['draft', 'open', 'paused', 'closed']),
  consentMarkdown: z.string(),
  instructionsMarkdown: z.string(),
  questionMarkdown: z.string(),
  listening: ListeningRequirement,
  screening: z.object({ kind: Screening, required: z.boolean() }),
  /** Link parameters the study records (e.g. PROLIFIC_PID), read from the listener's URL. */
  linkParameters: z.array(z.string()),
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

/** One trial as a listener sees it: opaque clip, two caption texts in this listener's order. */
export const Trial = z.object({
  /** 0-based position in this listener's sequence; the only handle a vote needs. */
  position: z.number().int().nonnegative(),
  kind: z.enum(['pair', 'practice']),
  clip: z.object({
    id: z.string(),
    audioUrl: z.string(),
    peaksUrl: z.string(),
    duration: z.number().nonnegative(),
  }),
  captions: z.tuple([z.string(), z.string()]),
});
export type Trial = z.infer<typeof Trial>;

export const Completion = z.object({
  code: z.string().nullable(),
  redirectUrl: z.string().nullable(),
});
export type Completion = z.infer<typeof Completion>;

/** GET /api/session: where this listener stands; `next` is prefetched by the client. */
export const SessionState = z.object({
  study: StudyId,
  progress: Progress,
  trial: Trial.nullable(),
  next: Trial.nullable(),
  completion: Completion.nullable(),
});
export type SessionState = z.infer<typeof SessionState>;

export const StartSessionReply = z.object({
  /** Unguessable bearer token bound to this study; the client keeps it to resume. */
  token: z.string(),
  state: SessionState,
});
export type StartSessionReply = z.infer<typeof StartSessionReply>;

export const VoteBody = z
  .object({
    /** Client-generated id: a retry with the same id returns the first acknowledgement. */
    voteId: z.string().uuid(),
    position: z.number().int().nonnegative(),
    /** Which caption on screen was chosen: 1 = first shown (left/top), 2 = second. */
    choice: z.union([z.literal(1), z.literal(2)]),
    playCount: z.number().int().nonnegative().max(10_000),
    secondsListened: z.number().nonnegative().max(86_400),
    heardToEnd: z.boolean(),
    hiddenMs: z.number().int().nonnegative().max(86_400_000),
    responseMs: z.number().int().nonnegative().max(86_400_000),
    clientTs: z.string().datetime({ offset: true }),
  })
  .strict();
export type VoteBody = z.infer<typeof VoteBody>;

export const VoteAck = z.object({
  voteId: z.string(),
  position: z.number().int(),
  serverTs: z.string(),
  progress: Progress,
  /** Practice trials only: whether the choice matched the intended answer. */
  feedback: z.object({ correct: z.boolean() }).nullable(),
});
export type VoteAck = z.infer<typeof VoteAck>;

export const ScreeningBody = z
  .object({
    kind: z.enum(['antiphase', 'huggins']),
    passed: z.boolean(),
    correct: z.number().int().nonnegative(),
    trials: z.number().int().positive(),
    attempts: z.number().int().positive(),
    userAgent: z.string().max(512),
    audioOutput: z.record(z.string().max(64), z.union([z.string().max(256), z.number(), z.boolean(), z.null()])),
  })
  .strict();
export type ScreeningBody = z.infer<typeof ScreeningBody>;

/* ---- Researcher / analyst API (Authorization: Bearer <access token>) ---- */

export const StudyStatus = z.enum(['draft', 'open', 'paused', 'closed']);

export const StudioStudy = z.object({
  id: StudyId,
  title: z.string(),
  status: StudyStatus,
  items: z.number().int().nonnegative(),
  listeners: z.number().int().nonnegative(),
  completed: z.number().int().nonnegative(),
  votes: z.number().int().nonnegative(),
});
export type StudioStudy = z.infer<typeof StudioStudy>;

export const StudioStudyList = z.object({ studies: z.array(StudioStudy) });

export const StudyStatusBody = z.object({ status: StudyStatus }).strict();

/** The study export bundle (analysis-spec §1): each file's CSV text under its file name. */
export const ExportBundle = z.object({
  'items.csv': z.string(),
  'votes.csv': z.string(),
  'judge_scores.csv': z.string(),
});
export type ExportBundle = z.infer<typeof ExportBundle>;

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

/** The listener pages' language (client/listener/messages.ts has one catalogue for each). */
export const Language = z.enum(['en', 'de']);
export type Language = z.infer<typeof Language>;

/** What the welcome/consent/instructions screens show (public, per study). */
export const StudyIntro = z.object({
  study: StudyId,
  /** The study's language: the listener pages' words, and the study texts below already in it. */
  language: Language,
  title: z.string(),
  status: z.enum(['draft', 'open', 'paused', 'closed']),
  consentMarkdown: z.string(),
  instructionsMarkdown: z.string(),
  questionMarkdown: z.string(),
  listening: ListeningRequirement,
  screening: z.object({ kind: Screening, required: z.boolean() }),
  /** Link parameters the study records (e.g. PROLIFIC_PID), read from the listener's URL. */
  linkParameters: z.array(z.string()),
  /** What the listener is in for: trials in one session and a rough time (server/store/studies.ts says how). */
  estimate: z.object({ trials: z.number().int().nonnegative(), seconds: z.number().nonnegative() }),
  /** A "take a short break" notice after every this many trials (study.yaml breakEvery), or null. */
  breakEvery: z.number().int().positive().nullable(),
  /** The completion screen offers an optional comments box (study.yaml comments). */
  comments: z.boolean(),
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

/** How many unanswered trials after `trial` a SessionState carries (the client's offline runway). */
export const UPCOMING_TRIALS = 5;

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
  status: z.enum(['open', 'paused', 'closed']),
  /**
   * Set while the study is paused or closed and this listener has not finished: the way out the
   * researcher set (the completion code and link, only for a listener with saved answers).
   */
  stopped: Completion.nullable(),
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
    voteId: z
      .string()
      .uuid()
      // The nil and max UUIDs are placeholders, not generated ids: a client sending one would make every vote a replay.
      .refine((id) => !/^(0{8}-0{4}-0{4}-0{4}-0{12}|f{8}-f{4}-f{4}-f{4}-f{12})$/i.test(id), 'the nil (or max) UUID is not a vote id; send a random UUID'),
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

/** A vote's acknowledgement: stored with the vote and replayed identically for a retried vote id. */
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

/**
 * POST /api/session/problems: the trial's clip would not load or play even after "Try again"; the
 * listener skips it. Stored as a problem, never as a vote; the reply is the new SessionState.
 */
export const ProblemBody = z
  .object({
    position: z.number().int().nonnegative(),
    problem: z.enum(['load_failed', 'play_failed']),
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
  /** false for a study folder not built yet (a draft written in the studio or by hand) */
  built: z.boolean(),
});
export type StudioStudy = z.infer<typeof StudioStudy>;

export const StudioStudyList = z.object({ studies: z.array(StudioStudy) });

/** POST /api/studio/session: exchanges an access token for the studio's HttpOnly sign-in cookie. */
export const StaffSignInBody = z.object({ token: z.string().min(1).max(512) }).strict();
export const StaffSession = z.object({ role: z.enum(['researcher', 'analyst']) });
export type StaffSession = z.infer<typeof StaffSession>;

export const StudyStatusBody = z.object({ status: StudyStatus }).strict();

/** The study export bundle (analysis-spec §1): each file's CSV text under its file name. */
export const ExportBundle = z.object({
  'items.csv': z.string(),
  'votes.csv': z.string(),
  'judge_scores.csv': z.string(),
  'listeners.csv': z.string(),
  'study.json': z.string(),
});
export type ExportBundle = z.infer<typeof ExportBundle>;

/* ---- Researcher studio: define, build and run a study without shell access ---- */

/** One problem in a study.yaml, located at its line and column (studies/parse.ts). */
export const DefinitionProblem = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  field: z.string(),
  message: z.string(),
});
export type DefinitionProblem = z.infer<typeof DefinitionProblem>;

/**
 * 400 body of a refused definition: the first problem as `message`/`field`, then every problem.
 * (A request refused before the definition was read — e.g. a bad study name — has no `problems`.)
 */
export const DefinitionErrorBody = ApiError.extend({ problems: z.array(DefinitionProblem).optional() });
export type DefinitionErrorBody = z.infer<typeof DefinitionErrorBody>;

const YamlText = z.string().max(1_000_000, 'a study.yaml is at most 1 MB');

export const CreateStudyBody = z
  .object({
    name: StudyId,
    /** Pasted or uploaded study.yaml text; or */
    yaml: YamlText.optional(),
    /** a template id from GET /api/studio/templates. */
    template: z.string().regex(/^[a-z0-9-]{1,64}$/).optional(),
  })
  .strict()
  .refine((b) => (b.yaml === undefined) !== (b.template === undefined), { message: 'give either yaml or template', path: ['yaml'] });
export type CreateStudyBody = z.infer<typeof CreateStudyBody>;

export const SaveDefinitionBody = z.object({ yaml: YamlText }).strict();
export const CloneStudyBody = z.object({ name: StudyId }).strict();

export const StudyTemplate = z.object({ id: z.string(), title: z.string(), yaml: z.string() });
export const StudyTemplateList = z.object({ templates: z.array(StudyTemplate) });
export type StudyTemplate = z.infer<typeof StudyTemplate>;

export const StudyFileKind = z.enum(['captions', 'judges']);
export type StudyFileKind = z.infer<typeof StudyFileKind>;
/** A file name kept as uploaded (judge files say <system>__<judge>__<run>.json), without any path. */
export const StudyFileName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\.(json|csv)$/, 'a file name of letters, digits, . _ - ending in .json or .csv');

export const UploadStudyFileBody = z
  .object({
    kind: StudyFileKind,
    name: StudyFileName,
    content: z.string().min(1, 'the file is empty').max(32 * 1024 * 1024),
    /** overwrite an uploaded file of the same name (the studio asks first); otherwise 409 file_exists */
    replace: z.boolean().optional(),
  })
  .strict();
export type UploadStudyFileBody = z.infer<typeof UploadStudyFileBody>;

/** Rewrites the definition's `sources:` from the uploaded files: one metaset source per caption file. */
export const UseUploadedSourcesBody = z.object({ audioRoot: z.string().min(1).max(4096) }).strict();

export const StudyFiles = z.object({ captions: z.array(z.string()), judges: z.array(z.string()) });

export const ListenerLinks = z.object({
  /** Plain link; parameters the study records are read from its query string. */
  plain: z.string(),
  /** Prolific study URL with its {{%PROLIFIC_PID%}}-style placeholders. */
  prolific: z.string(),
  /** MTurk ExternalQuestion URL (MTurk appends workerId, assignmentId, hitId itself). */
  mturk: z.string(),
  /** Link parameters the study records; placeholders for others are left out. */
  recorded: z.array(z.string()),
});
export type ListenerLinks = z.infer<typeof ListenerLinks>;

const KindCounts = z.object({ pair: z.number().int(), attention: z.number().int(), practice: z.number().int() });

export const StudyDetail = StudioStudy.extend({
  /** Whether the study has a folder under the data dir the studio can edit (else: read-only). */
  editable: z.boolean(),
  /** Whether it has been built (rows in the database). */
  built: z.boolean(),
  yaml: z.string(),
  files: StudyFiles,
  itemsByKind: KindCounts,
  links: ListenerLinks,
  /** the latest studio change to the folder that Undo takes back (upload, sources, save) */
  undo: z.object({ description: z.string(), at: z.string() }).nullable(),
});
export type StudyDetail = z.infer<typeof StudyDetail>;

const SamplerBucket = z.object({
  from: z.number().nullable(),
  to: z.number().nullable(),
  available: z.number(),
  target: z.number(),
  chosen: z.number(),
});

export const BuildReport = z.object({
  study: StudyId,
  /** validate: nothing written to the study; build: what happened to it. */
  action: z.enum(['validated', 'created', 'rebuilt', 'definition updated', 'unchanged']),
  status: StudyStatus.nullable(),
  items: KindCounts,
  sampler: z
    .object({
      candidates: z.number(),
      unscored: z.number(),
      /** Candidate pairs left out because both captions read the same. */
      identical: z.number(),
      perSystem: z.record(z.string(), z.number()),
      buckets: z.array(SamplerBucket),
      utterancesUsed: z.number(),
    })
    .nullable(),
  /** One summary per source import run into the manifest (validate: what the dry run read). */
  sources: z.array(z.object({ kind: z.string(), summary: z.string() })),
  /** Warnings that did not stop it, e.g. "12 plans skipped: clip not in the manifest". */
  notes: z.array(z.string()).default([]),
});
export type BuildReport = z.infer<typeof BuildReport>;

/** Every trial of a study, each exactly as a listener receives it, with what the researcher may know. */
export const TrialPreviewList = z.object({
  /** What the trial screen needs besides the trial: the study's listening requirement and question. */
  listening: ListeningRequirement,
  question: z.string(),
  trials: z.array(
    z.object({
      seq: z.number().int(),
      kind: z.enum(['pair', 'attention', 'practice']),
      systems: z.tuple([z.string(), z.string()]),
      expected: z.enum(['a', 'b']).nullable(),
      trial: Trial,
    }),
  ),
});
export type TrialPreviewList = z.infer<typeof TrialPreviewList>;

export const StudyAction = z.enum(['open', 'pause', 'close']);

/** Live figures of a running study, computed from the database by analysis/ on each request. */
export const Dashboard = z.object({
  study: StudyId,
  status: StudyStatus,
  generatedAt: z.string(),
  targetListeners: z.number().int(),
  listeners: z.object({
    started: z.number().int(),
    completed: z.number().int(),
    inProgress: z.number().int(),
    /** listeners with at least one vote: the ones the analysis sees */
    voted: z.number().int(),
    retained: z.number().int(),
    excluded: z.number().int(),
    excludedByReason: z.record(z.string(), z.number().int()),
    /** per rule, listeners for whom its check could not run (reported, neither pass nor fail) */
    notRunByReason: z.record(z.string(), z.number().int()),
    /** the rules in force, e.g. attention ≥ 75% */
    rules: z.array(z.object({ reason: z.string(), description: z.string() })),
  }),
  /** Minutes from session start to the last vote, one entry per completed listener (sorted). */
  completionMinutes: z.array(z.number()),
  votes: z.object({
    total: z.number().int(),
    /** per item (practice included), in study order */
    perItem: z.array(z.object({ seq: z.number().int(), kind: z.enum(['pair', 'attention', 'practice']), votes: z.number().int() })),
  }),
  attention: z.object({
    answered: z.number().int(),
    correct: z.number().int(),
    /** correct attention answers / all attention answers, over all listeners (the report's attention_pass_rate) */
    passRate: z.number().nullable(),
  }),
  screening: z.object({ kind: z.string(), passed: z.number().int(), failed: z.number().int(), notRun: z.number().int() }),
  reliability: z.object({
    items: z.number().int(),
    votes: z.number().int(),
    krippendorffAlpha: z.number().nullable(),
    fleissKappa: z.number().nullable(),
    brennanPredigerKappa: z.number().nullable(),
    meanPairwiseAgreement: z.number().nullable(),
    /** the a/b labelling α and Fleiss' κ are computed on */
    coding: z.string(),
  }),
  judges: z.array(
    z.object({
      judge: z.string(),
      items: z.number().int(),
      agreement: z.number().nullable(),
      ci95: z.tuple([z.number(), z.number()]).nullable(),
      cohenKappa: z.number().nullable(),
    }),
  ),
});
export type Dashboard = z.infer<typeof Dashboard>;

/**
 * One row of the studio's per-listener table: who the listener is on the recruiting platform,
 * how far they got, and the analysis' verdict. `excludedFor` comes from the live report's
 * exclusion list (analysis/report.ts), never from rules of the studio's own.
 */
export const ParticipantRow = z.object({
  listener: z.string(),
  /** PROLIFIC_PID, else MTurk's workerId, else null (a plain link) */
  participant: z.string().nullable(),
  /** every recorded link parameter */
  external: z.record(z.string(), z.string()),
  startedAt: z.string(),
  completedAt: z.string().nullable(),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  attention: z.object({ correct: z.number().int(), answered: z.number().int() }).nullable(),
  screening: z.enum(['passed', 'failed']).nullable(),
  /** exclusion reasons, the first being the one the report counts it under */
  excludedFor: z.array(z.string()),
  /** the completion code this listener was shown; null until they finished */
  completionCode: z.string().nullable(),
  decision: z.enum(['APPROVE', 'REJECT']),
  reason: z.string(),
});
export type ParticipantRow = z.infer<typeof ParticipantRow>;
export const ParticipantTable = z.object({ study: StudyId, participants: z.array(ParticipantRow) });
export type ParticipantTable = z.infer<typeof ParticipantTable>;

export const ReportLink = z.object({ url: z.string(), expiresAt: z.string() });
export type ReportLink = z.infer<typeof ReportLink>;

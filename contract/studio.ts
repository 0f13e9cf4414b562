/**
 * The researcher studio's API (Authorization: the studio's sign-in cookie or a Bearer access token):
 * define, build, preview and run a study without shell access.
 */
import { z } from 'zod';
import { ITEM_KINDS, STAFF_ROLES } from './constants';
import { ApiError, StudyId, StudyStatus } from './common';
import { ListeningRequirement } from './study-definition';
import { Trial, TrialSettings } from './listener';

export const StudioStudy = z.object({
  id: StudyId,
  title: z.string(),
  status: StudyStatus,
  /** scored items (the study's trial kind), attention checks and practice not counted, as `npm run study -- validate` counts them */
  items: z.number().int().nonnegative(),
  listeners: z.number().int().nonnegative(),
  completed: z.number().int().nonnegative(),
  votes: z.number().int().nonnegative(),
  /** false for a study folder not built yet (a draft written in the studio or by hand) */
  built: z.boolean(),
});
export type StudioStudy = z.infer<typeof StudioStudy>;

export const StudioStudyList = z.object({
  studies: z.array(StudioStudy),
  /** The corpus roots in force: the only folders a study's sources and audioRoot may name (studies/README.md#corpus-roots). */
  roots: z.array(z.string()),
});

/** POST /api/studio/session: exchanges an access token for the studio's HttpOnly sign-in cookie. */
export const StaffSignInBody = z.object({ token: z.string().min(1).max(512) }).strict();
export const StaffSession = z.object({ role: z.enum(STAFF_ROLES) });
export type StaffSession = z.infer<typeof StaffSession>;

/** DELETE /api/studio/session: signed out (the cookie cleared), no body. */
export const SignedOut = z.null().meta({ description: 'Signed out: the studio cookie is cleared; no body' });

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

export const SaveDefinitionBody = z
  .object({
    yaml: YamlText,
    /** Why the analysis plan changes after the first vote (needed when the study records plan changes). */
    reason: z.string().trim().min(1).max(2000).optional(),
  })
  .strict();
export const CloneStudyBody = z.object({ name: StudyId }).strict();

export const StudyTemplate = z.object({ id: z.string(), title: z.string(), yaml: z.string() });
export const StudyTemplateList = z.object({ templates: z.array(StudyTemplate) });
export type StudyTemplate = z.infer<typeof StudyTemplate>;

/** captions: MetaSet caption files (.json); judges: judge outputs (.json, .csv); plans: VoxReason cases (.jsonl). */
export const StudyFileKind = z.enum(['captions', 'judges', 'plans']);
export type StudyFileKind = z.infer<typeof StudyFileKind>;
/** A file name kept as uploaded (judge files say <system>__<judge>__<run>.json), without any path. */
export const StudyFileName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\.(json|csv|jsonl)$/, 'a file name of letters, digits, . _ - ending in .json, .csv or .jsonl');

/** An uploaded audio folder's name under the study's audio/ folder. */
export const AudioFolderName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a folder name of letters, digits, . _ -');
/** The most audio one upload may bring, decoded from base64 (a corpus subset; a whole corpus belongs in EARMARK_CORPORA). */
export const AUDIO_UPLOAD_BYTES = 200 * 1024 * 1024;
const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64').max(Math.ceil(AUDIO_UPLOAD_BYTES / 3) * 4 + 4);

/**
 * An audio folder for the study: a zip, or the files of a folder with their paths inside it
 * (`Actor_01/03-01-05-02-01-01-01.wav`). WAV and FLAC are decoded and checked; `.txt` files (VCTK's
 * speaker-info.txt and transcripts) are kept; nothing is written when any file is refused.
 */
export const UploadAudioBody = z
  .object({
    folder: AudioFolderName,
    zip: Base64.optional(),
    files: z.array(z.object({ path: z.string().min(1).max(1024), content: Base64 }).strict()).max(20_000).optional(),
    replace: z.boolean().optional(),
  })
  .strict()
  .refine((b) => (b.zip === undefined) !== (b.files === undefined), 'give a zip or files, not both');
export type UploadAudioBody = z.infer<typeof UploadAudioBody>;

/** An uploaded audio folder: its clips, and the corpus layout it was recognised as (null: plain audio for a caption file's audioRoot). */
export const AudioFolder = z.object({ name: z.string(), clips: z.number().int(), corpus: z.enum(['ravdess', 'vctk']).nullable() });
export type AudioFolder = z.infer<typeof AudioFolder>;

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
export const UseUploadedSourcesBody = z.object({ audioRoot: z.string().min(1).max(4096).optional() }).strict();

export const StudyFiles = z.object({ captions: z.array(z.string()), judges: z.array(z.string()), plans: z.array(z.string()), audio: z.array(AudioFolder) });
export type StudyFiles = z.infer<typeof StudyFiles>;

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

/** Items per kind (contract/constants ITEM_KINDS); a study has ordinary items of one trial kind only. */
const KindCounts = z.object(Object.fromEntries(ITEM_KINDS.map((k) => [k, z.number().int()])) as Record<(typeof ITEM_KINDS)[number], z.ZodNumber>);

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
  /** the analysis plan frozen when the study opened (docs/analysis-plan.md) with its recorded changes; null: not frozen */
  plan: z
    .object({
      hash: z.string(),
      frozenAt: z.string(),
      changes: z.array(z.object({ at: z.string(), reason: z.string(), fromHash: z.string(), toHash: z.string(), changed: z.array(z.string()) })),
    })
    .nullable(),
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
  /** The copies listeners hear (build only; validate makes none). */
  audio: z
    .object({
      clips: z.number().int(),
      made: z.number().int(),
      /** The level they are served at, with unit and measure: "-26 dBov active speech level (ITU-T P.56 method B)". */
      level: z.string(),
      /** The unit of every level below: dBov, LUFS or dBFS. */
      unit: z.string(),
      dither: z.boolean(),
      /** Each clip the -1 dBFS peak ceiling held below the target, by name, with its level as served. */
      peakLimited: z.array(z.object({ clip: z.string(), level: z.number().nullable(), gainDb: z.number() })),
    })
    .nullable()
    .default(null),
});
export type BuildReport = z.infer<typeof BuildReport>;

/** Every trial of a study, each exactly as a listener receives it, with what the researcher may know. */
export const TrialPreviewList = z.object({
  /** What the trial screen needs besides the trial: the study's listening requirement and question. */
  listening: ListeningRequirement,
  question: z.string(),
  /** The study's `trial:` settings, as StudyIntro carries them (a rating trial shows the study's scale). */
  trial: TrialSettings,
  trials: z.array(
    z.object({
      seq: z.number().int(),
      kind: z.enum(ITEM_KINDS),
      /** the item's systems: a pair's a and b, a rating's rated system */
      systems: z.array(z.string()).min(1),
      /** an attention or practice item's intended answer: a pair's caption (a|b), a rating's score ('1'..'7') */
      expected: z.string().nullable(),
      trial: Trial,
    }),
  ),
});
export type TrialPreviewList = z.infer<typeof TrialPreviewList>;

export const StudyAction = z.enum(['open', 'pause', 'close']);

/**
 * POST /api/studio/studies/:study/plan: the planner (docs/planner.md) in the studio, before the study
 * opens. The pilot is a study on this server (often a closed pilot run of the same material); its votes
 * so far are fitted and simulated exactly as `npm run plan -- <its export> --target …` does.
 */
export const PlanStudyBody = z
  .object({
    pilot: StudyId,
    target: z
      .string()
      .max(40)
      .regex(/^\s*(bt-ci|mos-ci)\s*=\s*[0-9.]+\s*$/, 'bt-ci=<half-width> (pair and A/B studies) or mos-ci=<half-width> (rating studies), e.g. bt-ci=0.3'),
    /** items (pairs or ratings) per listener in the planned study; the pilot's mean when left out */
    itemsPerListener: z.number().int().min(1).max(1000).optional(),
  })
  .strict();
export type PlanStudyBody = z.infer<typeof PlanStudyBody>;

export const StudyPlan = z.object({
  study: StudyId,
  pilot: StudyId,
  target: z.object({ statistic: z.enum(['bt-ci', 'mos-ci']), width: z.number() }),
  listeners: z.number().int(),
  /** listeners × items per listener, attention checks not counted */
  votes: z.number().int(),
  itemsPerListener: z.number().int(),
  checksPerListener: z.number().int(),
  predictedWidth: z.number(),
  /** the standard deviation of the width across the simulated studies of the predicted size */
  widthSpread: z.number(),
  /** which report interval's half-width is predicted */
  interval: z.string(),
  /** what was fitted from the pilot */
  model: z.object({
    systems: z.number().int(),
    careless: z.number(),
    positionBias: z.number().nullable(),
    listenerBias: z.number().nullable(),
    residual: z.number().nullable(),
  }),
});
export type StudyPlan = z.infer<typeof StudyPlan>;

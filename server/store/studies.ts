import { z } from 'zod';
import type { Db } from '../../db/open';
import { DEFAULT_REJECTION_GROUNDS, Language, ListeningRequirement, REJECTION_GROUNDS, Screening } from '../../contract/study-definition';
import { TrialSettings, type StudyIntro } from '../../contract/listener';
import { listenerTrialSettings } from '../../contract/trials';
import { Questions } from '../../contract/questionnaire';

export type { StudyStatus } from '../../contract/constants';
import type { StudyStatus } from '../../contract/constants';

/**
 * The part of a stored study definition (studies.definition JSON) the server reads. The full
 * definition belongs to studies/; unknown keys are kept there and ignored here, so this is
 * the single place to adapt if that schema names something differently.
 */
const ServedDefinition = z.object({
  language: Language.default('en'),
  consent: z.string().default(''),
  instructions: z.string().default(''),
  question: z.string().default('Which caption better describes how the speech is delivered?'),
  listening: ListeningRequirement.default({ mode: 'whole' }),
  trial: TrialSettings.default({ kind: 'pair' }),
  screening: z.object({ kind: Screening, required: z.boolean() }).default({ kind: 'none', required: false }),
  linkParameters: z.array(z.string()).default([]),
  design: z.object({ kind: z.string().optional(), itemsPerListener: z.number().int().positive().optional(), ratingsPerItem: z.number().int().positive().optional() }).default({}),
  breakEvery: z.number().int().positive().optional(),
  comments: z.boolean().default(false),
  /** what the approvals file may turn into REJECT; a definition stored before the setting gets the default */
  approvals: z.object({ rejectFor: z.array(z.enum(REJECTION_GROUNDS)) }).default({ rejectFor: DEFAULT_REJECTION_GROUNDS }),
  questions: Questions,
  trialComments: z.boolean().default(false),
  completion: z
    .object({
      code: z.string().nullable().default(null),
      // Only http(s) is ever handed to a listener's browser, even from a definition stored before the schema said so.
      redirectUrl: z.string().regex(/^https?:\/\//i).nullable().default(null).catch(null),
      // Stored before the setting existed: a listener stopped part-way returns the study (no finisher's code).
      whenStopped: z
        .union([z.enum(['return', 'finisher']), z.object({ code: z.string().nullable().default(null), redirectUrl: z.string().regex(/^https?:\/\//i).nullable().default(null).catch(null) })])
        .default('return')
        .catch('return'),
    })
    .default({ code: null, redirectUrl: null, whenStopped: 'return' }),
});
export type ServedDefinition = z.infer<typeof ServedDefinition>;

/** The time estimate's rule of thumb (see estimate() below): listeners often replay part of a clip. */
const TYPICAL_PLAYS = 1.5;
const PER_TRIAL_SECONDS = 8;
/** One headphone check: volume step and six rounds of three sounds. */
const SCREENING_SECONDS = 90;

export interface StudyRow {
  id: string;
  title: string;
  status: StudyStatus;
  definition: ServedDefinition;
  createdAt: string;
  updatedAt: string;
}

interface RawStudy {
  id: string;
  title: string;
  status: StudyStatus;
  definition: string;
  created_at: string;
  updated_at: string;
}

export interface StudySummary {
  id: string;
  title: string;
  status: StudyStatus;
  items: number;
  listeners: number;
  completed: number;
  votes: number;
}

export function studyRepository(db: Db) {
  const byId = db.prepare<[string], RawStudy>('SELECT * FROM studies WHERE id = ?');
  const all = db.prepare<[], StudySummary>(`
    SELECT s.id, s.title, s.status,
      -- scored items only, as validate and the build summary count them (attention checks and practice apart)
      (SELECT count(*) FROM items i WHERE i.study_id = s.id AND i.kind = i.trial_kind) AS items,
      (SELECT count(*) FROM listeners l WHERE l.study_id = s.id) AS listeners,
      (SELECT count(*) FROM listeners l WHERE l.study_id = s.id AND l.completed_at IS NOT NULL) AS completed,
      (SELECT count(*) FROM votes v JOIN listeners l ON l.id = v.listener_id WHERE l.study_id = s.id) AS votes
    FROM studies s ORDER BY s.created_at, s.id`);
  // Parsed rows by id, reused while the stored row is unchanged. The row is still read on every
  // get, so a change by any writer (studio, `npm run study`, another process) shows at once;
  // comparing the text is far cheaper than parsing and validating the definition again.
  const parsed = new Map<string, { raw: RawStudy; row: StudyRow }>();
  const sameRow = (a: RawStudy, b: RawStudy) =>
    a.definition === b.definition && a.status === b.status && a.title === b.title &&
    a.updated_at === b.updated_at && a.created_at === b.created_at;

  const toRow = (raw: RawStudy): StudyRow => ({
    id: raw.id,
    title: raw.title,
    status: raw.status,
    definition: ServedDefinition.parse(JSON.parse(raw.definition)),
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
  });

  // ordinary: the study's own trials (not attention or practice), which an incomplete design hands out in part.
  const clipsByKind = db.prepare<[string], { ordinary: 0 | 1; n: number; seconds: number }>(`
    SELECT i.kind = i.trial_kind AS ordinary, count(*) AS n,
           avg((SELECT total(c.duration) FROM (SELECT DISTINCT json_extract(e.value, '$.clip') AS clip FROM json_each(i.stimuli) e) d
                JOIN clips c ON c.id = d.clip)) AS seconds
    FROM items i WHERE i.study_id = ? GROUP BY i.kind`);

  /**
   * Trials one session holds (every practice and attention item, and all ordinary items, or
   * itemsPerListener of them in an incomplete design) and about how long they take: each clip
   * heard TYPICAL_PLAYS times at its kind's mean duration (a trial's distinct clips together), plus PER_TRIAL_SECONDS to read the
   * captions, choose and confirm, plus SCREENING_SECONDS for each headphone check. Rounded up
   * by the page to whole minutes; meant as an honest order of magnitude, not a promise.
   */
  function estimate(study: StudyRow): StudyIntro['estimate'] {
    let trials = 0;
    let seconds = 0;
    for (const k of clipsByKind.all(study.id)) {
      const n = k.ordinary ? Math.min(k.n, study.definition.design.itemsPerListener ?? k.n) : k.n;
      trials += n;
      seconds += n * (k.seconds * TYPICAL_PLAYS + PER_TRIAL_SECONDS);
    }
    const checks = { none: 0, antiphase: 1, huggins: 1, both: 2 }[study.definition.screening.kind];
    return { trials, seconds: Math.round(seconds + checks * SCREENING_SECONDS) };
  }

  return {
    get(id: string): StudyRow | undefined {
      const raw = byId.get(id);
      if (!raw) return undefined;
      const cached = parsed.get(id);
      if (cached && sameRow(cached.raw, raw)) return cached.row;
      const row = toRow(raw);
      parsed.set(id, { raw, row });
      return row;
    },
    list: (): StudySummary[] => all.all(),
    intro(study: StudyRow): StudyIntro {
      const d = study.definition;
      return {
        study: study.id,
        language: d.language,
        title: study.title,
        status: study.status,
        consentMarkdown: d.consent,
        instructionsMarkdown: d.instructions,
        questionMarkdown: d.question,
        listening: d.listening,
        trial: listenerTrialSettings(d.trial),
        screening: d.screening,
        linkParameters: d.linkParameters,
        estimate: estimate(study),
        breakEvery: d.breakEvery ?? null,
        comments: d.comments,
        questions: d.questions,
        trialComments: d.trialComments,
      };
    },
  };
}
export type StudyRepository = ReturnType<typeof studyRepository>;

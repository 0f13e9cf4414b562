/**
 * A study's questionnaire (study.yaml `questions:`): questions listeners answer before or after the
 * trials — single choice, multiple choice, a number, a short text or a Likert item — each exported
 * as a listeners.csv column named by its `id`. The same definitions validate the study file, are
 * served to listeners in the intro, and check every answer the server stores.
 */
import { z } from 'zod';

const Text = z.string().trim().min(1, 'must not be empty');
const Options = z
  .array(Text.max(200))
  .min(2, 'give at least two options')
  .max(30)
  .refine((o) => new Set(o).size === o.length, 'each option once');

const common = {
  /** The listeners.csv column: letters, digits and underscores, starting with a letter. */
  id: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'a question id is a column name like age or hearing_loss (letters, digits, _)'),
  /** Shown before the trials (`before`, the default) or after the last one (`after`). */
  when: z.enum(['before', 'after']).default('before'),
  text: Text.max(1000),
  /** A listener must answer it to go on (default: optional). */
  required: z.boolean().default(false),
};

export const Question = z.discriminatedUnion('kind', [
  z.object({ ...common, kind: z.literal('single'), options: Options }).strict(),
  z.object({ ...common, kind: z.literal('multiple'), options: Options }).strict(),
  z
    .object({ ...common, kind: z.literal('number'), min: z.number().optional(), max: z.number().optional(), integer: z.boolean().default(false) })
    .strict()
    .refine((q) => q.min === undefined || q.max === undefined || q.min <= q.max, { message: 'min must not be above max', path: ['max'] }),
  z.object({ ...common, kind: z.literal('text'), maxLength: z.number().int().min(1).max(2000).default(200) }).strict(),
  z
    .object({
      ...common,
      kind: z.literal('likert'),
      points: z.number().int().min(2).max(11).default(5),
      /** The words at the two ends, e.g. { low: Strongly disagree, high: Strongly agree }. */
      anchors: z.object({ low: Text.max(100), high: Text.max(100) }).strict(),
    })
    .strict(),
]);
export type Question = z.infer<typeof Question>;
export type QuestionInput = z.input<typeof Question>;

export const Questions = z
  .array(Question)
  .max(50)
  .default([])
  .superRefine((qs, ctx) => {
    const seen = new Set<string>();
    qs.forEach((q, i) => {
      if (seen.has(q.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `question id "${q.id}" is used twice; each names its own listeners.csv column` });
      seen.add(q.id);
    });
  });

/** One answer as sent and stored: a choice's option text, the options of a multiple choice, a number, a text. */
export const AnswerValue = z.union([z.string().max(2000), z.number(), z.array(z.string().max(200)).max(30)]);
export type AnswerValue = z.infer<typeof AnswerValue>;

/** The answer a question accepts, as zod: what the server checks before storing it. */
export function answerSchema(q: Question): z.ZodType<AnswerValue> {
  switch (q.kind) {
    case 'single':
      return z.enum(q.options as [string, ...string[]], { error: `is one of: ${q.options.join(', ')}` });
    case 'multiple':
      return z
        .array(z.enum(q.options as [string, ...string[]], { error: `each is one of: ${q.options.join(', ')}` }))
        .refine((a) => new Set(a).size === a.length, 'each option once');
    case 'number': {
      let n = z.number({ error: 'is a number' });
      if (q.integer) n = n.int('is a whole number');
      if (q.min !== undefined) n = n.min(q.min, `is at least ${q.min}`);
      if (q.max !== undefined) n = n.max(q.max, `is at most ${q.max}`);
      return n;
    }
    case 'text':
      return z.string({ error: 'is a text' }).trim().min(1, 'must not be empty').max(q.maxLength, `is at most ${q.maxLength} characters`);
    case 'likert':
      return z.number({ error: `is a point from 1 to ${q.points}` }).int().min(1, `is a point from 1 to ${q.points}`).max(q.points, `is a point from 1 to ${q.points}`);
  }
}

/** POST /api/session/answers: the answers to one part (before or after the trials), by question id. */
export const AnswersBody = z
  .object({
    when: z.enum(['before', 'after']),
    answers: z.record(z.string().max(64), AnswerValue),
  })
  .strict();
export type AnswersBody = z.infer<typeof AnswersBody>;
export const AnswersAck = z.object({ saved: z.literal(true) });

/**
 * The answers of one part checked against the study's questions of that part: every required
 * question answered, no unknown id, each value what its question accepts. Returns the problems,
 * each naming the question id, or the answers to store.
 */
export function checkAnswers(
  questions: readonly Question[],
  body: AnswersBody,
): { ok: true; answers: Record<string, AnswerValue> } | { ok: false; field: string; message: string } {
  const part = questions.filter((q) => q.when === body.when);
  for (const id of Object.keys(body.answers)) {
    if (!part.some((q) => q.id === id)) return { ok: false, field: id, message: `the study asks no question "${id}" ${body.when} the trials` };
  }
  const answers: Record<string, AnswerValue> = {};
  for (const q of part) {
    const given = body.answers[q.id];
    if (given === undefined || (Array.isArray(given) && given.length === 0 && q.required)) {
      if (q.required) return { ok: false, field: q.id, message: `question "${q.id}" must be answered` };
      continue;
    }
    const parsed = answerSchema(q).safeParse(given);
    if (!parsed.success) return { ok: false, field: q.id, message: `question "${q.id}" ${parsed.error.issues[0].message}` };
    answers[q.id] = parsed.data;
  }
  return { ok: true, answers };
}

/** An answer as one listeners.csv cell: a multiple choice's options joined by "; ". */
export function answerCell(value: AnswerValue | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join('; ') : String(value);
}

import { checkPlan } from './analysis-plan';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { z } from 'zod';
import { cellText, CSV_PARSE_OPTIONS, CsvSplitter, csvLines, NeedsFullParser, restoreText } from './csv';
import { StudySettings } from './study-settings';
import { BundleError } from './bundle-error';
import { ANALYSIS_KINDS, analysisKind } from './kinds/index';
import type { AnalysisKind, AnswerCells, ItemCells, KindAnswer, KindFact } from './kinds/types';

export { BundleError };

/**
 * The study export bundle (docs/analysis-spec.md §1): items.csv, then votes.csv, judge_scores.csv,
 * listeners.csv, study.json, ratings.csv and stimuli.csv where present (only items.csv is
 * required; an absent file means no rows of its kind). items.csv's last column `kind` says each
 * item's trial kind (§5); a bundle without it reads as before: `pair`, or `rating` where system_b
 * is empty. A kind registered in analysis/kinds (ANALYSIS_KINDS) reads its own items.csv rows and
 * its own answers file (`kind.file`) through its declaration; stimuli.csv is kept as it is read.
 * Reading streams each file through an RFC 4180 parser (csv-parse) and validates every row
 * with zod; votes are kept as typed arrays (one entry per vote), never as row objects, so a
 * million votes stay small. Errors name the file, the line and the column.
 * Records held in memory (the app's live report) go through the same row checks as the files,
 * fed with the very fields the writer would put in them (buildBundle).
 */

/** The trial kinds this analysis reads itself (items.csv `kind`, docs/analysis-spec.md §5); others are registered (analysis/kinds). */
export const ITEM_KINDS = ['pair', 'rating', 'ab'] as const;
export type BundleItemKind = (typeof ITEM_KINDS)[number];

export interface BundleItem {
  item_id: string;
  utterance_id: string;
  system_a: string;
  system_b: string;
  attention: boolean;
  /**
   * the right answer of an attention item; null for ordinary items. A rating item (system_b
   * empty, analysis-spec §4) expects the required score.
   */
  expected: 'a' | 'b' | number | null | RegisteredExpected;
  /**
   * the item's trial kind, as items.csv's `kind` says; absent when items.csv has no such column
   * (or the cell is empty): the kind is then inferred (itemKind). The writer writes the column
   * when any item carries a kind.
   */
  kind?: BundleItemKind | RegisteredKind;
}

/** A registered kind's name (analysis/kinds): any items.csv `kind` its declaration reads. */
export type RegisteredKind = string & {};
/** A registered kind's attention answer, in its own terms (a value, a side, a score). */
export type RegisteredExpected = string & {};

/** The item's kind: its own, or, for a bundle from before the `kind` column, `rating` where system_b is empty, else `pair`. */
export const itemKind = (item: Pick<BundleItem, 'system_b' | 'kind'>): BundleItemKind | RegisteredKind => item.kind ?? (item.system_b === '' ? 'rating' : 'pair');

/** A rating item has one system, the rated one, in system_a (analysis-spec §4). */
export const isRatingItem = (item: Pick<BundleItem, 'system_b' | 'kind'>): boolean => itemKind(item) === 'rating';

/** A pair or ab item: its answers are votes (votes.csv), analysed by §2–3; not a rating item nor a registered kind's. */
export const isVoteItem = (item: Pick<BundleItem, 'system_b' | 'kind'>): boolean => {
  const kind = itemKind(item);
  return kind === 'pair' || kind === 'ab';
};

/** One row of stimuli.csv: a stimulus of an item, in the slot it fills (analysis-spec §5.3, MUSHRA). */
export interface BundleStimulus {
  item_id: string;
  slot: string | number;
  role: string;
  system: string;
}

/** One row of ratings.csv: an integer score on the study's scale. */
export interface BundleRating {
  item_id: string;
  listener_id: string;
  system: string;
  utterance_id: string;
  score: number;
}

/** Ratings in columnar form, like VoteColumns: rating r is `score[r]` on item `item[r]` by `listener[r]`. */
export interface RatingColumns extends AnswerFacts {
  length: number;
  item: Int32Array;
  listener: Int32Array;
  score: Int32Array;
  /** the study's scale when the reader was given it (then every score lies on it), else null */
  scale: [number, number] | null;
}

export interface BundleVote {
  item_id: string;
  listener_id: string;
  first: 'a' | 'b';
  /** `tie` only on an ab item (no preference, when the study offers it) */
  chosen: 'a' | 'b' | 'tie';
  /** further columns the app records (timestamps, play counts…), written after the four */
  extra?: Record<string, string | number | boolean | null>;
}

export interface JudgeScore {
  utterance_id: string;
  system: string;
  judge: string;
  run: string;
  score: number;
}

/** One row of listeners.csv: a session of the study, voted or not. */
export interface BundleListener {
  listener_id: string;
  /** ISO 8601 UTC */
  started_at: string;
  completed_at: string | null;
  /** the headphone screening's outcome; null when not asked or not finished */
  screening: 'passed' | 'failed' | null;
  /** the study's link parameters (e.g. PROLIFIC_PID), then any further columns, by column name */
  more?: Record<string, string | number | null>;
}

/** Votes in columnar form: vote v is on item `item[v]` (index into items) by `listener[v]`. */
export interface VoteColumns extends AnswerFacts {
  length: number;
  item: Int32Array;
  listener: Int32Array;
  /** 1 when caption a was shown first */
  firstA: Uint8Array;
  /** 1 when caption a was chosen */
  chosenA: Uint8Array;
}

/**
 * The ties of an A/B study (votes.csv rows with chosen = tie), kept apart from VoteColumns so that
 * every statistic of the votes leaves them out by construction; they count as the listener's
 * answers (attention, the exclusion rules' facts) and in the report's `reliability.ties`.
 */
export interface TieColumns extends AnswerFacts {
  length: number;
  item: Int32Array;
  listener: Int32Array;
  /** 1 when the rendition of system a was offered first ("A") */
  firstA: Uint8Array;
}

/** Facts the exclusion rules use, one per vote (rating), present when its file has the column; NaN (−1) = empty. */
export interface AnswerFacts {
  responseMs?: Float64Array;
  heardToEnd?: Int8Array;
  secondsListened?: Float64Array;
  hiddenMs?: Float64Array;
}

export interface SkippedRows {
  count: number;
  by_reason: Record<string, number>;
}

export interface Bundle {
  items: BundleItem[];
  /** listeners who voted or rated, in order of their first vote (then of their first rating) */
  listeners: string[];
  votes: VoteColumns;
  judgeScores: JudgeScore[];
  skipped: SkippedRows;
  /** listeners.csv by listener id; null when the bundle has no listeners.csv */
  listenerTable: Map<string, BundleListener> | null;
  /** study.json; null when the bundle has none */
  study: StudySettings | null;
  /** null when the bundle has no ratings.csv (a pair study) */
  ratings: RatingColumns | null;
  /** votes.csv's ties (chosen = tie, ab items only); length 0 when there are none */
  ties: TieColumns;
  /**
   * The answers of each registered kind (analysis/kinds) by its name, in order of their first row
   * in its file: present for a kind with items in the bundle or whose file it holds.
   */
  kindAnswers: Record<string, KindAnswer<unknown>[]>;
  /** stimuli.csv's rows; null when the bundle has none */
  stimuli: BundleStimulus[] | null;
  /** The rows of each registered kind's file of item facts (`kind.facts`, e.g. metadata.csv) the bundle holds, by file name. */
  kindFacts?: Record<string, KindFact[]>;
}

export interface ReadBundleOptions {
  /** skip invalid rows (counted by reason in `skipped`) instead of refusing the bundle */
  skipInvalid?: boolean;
  /** the study's rating scale [lowest, highest]; ratings outside it are refused */
  ratingScale?: [number, number];
}


const nonEmpty = z.string().trim().min(1, 'must not be empty');
const side = z.enum(['a', 'b']);

const itemRow = z
  .object({
    item_id: nonEmpty,
    utterance_id: nonEmpty,
    system_a: nonEmpty,
    system_b: nonEmpty,
    attention: z.enum(['0', '1'], { error: 'must be 0 or 1' }),
    expected: z.enum(['a', 'b', ''], { error: 'must be a, b or empty' }),
  })
  .superRefine((r, ctx) => {
    if (r.attention === '1' && r.expected === '') {
      ctx.addIssue({ code: 'custom', path: ['expected'], message: 'an attention item needs expected = a or b' });
    }
    if (r.attention === '0' && r.expected !== '') {
      ctx.addIssue({ code: 'custom', path: ['expected'], message: 'must be empty for a non-attention item' });
    }
    if (r.system_a === r.system_b) {
      ctx.addIssue({ code: 'custom', path: ['system_b'], message: 'must differ from system_a' });
    }
  });

// A rating item (system_b empty) names only the rated system; its attention check expects a score.
const ratingItemRow = z
  .object({
    item_id: nonEmpty,
    utterance_id: nonEmpty,
    system_a: nonEmpty,
    attention: z.enum(['0', '1'], { error: 'must be 0 or 1' }),
    expected: z.string().trim().regex(/^([+-]?\d+)?$/, 'must be the required integer score of a rating attention item, or empty'),
  })
  .superRefine((r, ctx) => {
    if (r.attention === '1' && r.expected === '') {
      ctx.addIssue({ code: 'custom', path: ['expected'], message: 'a rating attention item needs expected = the required score' });
    }
    if (r.attention === '0' && r.expected !== '') {
      ctx.addIssue({ code: 'custom', path: ['expected'], message: 'must be empty for a non-attention item' });
    }
  });

/** items.csv's `kind` column: the last, after the spec's six (docs/analysis-spec.md §6). */
const KIND_COLUMN = '7 (kind)';
const SYSTEM_B_COLUMN = '4 (system_b)';

/**
 * An items.csv row. With a `kind` (the column's cell), the row must be an item of that kind: a
 * pair or ab item names two systems, a rating item one (system_b empty), with or without
 * ratings.csv. Without one (no column, or an empty cell) the row reads as before the column: a
 * pair item, or, in a bundle with ratings.csv, a rating item where system_b is empty.
 */
function parseItem(fields: Fields, at: ColumnIndex, line: number, ratings: boolean): BundleItem | BundleError {
  const kindText = at.kind === undefined ? '' : fields[at.kind].trim();
  if (kindText === '') return parseItemOfKind(fields, at, line, ratings ? null : 'pair');
  const registered = analysisKind(kindText);
  if (registered) {
    const cells = Object.fromEntries(COLUMNS['items.csv'].map((c) => [c, fields[at[c]].trim()])) as unknown as ItemCells;
    const item = registered.item(cells, line);
    return item instanceof BundleError ? item : { ...item, kind: registered.kind };
  }
  if (!(ITEM_KINDS as readonly string[]).includes(kindText)) {
    const known = [...ITEM_KINDS, ...ANALYSIS_KINDS.map((k) => k.kind)];
    return new BundleError('items.csv', line, KIND_COLUMN,
      `must be ${known.join(', ')} or empty (the kinds this analysis reads; empty = pair, or rating where system_b is empty), got "${kindText}"`, 'invalid kind');
  }
  const kind = kindText as BundleItemKind;
  const item = parseItemOfKind(fields, at, line, kind === 'rating' ? 'rating' : 'pair', kind);
  if (!(item instanceof BundleError)) item.kind = kind;
  return item;
}

/**
 * An items.csv row as a two-system item (`shape` pair: pair or ab), a rating item (`rating`), or
 * either by its system_b (null: a bundle with ratings.csv and no kind).
 */
function parseItemOfKind(fields: Fields, at: ColumnIndex, line: number, shape: 'pair' | 'rating' | null, kind?: BundleItemKind): BundleItem | BundleError {
  const systemB = fields[at.system_b].trim();
  if (shape !== 'rating') {
    const plain = plainItem(fields, at);
    if (plain) return plain;
  }
  const row = rowObject(fields, at);
  if (systemB !== '' && shape !== 'rating') {
    const r = itemRow.safeParse(row);
    if (!r.success) return zodError('items.csv', line, r.error, COLUMNS['items.csv']);
    return { ...r.data, attention: r.data.attention === '1', expected: r.data.expected === '' ? null : r.data.expected };
  }
  if (systemB !== '') {
    return new BundleError('items.csv', line, SYSTEM_B_COLUMN, `must be empty for a rating item (kind rating rates one system, system_a), got "${systemB}"`, 'invalid system_b');
  }
  if (shape === 'pair') {
    return new BundleError('items.csv', line, SYSTEM_B_COLUMN, kind
      ? `must not be empty: a ${kind} item compares two systems, system_a and system_b`
      : 'must not be empty (an empty system_b marks a rating item, and the bundle has no ratings.csv)', 'invalid system_b');
  }
  const r = ratingItemRow.safeParse(row);
  if (!r.success) return zodError('items.csv', line, r.error, COLUMNS['items.csv']);
  return { ...r.data, system_b: '', attention: r.data.attention === '1', expected: r.data.expected === '' ? null : Number(r.data.expected) };
}

const ratingRow = z.object({
  item_id: nonEmpty,
  listener_id: nonEmpty,
  system: nonEmpty,
  utterance_id: nonEmpty,
  score: z.string().trim().transform((s, ctx) => {
    if (!/^[+-]?\d+$/.test(s)) {
      ctx.addIssue({ code: 'custom', message: `must be an integer score, got "${s}"` });
      return z.NEVER;
    }
    return Number(s);
  }),
});

const voteRow = z.object({
  item_id: nonEmpty,
  listener_id: nonEmpty,
  first: side,
  chosen: z.enum(['a', 'b', 'tie'], { error: 'must be a, b or tie (tie only on an ab item)' }),
});

const scoreRow = z.object({
  utterance_id: nonEmpty,
  system: nonEmpty,
  judge: nonEmpty,
  run: nonEmpty,
  score: z
    .string()
    .trim()
    .min(1, 'must be a number')
    .transform((s, ctx) => {
      const n = Number(s);
      if (!Number.isFinite(n)) {
        ctx.addIssue({ code: 'custom', message: `must be a finite number, got "${s}"` });
        return z.NEVER;
      }
      return n;
    }),
});

// Times as the app writes them (toISOString), or with an explicit offset.
const isoTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time such as 2026-01-31T12:00:00.000Z' });
const stimulusRow = z.object({ item_id: nonEmpty, slot: nonEmpty, role: nonEmpty, system: z.string().trim() });

const listenerRow = z.object({
  listener_id: nonEmpty,
  started_at: isoTime,
  completed_at: z.union([z.literal(''), isoTime], { error: 'must be empty or an ISO 8601 time such as 2026-01-31T12:00:00.000Z' }),
  screening: z.enum(['passed', 'failed', ''], { error: 'must be passed, failed or empty' }),
});

/*
 * A million rows through zod cost more than reading them, so items, votes and judge scores are
 * checked first by hand: a row these accept is exactly what itemRow / voteRow / scoreRow would
 * make of it (ids trimmed and not empty, sides a or b, a finite score); any other row goes through
 * the schema, which gives its refusal.
 */
function plainVote(fields: Fields, at: ColumnIndex): z.output<typeof voteRow> | null {
  const first = fields[at.first];
  const chosen = fields[at.chosen];
  const item_id = fields[at.item_id].trim();
  const listener_id = fields[at.listener_id].trim();
  if (item_id === '' || listener_id === '' || (first !== 'a' && first !== 'b') || (chosen !== 'a' && chosen !== 'b' && chosen !== 'tie')) return null;
  return { item_id, listener_id, first, chosen };
}

/** A pair item exactly as itemRow would make it (ids trimmed, not empty; two systems; attention and expected agreeing), else null. */
function plainItem(fields: Fields, at: ColumnIndex): BundleItem | null {
  const attention = fields[at.attention];
  const expected = fields[at.expected];
  const item_id = fields[at.item_id].trim();
  const utterance_id = fields[at.utterance_id].trim();
  const system_a = fields[at.system_a].trim();
  const system_b = fields[at.system_b].trim();
  if (item_id === '' || utterance_id === '' || system_a === '' || system_b === '' || system_a === system_b) return null;
  if (attention === '0' && expected === '') return { item_id, utterance_id, system_a, system_b, attention: false, expected: null };
  if (attention === '1' && (expected === 'a' || expected === 'b')) return { item_id, utterance_id, system_a, system_b, attention: true, expected };
  return null;
}

function plainScore(fields: Fields, at: ColumnIndex): JudgeScore | null {
  const scoreText = fields[at.score].trim();
  const value = Number(scoreText);
  const out = { utterance_id: fields[at.utterance_id].trim(), system: fields[at.system].trim(), judge: fields[at.judge].trim(), run: fields[at.run].trim(), score: value };
  if (out.utterance_id === '' || out.system === '' || out.judge === '' || out.run === '' || scoreText === '' || !Number.isFinite(value)) return null;
  return out;
}

const COLUMNS = {
  'items.csv': ['item_id', 'utterance_id', 'system_a', 'system_b', 'attention', 'expected'],
  'votes.csv': ['item_id', 'listener_id', 'first', 'chosen'],
  'judge_scores.csv': ['utterance_id', 'system', 'judge', 'run', 'score'],
  'listeners.csv': ['listener_id', 'started_at', 'completed_at', 'screening'],
  'ratings.csv': ['item_id', 'listener_id', 'system', 'utterance_id', 'score'],
} as const;
type BundleFile = keyof typeof COLUMNS;
/** stimuli.csv (docs/analysis-spec.md §5.3): each item's stimuli, for the kinds that need them. */
const STIMULI_COLUMNS = ['item_id', 'slot', 'role', 'system'] as const;
/** A registered kind's answers file (`kind.file`). */
type KindFile = `${string}.csv`;
type WrittenFile = BundleFile | 'stimuli.csv' | KindFile;

/** A column's name as refusals give it: its place among the file's required columns and its name. */
const columnName = (columns: readonly string[], column: string): string => `${columns.indexOf(column) + 1} (${column})`;

/** The further votes.csv (and ratings.csv) columns the exclusion rules read, when present (spec §2). */
const VOTE_FACTS = ['response_ms', 'heard_to_end', 'seconds_listened', 'hidden_ms'] as const;
type VoteFact = (typeof VOTE_FACTS)[number];
type VoteFacts = Partial<Record<VoteFact, number>>;

/**
 * A fact column's value: empty = unknown (NaN, or −1 for heard_to_end); otherwise a number ≥ 0 (0/1 for heard_to_end).
 * `columns`: the fact columns the file has (every row of a file has the same ones).
 */
function parseFacts(file: 'votes.csv' | 'ratings.csv', fields: Fields, at: ColumnIndex, line: number, columns: readonly VoteFact[]): VoteFacts | BundleError {
  const facts: VoteFacts = {};
  for (const column of columns) {
    const text = fields[at[column]];
    const t = text.trim();
    const value = t === '' ? (column === 'heard_to_end' ? -1 : NaN) : Number(t);
    const ok = t === '' || (column === 'heard_to_end' ? t === '0' || t === '1' : Number.isFinite(value) && value >= 0);
    if (!ok) {
      const expected = column === 'heard_to_end' ? '0, 1 or empty' : 'a number ≥ 0 or empty';
      return new BundleError(file, line, column, `must be ${expected}, got "${text}"`, `invalid ${column}`);
    }
    facts[column] = value;
  }
  return facts;
}

/** Bits of SeenPairs before it turns into a Set: 64 MiB. */
const SEEN_BITS = 2 ** 29;

/**
 * The (listener, item) keys seen (listener · items + item): a bitset while the keys stay below
 * SEEN_BITS (500 listeners × 20,000 items take 1.2 MiB), then a Set. Adding a million numbers to
 * a Set takes longer than splitting the million lines they come from.
 */
class SeenPairs {
  private bits: Uint8Array | null = new Uint8Array(1024);
  private set: Set<number> | null = null;

  /** Adds the key; false when it was there already. */
  add(key: number): boolean {
    if (this.bits && key >= SEEN_BITS) this.toSet();
    let bits = this.bits;
    if (!bits) {
      if (this.set!.has(key)) return false;
      this.set!.add(key);
      return true;
    }
    const byte = key >> 3;
    const bit = 1 << (key & 7);
    if (byte >= bits.length) {
      const grown = new Uint8Array(Math.min(SEEN_BITS / 8, Math.max(2 * bits.length, byte + 1)));
      grown.set(bits);
      bits = this.bits = grown;
    }
    if (bits[byte] & bit) return false;
    bits[byte] |= bit;
    return true;
  }

  private toSet(): void {
    const set = new Set<number>();
    const bits = this.bits!;
    for (let byte = 0; byte < bits.length; byte++) {
      if (bits[byte]) for (let b = 0; b < 8; b++) if (bits[byte] & (1 << b)) set.add(byte * 8 + b);
    }
    this.set = set;
    this.bits = null;
  }
}

/**
 * Collects validated records into a Bundle. Shared by the CSV reader and by callers that
 * already hold records (the server's live report), so both refuse the same bad input.
 */
export class BundleBuilder {
  private readonly items: BundleItem[] = [];
  private readonly itemIndex = new Map<string, number>();
  private readonly listenerIndex = new Map<string, number>();
  private readonly listeners: string[] = [];
  private readonly judgeScores: JudgeScore[] = [];
  private readonly seen = new SeenPairs();
  private votes: VoteColumns = emptyVotes(1024);
  private readonly facts: FactLists = {};
  private ties: TieColumns = emptyTies(0);
  private readonly tieFacts: FactLists = {};
  private readonly ratingFacts: FactLists = {};
  private listenerTable: Map<string, BundleListener> | null = null;
  private study: StudySettings | null = null;
  private readonly skipped: SkippedRows = { count: 0, by_reason: {} };
  private ratings: RatingColumns | null = null;
  private readonly kindFacts: Record<string, KindFact[]> = {};
  private readonly kindAnswers = new Map<string, { answers: KindAnswer<unknown>[]; byKey: Map<number, { answer: KindAnswer<unknown>; parts: Set<string> }> }>();
  private stimuli: BundleStimulus[] | null = null;
  private readonly stimulusSlots = new Map<string, Set<string>>();

  constructor(
    private readonly skipInvalid = false,
    private readonly ratingScale: [number, number] | null = null,
  ) {}

  /** Refuses the row (throws) or, with skipInvalid, counts it; returns false when skipped. */
  reject(error: BundleError): false {
    if (!this.skipInvalid) throw error;
    this.skipped.count++;
    const key = `${error.file}: ${error.reason}`;
    this.skipped.by_reason[key] = (this.skipped.by_reason[key] ?? 0) + 1;
    return false;
  }

  addItem(item: BundleItem, line = 0): boolean {
    if (this.itemIndex.has(item.item_id)) {
      return this.reject(new BundleError('items.csv', line, 'item_id', `duplicate item_id "${item.item_id}"`, 'duplicate item_id'));
    }
    const scale = this.ratingScale;
    if (scale && isRatingItem(item) && typeof item.expected === 'number' && (item.expected < scale[0] || item.expected > scale[1])) {
      return this.reject(new BundleError('items.csv', line, `${COLUMNS['items.csv'].indexOf('expected') + 1} (expected)`,
        `the required score ${item.expected} is outside the study's scale ${scale[0]}–${scale[1]}`, 'expected score outside the scale'));
    }
    this.itemIndex.set(item.item_id, this.items.length);
    this.items.push(item);
    // A rating item that says its kind is a rating study's even before ratings.csv exists: no file = no ratings yet.
    if (item.kind === 'rating') this.expectRatings();
    // Likewise a registered kind's items: no answers file = no answers yet.
    const registered = analysisKind(item.kind);
    if (registered) this.expectKind(registered);
    return true;
  }

  /** The bundle has answers of this kind (its file exists, or it has items of the kind). */
  expectKind(kind: AnalysisKind<unknown, unknown>): void {
    if (!this.kindAnswers.has(kind.kind)) this.kindAnswers.set(kind.kind, { answers: [], byKey: new Map() });
  }

  /**
   * A row of a registered kind's answers file (`cells`: its columns, trimmed): its item must be
   * one of the kind's; the kind reads the row; rows of one listener on one item make one answer,
   * and two of them with the same part are a duplicate.
   */
  addKindRow(kind: AnalysisKind<unknown, unknown>, cells: AnswerCells, line = 0): boolean {
    const refuse = (column: string, problem: string, reason: string) => this.reject(new BundleError(kind.file, line, columnName(kind.columns, column), problem, reason));
    const item = this.itemIndex.get(cells.item_id);
    if (item === undefined) return refuse('item_id', `unknown item_id "${cells.item_id}" (not in items.csv)`, 'unknown item_id');
    const known = this.items[item];
    if (known.kind !== kind.kind) {
      return refuse('item_id', `item "${cells.item_id}" is a ${itemKind(known)} item (items.csv): only ${kind.kind} items' answers belong in ${kind.file}`, `answer on a non-${kind.kind} item`);
    }
    if (!cells.listener_id) return refuse('listener_id', 'must not be empty', 'invalid listener_id');
    const row = kind.row(cells, known, line);
    if (row instanceof BundleError) return this.reject(row);
    const listener = this.listenerOf(cells.listener_id);
    this.expectKind(kind);
    const answers = this.kindAnswers.get(kind.kind)!;
    const key = listener * this.items.length + item;
    let answer = answers.byKey.get(key);
    if (!answer) {
      answer = { answer: { item, listener, rows: [], line }, parts: new Set() };
      answers.byKey.set(key, answer);
      answers.answers.push(answer.answer);
    }
    const part = kind.part(row);
    if (answer.parts.has(part)) {
      return refuse('listener_id', `duplicate answer: listener "${cells.listener_id}" already answered${part === '' ? '' : ` "${part}"`} on item "${cells.item_id}" (line ${answer.answer.line})`, `duplicate (item, listener${part === '' ? '' : ', part'}) answer`);
    }
    answer.parts.add(part);
    answer.answer.rows.push(row);
    return true;
  }

  /** A row of a kind's file of item facts (`kind.facts`): its item must be one of the kind's. */
  addKindFact(kind: AnalysisKind<unknown, unknown>, file: string, columns: readonly string[], cells: AnswerCells, line = 0): boolean {
    const item = this.itemIndex.get(cells.item_id);
    const refuse = (problem: string, reason: string) => this.reject(new BundleError(file, line, columnName(columns, 'item_id'), problem, reason));
    if (item === undefined) return refuse(`unknown item_id "${cells.item_id}" (not in items.csv)`, 'unknown item_id');
    if (this.items[item].kind !== kind.kind) return refuse(`item "${cells.item_id}" is a ${itemKind(this.items[item])} item (items.csv): ${file} describes ${kind.kind} items`, `fact on a non-${kind.kind} item`);
    (this.kindFacts[file] ??= []).push({ item, cells, line });
    return true;
  }

  /** The kind's file of item facts exists, even if it lists nothing. */
  hasKindFacts(file: string): void {
    this.kindFacts[file] ??= [];
  }

  /** A row of stimuli.csv: a stimulus of a known item, each slot of an item once. */
  addStimulus(stimulus: BundleStimulus, line = 0): boolean {
    const refuse = (column: string, problem: string, reason: string) => this.reject(new BundleError('stimuli.csv', line, columnName(STIMULI_COLUMNS, column), problem, reason));
    if (!this.itemIndex.has(stimulus.item_id)) return refuse('item_id', `unknown item_id "${stimulus.item_id}" (not in items.csv)`, 'unknown item_id');
    const slots = this.stimulusSlots.get(stimulus.item_id) ?? new Set<string>();
    this.stimulusSlots.set(stimulus.item_id, slots);
    if (slots.has(String(stimulus.slot))) return refuse('slot', `duplicate slot "${stimulus.slot}" of item "${stimulus.item_id}"`, 'duplicate (item, slot) stimulus');
    slots.add(String(stimulus.slot));
    (this.stimuli ??= []).push(stimulus);
    return true;
  }

  /** stimuli.csv exists, even if it lists nothing. */
  hasStimuli(): void {
    this.stimuli ??= [];
  }

  /** The listener's index, in order of their first vote or rating. */
  private listenerOf(id: string): number {
    let listener = this.listenerIndex.get(id);
    if (listener === undefined) {
      listener = this.listeners.length;
      this.listenerIndex.set(id, listener);
      this.listeners.push(id);
    }
    return listener;
  }

  addVote(vote: Pick<BundleVote, 'item_id' | 'listener_id' | 'first' | 'chosen'>, line = 0, facts: VoteFacts = {}): boolean {
    const item = this.itemIndex.get(vote.item_id);
    if (item === undefined) {
      return this.reject(new BundleError('votes.csv', line, 'item_id', `unknown item_id "${vote.item_id}" (not in items.csv)`, 'unknown item_id'));
    }
    if (isRatingItem(this.items[item])) {
      return this.reject(new BundleError('votes.csv', line, 'item_id', `item "${vote.item_id}" is a rating item (system_b empty in items.csv): its answers belong in ratings.csv`, 'vote on a rating item'));
    }
    const registered = analysisKind(this.items[item].kind);
    if (registered) {
      return this.reject(new BundleError('votes.csv', line, 'item_id', `item "${vote.item_id}" is a ${registered.kind} item (items.csv): its answers belong in ${registered.file}`, `vote on a ${registered.kind} item`));
    }
    const tie = vote.chosen === 'tie';
    if (tie && itemKind(this.items[item]) !== 'ab') {
      return this.reject(new BundleError('votes.csv', line, '4 (chosen)',
        `tie is an answer only on an ab item; item "${vote.item_id}" is a ${itemKind(this.items[item])} item (items.csv): must be a or b`, 'tie on a non-ab item'));
    }
    const listener = this.listenerOf(vote.listener_id);
    // One exact integer per (item, listener); items are all known before the first vote.
    const key = listener * this.items.length + item;
    if (!this.seen.add(key)) {
      return this.reject(new BundleError('votes.csv', line, 'listener_id', `duplicate vote: listener "${vote.listener_id}" already voted on item "${vote.item_id}"`, 'duplicate (item, listener) vote'));
    }
    if (tie) {
      let t = this.ties;
      if (t.length === t.item.length) t = this.ties = growTies(t);
      t.item[t.length] = item;
      t.listener[t.length] = listener;
      t.firstA[t.length] = vote.first === 'a' ? 1 : 0;
      pushFacts(this.tieFacts, t.length, facts);
      t.length++;
      return true;
    }
    const v = this.votes;
    if (v.length === v.item.length) this.votes = grow(v);
    const w = this.votes;
    w.item[w.length] = item;
    w.listener[w.length] = listener;
    w.firstA[w.length] = vote.first === 'a' ? 1 : 0;
    w.chosenA[w.length] = vote.chosen === 'a' ? 1 : 0;
    pushFacts(this.facts, w.length, facts);
    w.length++;
    return true;
  }

  addListener(listener: BundleListener, line = 0): boolean {
    const table = (this.listenerTable ??= new Map());
    if (table.has(listener.listener_id)) {
      return this.reject(new BundleError('listeners.csv', line, 'listener_id', `duplicate listener_id "${listener.listener_id}"`, 'duplicate listener_id'));
    }
    table.set(listener.listener_id, listener);
    return true;
  }

  /** listeners.csv exists, even if it lists nobody. */
  hasListeners(): void {
    this.listenerTable ??= new Map();
  }

  setStudy(study: StudySettings): void {
    this.study = study;
  }

  addJudgeScore(score: JudgeScore): void {
    // A row usually repeats the previous row's utterance, system, judge or run: it then keeps the
    // previous row's string, so the bundle holds one copy of a repeated name, not one per row.
    const last = this.judgeScores.at(-1);
    if (last) {
      if (score.utterance_id === last.utterance_id) score.utterance_id = last.utterance_id;
      if (score.system === last.system) score.system = last.system;
      if (score.judge === last.judge) score.judge = last.judge;
      if (score.run === last.run) score.run = last.run;
    }
    this.judgeScores.push(score);
  }

  /** Marks the bundle as having ratings (ratings.csv exists, even if it holds only its header). */
  expectRatings(): void {
    this.ratings ??= { length: 0, item: new Int32Array(1024), listener: new Int32Array(1024), score: new Int32Array(1024), scale: this.ratingScale };
  }

  get hasRatings(): boolean {
    return this.ratings !== null;
  }

  addRating(rating: BundleRating, line = 0, facts: VoteFacts = {}): boolean {
    const refuse = (column: keyof BundleRating, problem: string, reason: string) => this.reject(new BundleError(
      'ratings.csv', line, `${COLUMNS['ratings.csv'].indexOf(column) + 1} (${column})`, problem, reason));
    const item = this.itemIndex.get(rating.item_id);
    if (item === undefined) return refuse('item_id', `unknown item_id "${rating.item_id}" (not in items.csv)`, 'unknown item_id');
    const known = this.items[item];
    if (!isRatingItem(known)) {
      const registered = analysisKind(known.kind);
      if (registered) return refuse('item_id', `item "${rating.item_id}" is a ${registered.kind} item (items.csv): its answers belong in ${registered.file}`, `rating on a ${registered.kind} item`);
      return refuse('item_id', `item "${rating.item_id}" is a pair item (system_b "${known.system_b}" in items.csv): its answers belong in votes.csv`, 'rating on a pair item');
    }
    if (rating.system !== known.system_a) {
      return refuse('system', `must be the rated system of item "${rating.item_id}" ("${known.system_a}", system_a in items.csv), got "${rating.system}"`, 'system differs from items.csv');
    }
    if (rating.utterance_id !== known.utterance_id) {
      return refuse('utterance_id', `must be the utterance of item "${rating.item_id}" ("${known.utterance_id}" in items.csv), got "${rating.utterance_id}"`, 'utterance_id differs from items.csv');
    }
    const scale = this.ratingScale;
    if (scale && (rating.score < scale[0] || rating.score > scale[1])) {
      return refuse('score', `${rating.score} is outside the study's scale ${scale[0]}–${scale[1]}`, 'score outside the scale');
    }
    const listener = this.listenerOf(rating.listener_id);
    // Votes and ratings never share an item, so one set of (listener, item) keys serves both.
    const key = listener * this.items.length + item;
    if (!this.seen.add(key)) {
      return refuse('listener_id', `duplicate rating: listener "${rating.listener_id}" already rated item "${rating.item_id}"`, 'duplicate (item, listener) rating');
    }
    this.expectRatings();
    let r = this.ratings!;
    if (r.length === r.item.length) {
      const capacity = 2 * r.item.length;
      const grown = { ...r, item: new Int32Array(capacity), listener: new Int32Array(capacity), score: new Int32Array(capacity) };
      grown.item.set(r.item);
      grown.listener.set(r.listener);
      grown.score.set(r.score);
      r = this.ratings = grown;
    }
    r.item[r.length] = item;
    r.listener[r.length] = listener;
    r.score[r.length] = rating.score;
    pushFacts(this.ratingFacts, r.length, facts);
    r.length++;
    return true;
  }

  build(): Bundle {
    const votes: VoteColumns = { ...this.votes, ...factArrays(this.facts, this.votes.length) };
    const ratings = this.ratings && { ...this.ratings, ...factArrays(this.ratingFacts, this.ratings.length) };
    const ties: TieColumns = { ...this.ties, ...factArrays(this.tieFacts, this.ties.length) };
    return {
      items: this.items, listeners: this.listeners, votes, judgeScores: this.judgeScores, skipped: this.skipped,
      listenerTable: this.listenerTable, study: this.study, ratings, ties,
      kindAnswers: Object.fromEntries([...this.kindAnswers].map(([kind, a]) => [kind, a.answers])), stimuli: this.stimuli,
      ...(Object.keys(this.kindFacts).length > 0 && { kindFacts: this.kindFacts }),
    };
  }
}

type FactLists = Partial<Record<VoteFact, number[]>>;

/** Appends answer `n`'s facts; a column first seen at answer n is back-filled with "empty". */
function pushFacts(lists: FactLists, n: number, facts: VoteFacts): void {
  // for…in rather than Object.entries: no arrays made per answer
  for (const name in facts) {
    const column = name as VoteFact;
    (lists[column] ??= new Array<number>(n).fill(column === 'heard_to_end' ? -1 : NaN)).push(facts[column]!);
  }
}

function factArrays(f: FactLists, n: number): AnswerFacts {
  return {
    ...(f.response_ms && { responseMs: Float64Array.from(f.response_ms.slice(0, n)) }),
    ...(f.heard_to_end && { heardToEnd: Int8Array.from(f.heard_to_end.slice(0, n)) }),
    ...(f.seconds_listened && { secondsListened: Float64Array.from(f.seconds_listened.slice(0, n)) }),
    ...(f.hidden_ms && { hiddenMs: Float64Array.from(f.hidden_ms.slice(0, n)) }),
  };
}

function emptyVotes(capacity: number): VoteColumns {
  return {
    length: 0,
    item: new Int32Array(capacity),
    listener: new Int32Array(capacity),
    firstA: new Uint8Array(capacity),
    chosenA: new Uint8Array(capacity),
  };
}

function emptyTies(capacity: number): TieColumns {
  return { length: 0, item: new Int32Array(capacity), listener: new Int32Array(capacity), firstA: new Uint8Array(capacity) };
}

function growTies(t: TieColumns): TieColumns {
  const next = emptyTies(Math.max(1024, t.item.length * 2));
  next.item.set(t.item);
  next.listener.set(t.listener);
  next.firstA.set(t.firstA);
  next.length = t.length;
  return next;
}

function grow(v: VoteColumns): VoteColumns {
  const next = emptyVotes(v.item.length * 2);
  next.item.set(v.item);
  next.listener.set(v.listener);
  next.firstA.set(v.firstA);
  next.chosenA.set(v.chosenA);
  next.length = v.length;
  return next;
}

/**
 * A row as its fields, and each column's field number (one object per file): the two largest
 * files are read without an object per row; rowObject makes one where a schema needs it.
 */
type Fields = readonly string[];
type ColumnIndex = Readonly<Record<string, number>>;
type RowHandler = (fields: Fields, at: ColumnIndex, line: number) => unknown;

function rowObject(fields: Fields, at: ColumnIndex): Record<string, string> {
  const row: Record<string, string> = {};
  for (const column in at) row[column] = fields[at[column]];
  return row;
}

/** The row checks shared by the CSV reader and the in-memory path: one handler per file. */
function rowHandlers(builder: BundleBuilder): Record<BundleFile | 'stimuli.csv', RowHandler> & Partial<Record<KindFile, RowHandler>> {
  let factColumns: VoteFact[] | null = null;
  let ratingFactColumns: VoteFact[] | null = null;
  // Each registered kind's file: its own columns, trimmed, read by its declaration.
  const kindFiles = Object.fromEntries(ANALYSIS_KINDS.map((kind): [KindFile, RowHandler] => [kind.file, (fields, at, line) => {
    const cells: Record<string, string> = {};
    for (const column of kind.columns) cells[column] = fields[at[column]].trim();
    builder.addKindRow(kind, cells, line);
  }]));
  // Each registered kind's file of item facts, likewise.
  const factFiles = Object.fromEntries(ANALYSIS_KINDS.flatMap((kind): [KindFile, RowHandler][] => kind.facts ? [[kind.facts.file, (fields, at, line) => {
    const { file, columns } = kind.facts!;
    const cells: Record<string, string> = {};
    for (const column of columns) cells[column] = fields[at[column]].trim();
    builder.addKindFact(kind, file, columns, cells, line);
  }]] : []));
  return {
    ...kindFiles,
    ...factFiles,
    'stimuli.csv': (fields, at, line) => {
      const r = stimulusRow.safeParse(rowObject(fields, at));
      if (!r.success) return builder.reject(zodError('stimuli.csv', line, r.error, STIMULI_COLUMNS));
      builder.addStimulus(r.data, line);
    },
    'items.csv': (fields, at, line) => {
      const item = parseItem(fields, at, line, builder.hasRatings);
      if (item instanceof BundleError) return builder.reject(item);
      builder.addItem(item, line);
    },
    'votes.csv': (fields, at, line) => {
      let vote = plainVote(fields, at);
      if (!vote) {
        const r = voteRow.safeParse(rowObject(fields, at));
        if (!r.success) return builder.reject(zodError('votes.csv', line, r.error, COLUMNS['votes.csv']));
        vote = r.data;
      }
      factColumns ??= VOTE_FACTS.filter((c) => c in at);
      const facts = parseFacts('votes.csv', fields, at, line, factColumns);
      if (facts instanceof BundleError) return builder.reject(facts);
      builder.addVote(vote, line, facts);
    },
    'judge_scores.csv': (fields, at, line) => {
      let score = plainScore(fields, at);
      if (!score) {
        const r = scoreRow.safeParse(rowObject(fields, at));
        if (!r.success) return builder.reject(zodError('judge_scores.csv', line, r.error, COLUMNS['judge_scores.csv']));
        score = r.data;
      }
      builder.addJudgeScore(score);
    },
    'listeners.csv': (fields, at, line) => {
      const row = rowObject(fields, at);
      const r = listenerRow.safeParse(row);
      if (!r.success) return builder.reject(zodError('listeners.csv', line, r.error, COLUMNS['listeners.csv']));
      const more = Object.fromEntries(Object.entries(row).filter(([c]) => !(COLUMNS['listeners.csv'] as readonly string[]).includes(c)));
      builder.addListener({
        listener_id: r.data.listener_id,
        started_at: r.data.started_at,
        completed_at: r.data.completed_at || null,
        screening: r.data.screening || null,
        more,
      }, line);
    },
    'ratings.csv': (fields, at, line) => {
      const r = ratingRow.safeParse(rowObject(fields, at));
      if (!r.success) return builder.reject(zodError('ratings.csv', line, r.error, COLUMNS['ratings.csv']));
      ratingFactColumns ??= VOTE_FACTS.filter((c) => c in at);
      const facts = parseFacts('ratings.csv', fields, at, line, ratingFactColumns);
      if (facts instanceof BundleError) return builder.reject(facts);
      builder.addRating(r.data, line, facts);
    },
  };
}

/** study.json's text checked against the schema; refusals name the field (or the line of a JSON syntax error). */
function parseStudyJson(text: string): StudySettings {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const at = /position (\d+)/.exec((e as Error).message);
    const line = at ? text.slice(0, Number(at[1])).split('\n').length : 0;
    throw new BundleError('study.json', line, null, `not valid JSON: ${(e as Error).message}`, 'malformed JSON');
  }
  const r = StudySettings.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new BundleError('study.json', 0, issue.path.join('.') || null, issue.message, 'invalid study.json');
  }
  checkPlan(r.data);
  return r.data;
}

/**
 * The bundle readBundle would read from writeBundle(records), without the files: each row is
 * made of the fields the writer would write and checked by the same handlers (the live report).
 */
export function buildBundle(records: BundleToWrite, options: ReadBundleOptions = {}): Bundle {
  const study = records.study ? parseStudyJson(studyText(records.study)) : null;
  const builder = new BundleBuilder(options.skipInvalid, options.ratingScale ?? study?.ratingScale);
  if (study) builder.setStudy(study);
  // Items are checked as rating items only in a bundle with ratings, so say so before the items.
  if (records.ratings) builder.expectRatings();
  const handle = rowHandlers(builder);
  for (const [file, table] of Object.entries(bundleTables(records)) as [WrittenFile, Table][]) {
    if (file === 'listeners.csv') builder.hasListeners();
    if (file === 'stimuli.csv') builder.hasStimuli();
    if (ANALYSIS_KINDS.some((k) => k.facts?.file === file)) builder.hasKindFacts(file);
    const onRow = handle[file];
    if (!onRow) throw new BundleError(file, 0, null, `no registered kind has this answers file (kinds: ${ANALYSIS_KINDS.map((k) => `${k.kind} → ${k.file}`).join(', ') || 'none'})`, 'unknown file');
    const at = Object.fromEntries(table.header.map((c, i) => [c, i]));
    let line = 1;
    for (const cells of table.rows) onRow(cells.map(cellText), at, ++line);
  }
  return builder.build();
}

function zodError(file: BundleFile | 'stimuli.csv', line: number, error: z.ZodError, columns: readonly string[]): BundleError {
  const issue = error.issues[0];
  const field = String(issue.path[0] ?? '');
  const col = columns.indexOf(field);
  const column = col >= 0 ? `${col + 1} (${field})` : field || null;
  return new BundleError(file, line, column, issue.message, `invalid ${field || 'row'}`);
}

/** Reads and validates a bundle directory. Throws BundleError on the first bad row unless skipInvalid. */
export async function readBundle(dir: string, options: ReadBundleOptions = {}): Promise<Bundle> {
  try {
    return await readBundleWith(dir, options, true);
  } catch (e) {
    // Rows already handed to the builder may have been split wrongly: start again, all through csv-parse.
    if (e instanceof NeedsFullParser) return readBundleWith(dir, options, false);
    throw e;
  }
}

/** readBundle, with each CSV file split by CsvSplitter (`fast`) or by csv-parse alone. */
async function readBundleWith(dir: string, options: ReadBundleOptions, fast: boolean): Promise<Bundle> {
  // study.json first: its rating scale checks items.csv and ratings.csv.
  const studyFile = join(dir, 'study.json');
  const study = existsSync(studyFile) ? parseStudyJson(await readFile(studyFile, 'utf8')) : null;
  const builder = new BundleBuilder(options.skipInvalid, options.ratingScale ?? study?.ratingScale);
  if (study) builder.setStudy(study);
  if (existsSync(join(dir, 'ratings.csv'))) builder.expectRatings();
  const handle = rowHandlers(builder);
  const read = (file: BundleFile | 'stimuli.csv', optional?: readonly string[] | 'all') =>
    readCsv(dir, file, file === 'stimuli.csv' ? STIMULI_COLUMNS : COLUMNS[file], builder, handle[file], optional, fast);
  await read('items.csv', ['kind']);
  if (existsSync(join(dir, 'stimuli.csv'))) {
    builder.hasStimuli();
    await read('stimuli.csv');
  }
  // Only items.csv is required (docs/analysis-spec.md §1): without votes.csv there are no pair
  // votes, without judge_scores.csv no judges, and the report leaves their sections out.
  if (existsSync(join(dir, 'votes.csv'))) await read('votes.csv', VOTE_FACTS);
  if (existsSync(join(dir, 'judge_scores.csv'))) await read('judge_scores.csv');
  if (existsSync(join(dir, 'listeners.csv'))) {
    builder.hasListeners();
    await read('listeners.csv', 'all');
  }
  // ratings.csv carries the same further facts as votes.csv (response time, listening, hidden time).
  if (existsSync(join(dir, 'ratings.csv'))) await read('ratings.csv', VOTE_FACTS);
  // Each registered kind's answers file, with its own columns (the app's further ones are not read).
  for (const kind of ANALYSIS_KINDS) {
    if (!existsSync(join(dir, kind.file))) continue;
    builder.expectKind(kind);
    await readCsv(dir, kind.file, kind.columns, builder, handle[kind.file]!, [], fast);
  }
  for (const kind of ANALYSIS_KINDS) {
    if (!kind.facts || !existsSync(join(dir, kind.facts.file))) continue;
    builder.hasKindFacts(kind.facts.file);
    await readCsv(dir, kind.facts.file, kind.facts.columns, builder, handle[kind.facts.file]!, [], fast);
  }
  return builder.build();
}

/**
 * Streams one CSV file into `onRow` with the required columns and, of the `optional` ones, those
 * the header has ('all': every column). Fields come back as exported (restoreText). `fast` splits
 * the lines with CsvSplitter, which throws NeedsFullParser where only csv-parse reads them exactly.
 */
async function readCsv(
  dir: string,
  file: string,
  required: readonly string[],
  builder: BundleBuilder,
  onRow: RowHandler,
  optional: readonly string[] | 'all' = [],
  fast: boolean,
): Promise<void> {
  const path = join(dir, file);
  if (!existsSync(path)) throw new BundleError(file, 0, null, `missing file (expected ${path})`, 'missing file');
  // Records are numbered as they arrive; csv-parse's per-record line info would double the parse
  // time, so the exact line (which differs only when a quoted field spans lines) is looked up
  // in a second pass, on the refusal path only.
  let record = 0;
  let header: string[] | null = null;
  let at: ColumnIndex = {};
  // the fields of those columns, each once
  let used: number[] = [];
  const take = (fields: string[]) => {
    record++;
    if (!header) {
      header = fields.map((h) => h.trim());
      const missing = required.filter((c) => !header!.includes(c));
      if (missing.length) throw new BundleError(file, record, missing.join(', '), `missing column(s) ${missing.map((c) => `"${c}"`).join(', ')}; header is ${header.join(',')}`, 'missing column');
      const columns = optional === 'all' ? header : [...required, ...optional.filter((c) => header!.includes(c))];
      at = Object.fromEntries(columns.map((c) => [c, header!.indexOf(c)]));
      used = [...new Set(Object.values(at))];
      return;
    }
    if (fields.length !== header.length) {
      builder.reject(new BundleError(file, record, null, `has ${fields.length} fields, the header has ${header.length}`, 'wrong number of fields'));
      return;
    }
    for (const f of used) fields[f] = restoreText(fields[f]);
    onRow(fields, at, record);
  };
  try {
    if (fast) {
      const splitter = new CsvSplitter();
      for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) splitter.push(chunk as string, take);
      splitter.end(take);
    } else {
      const parser = createReadStream(path).pipe(parse(CSV_PARSE_OPTIONS));
      await new Promise<void>((resolve, reject) => {
        parser.on('error', reject);
        parser.on('end', resolve);
        parser.on('data', (fields: string[]) => {
          try {
            take(fields);
          } catch (e) {
            parser.destroy();
            reject(e);
          }
        });
      });
    }
  } catch (e) {
    if (e instanceof NeedsFullParser) throw e;
    if (e instanceof BundleError) {
      throw new BundleError(e.file, await lineOfRecord(path, e.line), e.column, e.problem, e.reason);
    }
    const err = e as Error & { lines?: number };
    throw new BundleError(file, err.lines ?? 0, null, `not valid CSV: ${err.message}`, 'malformed CSV');
  }
  if (!header) throw new BundleError(file, 1, null, 'empty file: expected a header row', 'missing column');
}

/** The line on which record number `target` (1 = header) ends. */
async function lineOfRecord(path: string, target: number): Promise<number> {
  const parser = createReadStream(path).pipe(parse({ ...CSV_PARSE_OPTIONS, info: true }));
  let n = 0;
  try {
    for await (const { info } of parser as AsyncIterable<{ info: { lines: number } }>) {
      if (++n === target) return info.lines;
    }
  } finally {
    parser.destroy();
  }
  return target;
}

async function writeCsv(path: string, lines: Iterable<string>): Promise<void> {
  const handle = await open(path, 'w');
  try {
    let chunk = '';
    for (const line of lines) {
      chunk += line;
      if (chunk.length > 1 << 20) {
        await handle.write(chunk);
        chunk = '';
      }
    }
    await handle.write(chunk);
  } finally {
    await handle.close();
  }
}

/** A rating as the app exports it: further columns (as a vote's `extra`) after the five. */
export type RatingToWrite = BundleRating & Pick<BundleVote, 'extra'>;

/**
 * What the app exports: the spec's columns, then any extra vote columns after the four required
 * ones; listeners.csv (link parameters and further columns after the spec's four) and study.json
 * when given.
 */
export interface BundleToWrite {
  items: Iterable<BundleItem>;
  votes: Iterable<BundleVote>;
  judgeScores: Iterable<JudgeScore>;
  /** the columns votes.csv (and ratings.csv) carry after the spec's own */
  extraVoteColumns?: readonly string[];
  listeners?: Iterable<BundleListener>;
  /** listeners.csv's columns after the spec's four: the study's link parameters, then more */
  extraListenerColumns?: readonly string[];
  study?: StudySettings;
  /** a rating study's ratings; ratings.csv is written only when given */
  ratings?: Iterable<RatingToWrite>;
  /** each item's stimuli (slot, role, system); stimuli.csv is written only when given */
  stimuli?: Iterable<BundleStimulus>;
  /** the answers of registered kinds (analysis/kinds), one entry per answers file, written after the spec's files */
  answerFiles?: readonly KindRowsToWrite[];
  /** registered kinds' files of item facts (`kind.facts`, e.g. metadata.csv): their columns only, no app columns */
  factFiles?: readonly KindFactsToWrite[];
}

/** A kind's file of item facts as the app exports it. */
export interface KindFactsToWrite {
  file: KindFile;
  columns: readonly string[];
  rows: Iterable<Readonly<Record<string, string | number | null>>>;
}

/** A registered kind's answers file as the app exports it: the kind's columns, then extraVoteColumns. */
export interface KindRowsToWrite {
  file: KindFile;
  columns: readonly string[];
  rows: Iterable<KindRowToWrite>;
}

/** One row of a kind's answers file: a cell per column of the kind's, and the app's further columns. */
export interface KindRowToWrite {
  cells: Readonly<Record<string, string | number | null>>;
  extra?: BundleVote['extra'];
}

interface Table {
  header: readonly string[];
  rows: Iterable<readonly unknown[]>;
}

/** The CSV files of a bundle as header and rows of values (analysis-spec §1), in the order the spec lists them. */
function bundleTables(bundle: BundleToWrite): Record<string, Table> & Record<'items.csv' | 'votes.csv' | 'judge_scores.csv', Table> {
  const extra = bundle.extraVoteColumns ?? [];
  const more = bundle.extraListenerColumns ?? [];
  // items.csv has its `kind` column when the items say their kind (an item without one gets the
  // kind it is read as); items from before kinds are written as they always were.
  const items = [...bundle.items];
  const kinds = items.some((i) => i.kind !== undefined);
  return {
    'items.csv': { header: kinds ? [...COLUMNS['items.csv'], 'kind'] : COLUMNS['items.csv'], rows: map(items, (i) => [
      i.item_id, i.utterance_id, i.system_a, i.system_b, i.attention ? 1 : 0, i.expected ?? '', ...(kinds ? [itemKind(i)] : []),
    ]) },
    ...(bundle.stimuli && {
      'stimuli.csv': { header: STIMULI_COLUMNS, rows: map(bundle.stimuli, (x) => [x.item_id, x.slot, x.role, x.system]) },
    }),
    'votes.csv': { header: [...COLUMNS['votes.csv'], ...extra], rows: map(bundle.votes, (v) => [
      v.item_id, v.listener_id, v.first, v.chosen, ...extra.map((c) => v.extra?.[c] ?? ''),
    ]) },
    'judge_scores.csv': { header: COLUMNS['judge_scores.csv'], rows: map(bundle.judgeScores, (s) => [
      s.utterance_id, s.system, s.judge, s.run, s.score,
    ]) },
    ...(bundle.listeners && {
      'listeners.csv': { header: [...COLUMNS['listeners.csv'], ...more], rows: map(bundle.listeners, (l) => [
        l.listener_id, l.started_at, l.completed_at ?? '', l.screening ?? '', ...more.map((c) => l.more?.[c] ?? ''),
      ]) },
    }),
    ...(bundle.ratings && {
      'ratings.csv': { header: [...COLUMNS['ratings.csv'], ...extra], rows: map(bundle.ratings, (r) => [
        r.item_id, r.listener_id, r.system, r.utterance_id, r.score, ...extra.map((c) => r.extra?.[c] ?? ''),
      ]) },
    }),
    ...Object.fromEntries((bundle.answerFiles ?? []).map((f) => [f.file, { header: [...f.columns, ...extra], rows: map(f.rows, (r) => [
      ...f.columns.map((c) => r.cells[c] ?? ''), ...extra.map((c) => r.extra?.[c] ?? ''),
    ]) }])),
    ...Object.fromEntries((bundle.factFiles ?? []).map((f) => [f.file, { header: f.columns, rows: map(f.rows, (r) => f.columns.map((c) => r[c] ?? '')) }])),
  };
}

function studyText(study: StudySettings): string {
  return JSON.stringify(study, null, 2) + '\n';
}

/** Writes a bundle directory (the CLI export), streaming each file. */
export async function writeBundle(dir: string, bundle: BundleToWrite): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [file, t] of Object.entries(bundleTables(bundle))) await writeCsv(join(dir, file), csvLines(t.header, t.rows));
  if (bundle.study) await writeFile(join(dir, 'study.json'), studyText(bundle.study));
}

/** The bundle's texts by file name; a registered kind's answers file is there too, under its own name (`kind.file`). */
export type BundleTexts = Record<'items.csv' | 'votes.csv' | 'judge_scores.csv', string> & Partial<Record<'listeners.csv' | 'ratings.csv' | 'stimuli.csv' | 'study.json', string>>;

/**
 * The bundle's files in the spec's order, each as the pieces of its text (a CSV file line by line,
 * study.json whole), made as they are read: a download streams them without holding a file.
 */
export function* bundleFileChunks(bundle: BundleToWrite): Iterable<[keyof BundleTexts, Iterable<string>]> {
  for (const [file, t] of Object.entries(bundleTables(bundle))) yield [file as keyof BundleTexts, csvLines(t.header, t.rows)];
  if (bundle.study) yield ['study.json', [studyText(bundle.study)]];
}

/** The bundle's files as text. */
export function bundleTexts(bundle: BundleToWrite): BundleTexts {
  const texts: Record<string, string> = {};
  for (const [file, chunks] of bundleFileChunks(bundle)) texts[file] = [...chunks].join('');
  return texts as BundleTexts;
}

function* map<T, U>(it: Iterable<T>, f: (t: T) => U): Iterable<U> {
  for (const t of it) yield f(t);
}

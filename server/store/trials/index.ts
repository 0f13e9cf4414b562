/**
 * Each trial kind's part on the server, declared once (kinds.md "server"): how a stored item
 * becomes the trial a listener receives, how a vote's answer becomes the answer document stored
 * (votes.answer), its practice feedback and its replay check, and which export file its answers go
 * to. Sessions, votes, the live figures and the export call these through
 * `trialKinds[item.trial_kind]` and know no kind themselves: they hand over stimuli, slot orders
 * and answer documents. A new kind is one file here and one entry in `trialKinds`.
 */
import type { BundleItem, RatingToWrite, BundleVote, KindRowToWrite } from '../../../analysis/bundle';
import type { ItemKind } from '../../../contract/constants';
import type { VoteAck, VoteBody } from '../../../contract/listener';
import type { Trial, TrialKind, TrialSettings } from '../../../contract/trials';
import type { Stimulus } from '../../../studies/stimuli';
import type { ExportItem, ExportVote } from '../export';
import { pair } from '../../../trials/pair/server';
import { rating } from '../../../trials/rating/server';
import { ab } from '../../../trials/ab/server';
import { abx } from '../../../trials/abx/server';
import { ccr } from '../../../trials/ccr/server';
import { tags } from '../../../trials/tags/server';
import { mushra } from '../../../trials/mushra/server';
import { describe } from '../../../trials/describe/server';

/** A stimulus as a listener's trial plays it: the study's served copy of its clip (null: no clip). */
export interface ServedStimulus extends Stimulus {
  served: { id: string; duration: number } | null;
  /** The clip's replay, for a kind that plays the stimulus again (ABX's X); null when the study has none. */
  replay: { id: string; duration: number } | null;
}

/** What a listener's trial is made of: the item's role and its stimuli, each with its served copy. */
export interface ServedItem {
  kind: ItemKind;
  stimuli: ServedStimulus[];
}

/** A vote's answer as stored (votes.answer): a JSON object whose fields are its kind's. */
export type AnswerDocument = Record<string, unknown>;

/** The columns an export row carries after the file's own (position, play_count, … vote_id). */
type ExtraColumns = NonNullable<BundleVote['extra']>;

/**
 * The export file a kind's answers go to, and the row each answer becomes there (analysis-spec §1, §4, §5):
 * votes.csv or ratings.csv, or the kind's own file (analysis/kinds: the analysis reads it through the
 * kind's AnalysisKind, with the same `file` and `columns`), where an answer is one or more rows.
 */
export type AnswerFile =
  | { file: 'votes.csv'; row: (vote: ExportVote, item: ExportItem, extra: ExtraColumns) => BundleVote }
  | { file: 'ratings.csv'; row: (vote: ExportVote, item: ExportItem, extra: ExtraColumns) => RatingToWrite }
  | KindAnswerFile;

/** A kind's own answers file: its columns (the app's further ones follow them) and the rows of one answer. */
export interface KindAnswerFile {
  file: `${string}.csv`;
  columns: readonly string[];
  /** the answer's rows, a cell per column (MUSHRA: one row per stimulus; ABX: one row) */
  rows: (vote: ExportVote, item: ExportItem) => KindRowToWrite['cells'][];
  /** the export writes stimuli.csv (item_id, slot, role, system) for every item when the study is of this kind */
  stimuli?: true;
  /** a file of facts about every item (tags: metadata.csv, what the corpus says), the analysis kind's `facts` */
  facts?: { file: `${string}.csv`; columns: readonly string[]; rows: (item: ExportItem) => Readonly<Record<string, string | number | null>>[] };
}

/** Whether a kind's answers go to a file of its own (not votes.csv or ratings.csv). */
export const isKindAnswerFile = (to: AnswerFile): to is KindAnswerFile => 'columns' in to;

export interface ServerTrialKind {
  /**
   * The trial a listener receives at `position` (`order`: the assignment's slot order, null for
   * kinds that draw none). Blinding: only served clip ids and the texts shown; an attention check
   * must look exactly like an ordinary trial.
   */
  trial(item: ServedItem, position: number, order: string[] | null, settings: TrialSettings): Trial;
  /**
   * The order the studio's preview serves an item in, for a kind whose order says more than the
   * slots' sequence (ABX: which slot X is); without it the preview uses the item's own slots.
   */
  previewOrder?(slots: string[], expected: string | null): string[];
  /**
   * The vote's answer document; throws a 400 naming the field when the vote carries another kind's
   * answer or one the study does not offer (`settings`: the study's `trial:`).
   */
  answer(vote: VoteBody, order: string[] | null, settings: TrialSettings): AnswerDocument;
  /** Whether a stored answer is the one this vote carries (a retried vote id is replayed only then). */
  sameAnswer(stored: AnswerDocument, vote: VoteBody): boolean;
  /** Whether a stored answer is an attention or practice item's intended one (items.expected). */
  correct(stored: AnswerDocument, expected: string): boolean;
  /** A practice trial's feedback. */
  feedback(stored: AnswerDocument, expected: string): NonNullable<VoteAck['feedback']>;
  /** The item's items.csv row (attention and expected as the export keeps them). */
  bundleItem(item: ExportItem): BundleItem;
  answers: AnswerFile;
}

export const trialKinds: Record<TrialKind, ServerTrialKind> = { pair, rating, ab, abx, ccr, tags, mushra, describe };

/** A practice trial's feedback; null for every other trial (attention checks say nothing). */
export function practiceFeedback(
  item: { kind: ItemKind; trial_kind: TrialKind; expected: string | null },
  stored: AnswerDocument,
): VoteAck['feedback'] {
  return item.kind === 'practice' && item.expected !== null ? trialKinds[item.trial_kind].feedback(stored, item.expected) : null;
}

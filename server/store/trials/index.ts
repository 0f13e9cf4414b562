/**
 * Each trial kind's part on the server, declared once (kinds.md "server"): how a stored item
 * becomes the trial a listener receives and the studio's preview row, how a vote's answer becomes
 * the vote's columns, its practice feedback and its replay check, and which export file its
 * answers go to. Sessions, votes, the live figures and the export call these through
 * `trialKinds[item.trial_kind]` and know no kind themselves. A new kind is one file here and
 * one entry in `trialKinds`.
 */
import type { BundleItem, RatingToWrite, BundleVote } from '../../../analysis/bundle';
import type { ItemKind } from '../../../contract/constants';
import type { VoteAck, VoteBody } from '../../../contract/listener';
import type { Trial, TrialKind, TrialSettings } from '../../../contract/trials';
import type { ExportItem, ExportVote } from '../export';
import { pair } from './pair';
import { rating } from './rating';

/** What a listener's trial is made of: the item's role and texts, and the study's served copy of its clip. */
export interface ServedItem {
  kind: ItemKind;
  clip_id: string;
  duration: number;
  caption_a: string | null;
  caption_b: string | null;
}

/** A vote's answer as stored (votes.first, chosen, score): a pair fills first and chosen, a rating score. */
export interface AnswerColumns {
  first: 'a' | 'b' | null;
  chosen: 'a' | 'b' | null;
  score: number | null;
}

/** The columns an export row carries after the file's own (position, play_count, … vote_id). */
type ExtraColumns = NonNullable<BundleVote['extra']>;

/** The export file a kind's answers go to, and the row each answer becomes there (analysis-spec §1, §4). */
export type AnswerFile =
  | { file: 'votes.csv'; row: (vote: ExportVote, extra: ExtraColumns) => BundleVote }
  | { file: 'ratings.csv'; row: (vote: ExportVote, extra: ExtraColumns) => RatingToWrite };

export interface ServerTrialKind {
  /**
   * The trial a listener receives at `position` (`first`: the assignment's caption order, null
   * for kinds without one). Blinding: only the served clip id and the texts shown; an attention
   * check must look exactly like an ordinary trial.
   */
  trial(item: ServedItem, position: number, first: 'a' | 'b' | null): Trial;
  /** The item's systems as the studio's preview lists them. */
  systems(item: { system_a: string; system_b: string | null }): string[];
  /**
   * The vote's answer in the votes columns; throws a 400 naming the field when the vote carries
   * another kind's answer or one the study does not offer (`settings`: the study's `trial:`).
   */
  answer(vote: VoteBody, first: 'a' | 'b' | null, settings: TrialSettings): AnswerColumns;
  /** Whether a stored answer is the one this vote carries (a retried vote id is replayed only then). */
  sameAnswer(stored: AnswerColumns, vote: VoteBody): boolean;
  /** Whether a stored answer is an attention or practice item's intended one (items.expected). */
  correct(stored: AnswerColumns, expected: string): boolean;
  /** A practice trial's feedback. */
  feedback(stored: AnswerColumns, expected: string): NonNullable<VoteAck['feedback']>;
  /** The item's items.csv row (attention and expected as the export keeps them). */
  bundleItem(item: ExportItem): BundleItem;
  answers: AnswerFile;
}

export const trialKinds: Record<TrialKind, ServerTrialKind> = { pair, rating };

/** A practice trial's feedback; null for every other trial (attention checks say nothing). */
export function practiceFeedback(
  item: { kind: ItemKind; trial_kind: TrialKind; expected: string | null },
  stored: AnswerColumns,
): VoteAck['feedback'] {
  return item.kind === 'practice' && item.expected !== null ? trialKinds[item.trial_kind].feedback(stored, item.expected) : null;
}

import { bundleTexts, writeBundle, type BundleToWrite } from '../analysis/bundle';
import type { ExportRows } from './store/export';

// What a vote records beyond the spec's four columns, written after them.
const EXTRA_VOTE_COLUMNS = [
  'position', 'play_count', 'seconds_listened', 'heard_to_end', 'hidden_ms', 'response_ms', 'client_ts', 'server_ts', 'vote_id',
] as const;

/** A study's export rows in the analysis module's bundle shape (the one CSV writer). */
function toBundle(rows: ExportRows): BundleToWrite {
  return {
    items: rows.items.map((i) => ({ ...i, attention: i.attention === 1 })),
    votes: rows.votes.map(({ item_id, listener_id, first, chosen, ...extra }) => ({ item_id, listener_id, first, chosen, extra })),
    judgeScores: rows.judgeScores,
    extraVoteColumns: EXTRA_VOTE_COLUMNS,
  };
}

/** Writes a study's bundle directory (`npm run export`). */
export function writeStudyBundle(dir: string, rows: ExportRows): Promise<void> {
  return writeBundle(dir, toBundle(rows));
}

/** The bundle as text, for the export endpoint. */
export function bundleFiles(rows: ExportRows): ReturnType<typeof bundleTexts> {
  return bundleTexts(toBundle(rows));
}

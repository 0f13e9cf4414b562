import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBundle } from '../analysis/bundle';
import type { ExportRows } from './store/export';

/** The three files of a study export bundle, as text (analysis-spec §1). */
export interface BundleFiles {
  'items.csv': string;
  'votes.csv': string;
  'judge_scores.csv': string;
}
const FILES = ['items.csv', 'votes.csv', 'judge_scores.csv'] as const;

// What a vote records beyond the spec's four columns, written after them.
const EXTRA_VOTE_COLUMNS = [
  'position', 'play_count', 'seconds_listened', 'heard_to_end', 'hidden_ms', 'response_ms', 'client_ts', 'server_ts', 'vote_id',
] as const;

/** Writes a study's bundle directory with the analysis module's writer, the one CSV writer. */
export async function writeStudyBundle(dir: string, rows: ExportRows): Promise<void> {
  await writeBundle(dir, {
    items: rows.items.map((i) => ({ ...i, attention: i.attention === 1 })),
    votes: rows.votes.map(({ item_id, listener_id, first, chosen, ...extra }) => ({ item_id, listener_id, first, chosen, extra })),
    judgeScores: rows.judgeScores,
    extraVoteColumns: EXTRA_VOTE_COLUMNS,
  });
}

/** The bundle as text, for the export endpoint: written to a scratch directory and read back. */
export async function bundleFiles(rows: ExportRows): Promise<BundleFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'earmark-bundle-'));
  try {
    await writeStudyBundle(dir, rows);
    const [items, votes, judges] = await Promise.all(FILES.map((f) => readFile(join(dir, f), 'utf8')));
    return { 'items.csv': items, 'votes.csv': votes, 'judge_scores.csv': judges };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

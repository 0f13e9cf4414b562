import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExportRows } from './store/export';

/** The three files of a study export bundle, as text (analysis-spec §1). */
export interface BundleFiles {
  'items.csv': string;
  'votes.csv': string;
  'judge_scores.csv': string;
}

const ITEM_COLUMNS = ['item_id', 'utterance_id', 'system_a', 'system_b', 'attention', 'expected'] as const;
// The four spec columns first; the rest are the extras the spec lets the app append.
const VOTE_COLUMNS = [
  'item_id', 'listener_id', 'first', 'chosen', 'position', 'play_count', 'seconds_listened', 'heard_to_end',
  'hidden_ms', 'response_ms', 'client_ts', 'server_ts', 'vote_id',
] as const;
const JUDGE_COLUMNS = ['utterance_id', 'system', 'judge', 'run', 'score'] as const;

// TEMPORARY: analysis/bundle.ts (branch `analysis`) will own writeBundle; this is the one copy until then.
export function bundleFiles(rows: ExportRows): BundleFiles {
  return {
    'items.csv': csv(ITEM_COLUMNS, rows.items),
    'votes.csv': csv(VOTE_COLUMNS, rows.votes),
    'judge_scores.csv': csv(JUDGE_COLUMNS, rows.judgeScores),
  };
}

export function writeBundleDir(dir: string, files: BundleFiles): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

function csv<K extends string>(columns: readonly K[], rows: readonly { [key in K]: unknown }[]): string {
  const lines = [columns.join(',')];
  for (const row of rows) lines.push(columns.map((c) => field(row[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}

/** RFC 4180: quote a field that holds a comma, quote or line break; double inner quotes. */
function field(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

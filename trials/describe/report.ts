/**
 * Describe in the analysis (analysis-spec §5.6): texts.csv (one row per answer) read against
 * items.csv, and the section `describe`: how many texts and listeners (retained listeners' answers
 * on scored items), and the texts' length in words (whitespace-separated tokens) and characters,
 * mean and median. A description has no right answer, so no answer counts for attention.
 */
import { BundleError } from '../../analysis/bundle-error';
import type { Bundle } from '../../analysis/bundle';
import type { AnalysisKind, KindAnswer } from '../../analysis/kinds/types';

/** The columns of texts.csv (analysis-spec §5.6), the export's and the reader's. */
export const TEXT_COLUMNS = ['item_id', 'listener_id', 'text'] as const;

export interface DescribeRow {
  text: string;
}

export interface LengthSummary {
  mean: number | null;
  median: number | null;
}

export interface DescribeSection {
  texts: number;
  listeners: number;
  /** scored items with at least one counted text */
  items: number;
  words: LengthSummary;
  characters: LengthSummary;
}

/** Whitespace-separated tokens (§5.6's words). */
export const wordCount = (text: string): number => text.split(/\s+/).filter((t) => t !== '').length;

function summary(values: number[]): LengthSummary {
  if (values.length === 0) return { mean: null, median: null };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return {
    mean: values.reduce((s, v) => s + v, 0) / values.length,
    median: sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2,
  };
}

/** The retained listeners' texts on scored (non-attention) describe items, in file order. */
export function countedTexts(bundle: Bundle, answers: readonly KindAnswer<DescribeRow>[], retained: Uint8Array): KindAnswer<DescribeRow>[] {
  return answers.filter((a) => bundle.items[a.item].kind === 'describe' && !bundle.items[a.item].attention && retained[a.listener] === 1);
}

export function describeSection(bundle: Bundle, answers: readonly KindAnswer<DescribeRow>[], retained: Uint8Array): DescribeSection {
  const counted = countedTexts(bundle, answers, retained);
  const texts = counted.map((a) => a.rows[0].text);
  return {
    texts: texts.length,
    listeners: new Set(counted.map((a) => a.listener)).size,
    items: new Set(counted.map((a) => a.item)).size,
    words: summary(texts.map(wordCount)),
    characters: summary(texts.map((t) => [...t].length)),
  };
}

export const describeAnalysis: AnalysisKind<DescribeRow, DescribeSection> = {
  kind: 'describe',
  file: 'texts.csv',
  columns: TEXT_COLUMNS,
  item(cells, line) {
    if (cells.attention === '1' || cells.expected !== '') {
      return new BundleError('items.csv', line, '6 (expected)', 'a describe item has no expected answer and is no attention check (a description has no right answer)', 'describe_item');
    }
    return { item_id: cells.item_id, utterance_id: cells.utterance_id, system_a: cells.system_a, system_b: cells.system_b, attention: false, expected: null };
  },
  row(cells, _item, line) {
    if (cells.text === '') return new BundleError('texts.csv', line, '3 (text)', 'must hold the listener\'s text', 'describe_text');
    return { text: cells.text };
  },
  // One text per (listener, item): a second row is a duplicate.
  part: () => 'text',
  correct: () => false,
  section: 'describe',
  report: (bundle, answers, context) => describeSection(bundle, answers, context.retained),
  csv: (section) => ({
    'describe_summary.csv': {
      header: ['texts', 'listeners', 'items', 'words_mean', 'words_median', 'characters_mean', 'characters_median'],
      rows: [[section.texts, section.listeners, section.items, section.words.mean, section.words.median, section.characters.mean, section.characters.median]],
    },
  }),
};

/** A MetaSet evaluation-input record (docs corpora: one JSON array per captioning system). */
export interface CaptionRecord {
  wav_path: string;
  status: 'success';
  generated_captions: { holistic_creative_synthesis: { used_instruction: string; generated_caption: string } };
  metadata: { source: string; relative_audio_path: string };
}

/**
 * The texts as a MetaSet-style caption source (analysis-spec §5.6): one record per scored item
 * that has a text, its caption the item's first text in texts.csv's order from a listener not in
 * `excluded` (the report's excluded listeners: the CLI runs the analysis first), under the caption
 * task the listening study uses (holistic_creative_synthesis), with the study's instruction as
 * the task's instruction. A study lists the file in `sources:` as `{ kind: metaset, file, system }`
 * with the system name the researcher chose (trial.system). Only MetaSet utterances
 * (`metaset:<source>/<relative_audio_path>`) have a MetaSet identity; any other is refused.
 */
export function describeCaptions(bundle: Bundle, excluded: ReadonlySet<string> = new Set()): CaptionRecord[] {
  const trial = bundle.study?.trial as { kind: string; instruction?: string } | undefined;
  const instruction = trial?.kind === 'describe' && trial.instruction ? trial.instruction : 'Describe how the speech is delivered.';
  const first = new Map<number, string>();
  for (const a of (bundle.kindAnswers.describe ?? []) as KindAnswer<DescribeRow>[]) {
    if (!bundle.items[a.item].attention && !excluded.has(bundle.listeners[a.listener]) && !first.has(a.item)) first.set(a.item, a.rows[0].text);
  }
  return [...first].sort(([a], [b]) => a - b).map(([i, text]) => {
    const utterance = bundle.items[i].utterance_id;
    const m = /^metaset:([^/]+)\/(.+)$/.exec(utterance);
    if (!m) throw new Error(`item ${bundle.items[i].item_id}: utterance ${utterance} is not a MetaSet utterance (metaset:<source>/<relative_audio_path>), so its text has no MetaSet record to become`);
    return {
      wav_path: `${m[1]}/${m[2]}`,
      status: 'success',
      generated_captions: { holistic_creative_synthesis: { used_instruction: instruction, generated_caption: text } },
      metadata: { source: m[1], relative_audio_path: m[2] },
    };
  });
}

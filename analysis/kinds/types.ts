/**
 * What a trial kind beyond the three the core analysis reads itself (pair and ab through §3,
 * rating through §4) declares to the analysis: its answers file (docs/analysis-spec.md §5/§6),
 * how its items.csv rows and answer rows are read and checked, whether an attention answer is
 * right, any exclusion rule of its own, and its report section. The reader, the exclusion step,
 * the report, the CSV report and the HTML page call these through the registry
 * (analysis/kinds/index.ts) and know no such kind themselves. A kind implements this in its
 * folder, trials/<kind>/report.ts (and its HTML in trials/<kind>/report-section.tsx).
 */
import type { Bundle, BundleError, BundleItem } from '../bundle';
import type { ExclusionRule } from '../exclusion';
import type { StudySettings } from '../study-settings';
import type { PaperTable } from '../paper/latex';

/** An items.csv row as text (the spec's six columns, trimmed), for a kind to read as its item. */
export interface ItemCells {
  item_id: string;
  utterance_id: string;
  system_a: string;
  system_b: string;
  attention: string;
  expected: string;
}

/** The cells of one row of a kind's answers file: its own columns, trimmed, as exported (restoreText). */
export type AnswerCells = Readonly<Record<string, string>>;

/**
 * One answer of a kind: every row of its file that one listener gave on one item (MUSHRA: one
 * row per stimulus; tags: one row per chosen value; ABX, CCR, describe: one row).
 */
export interface KindAnswer<Row> {
  /** index into bundle.items */
  item: number;
  /** index into bundle.listeners */
  listener: number;
  rows: Row[];
  /** the line of its first row in the file */
  line: number;
}

/**
 * One row of a kind's file of item facts (`facts`, e.g. the tags kind's metadata.csv: what the
 * corpus says of each clip): its item and its cells (the declared columns, trimmed).
 */
export interface KindFact {
  /** index into bundle.items */
  item: number;
  cells: AnswerCells;
  line: number;
}

/** What a kind's report section is computed with. */
export interface KindContext {
  /** 1 = the listener (index into bundle.listeners) is retained (§2, every rule, the kind's own included) */
  retained: Uint8Array;
  /** study.json, or null for a bundle without one */
  study: StudySettings | null;
  /** the listener bootstrap asked for (`--bootstrap`), or null */
  bootstrap: { n: number; seed: number } | null;
}

/** A table of the CSV report: one file of `--format csv`. */
export interface CsvTable {
  header: readonly string[];
  rows: readonly (readonly (string | number | null)[])[];
}

export interface AnalysisKind<Row = unknown, Section = unknown> {
  /** items.csv `kind` */
  kind: string;
  /** its answers file, e.g. `mushra.csv` */
  file: `${string}.csv`;
  /** the file's required columns, in the spec's order; the app writes its own (response_ms, …) after them */
  columns: readonly string[];
  /**
   * An optional file of facts about its items (not answers), e.g. tags' metadata.csv: `item_id`
   * must be among the columns and name an item of the kind; rows land in `bundle.kindFacts[file]`.
   */
  facts?: { file: `${string}.csv`; columns: readonly string[] };
  /**
   * items.csv's row of an item of this kind, checked: system_a/system_b as the kind uses them,
   * `expected` (of an attention item) in the kind's own terms. A refusal names items.csv, the line
   * and the column (`new BundleError('items.csv', line, '6 (expected)', …)`).
   */
  item(cells: ItemCells, line: number): Omit<BundleItem, 'kind'> | BundleError;
  /** A row of its answers file, checked against its item; refusals name the file, line and column. */
  row(cells: AnswerCells, item: BundleItem, line: number): Row | BundleError;
  /**
   * Which part of an answer a row is: two rows of one listener on one item with the same part are
   * a duplicate and refused (MUSHRA: the system; tags: attribute and value; one-row kinds: '').
   */
  part(row: Row): string;
  /** Whether an answer on an attention item is its intended one (items.csv `expected`). */
  correct(answer: KindAnswer<Row>, item: BundleItem): boolean;
  /** The kind's own exclusion rules (e.g. MUSHRA's post-screening), applied after the study's. */
  rules?(bundle: Bundle, answers: readonly KindAnswer<Row>[], study: StudySettings | null): ExclusionRule[];
  /** Those rules as the report's header words them. */
  describeRules?(study: StudySettings | null): { reason: string; description: string }[];
  /** The report's top-level key for this kind's section (`mushra`, `abx`, `ccr`, `annotation`, `describe`). */
  section: string;
  /** The section, from the retained listeners' answers on the non-attention items of this kind. */
  report(bundle: Bundle, answers: readonly KindAnswer<Row>[], context: KindContext): Section;
  /** The section as files of the CSV report (name → table). */
  csv(section: Section): Record<string, CsvTable>;
  /**
   * The section's tables in the paper bundle (`--format paper`, analysis/paper/latex.ts: each cell
   * its LaTeX and its unrounded value); without it the section is written as generic tables of
   * its fields (analysis/paper/tables.ts sectionTables).
   */
  paperTables?(section: Section): PaperTable[];
  /** The keys of paper.bib (analysis/paper/bib.ts) of the methods the section uses, e.g. `itu-p800`. */
  paperCitations?: readonly string[];
}

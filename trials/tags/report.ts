/**
 * Tags in the analysis (analysis-spec §5.5): annotations.csv (one row per chosen value) read
 * against items.csv, metadata.csv (what the corpus says) read beside it, an attention answer right
 * when it gives the certain value (`attribute=value`), and the section `annotation`: per attribute
 * Krippendorff's α (nominal for single; exact MASI and Jaccard for multi), per value prevalence and
 * binary α, the majority per item, agreement of the majority with the corpus labels (accuracy,
 * Cohen's κ, confusion) and, for single attributes, Dawid–Skene beside the majority with each
 * listener's estimated reliability.
 */
import { BundleError } from '../../analysis/bundle-error';
import type { Bundle, BundleItem } from '../../analysis/bundle';
import type { AnalysisKind, KindAnswer, KindFact } from '../../analysis/kinds/types';
import { krippendorffAlphaNominal } from '../../analysis/stats/krippendorff-alpha';
import { krippendorffAlphaDistance, setKey } from '../../analysis/stats/krippendorff-alpha-distance';
import { jaccardDistance, masiDistance } from '../../analysis/stats/set-distance';
import { perValueAlpha, type ValueAgreement } from '../../analysis/stats/per-value-alpha';
import { multiMajority, singleMajority } from '../../analysis/stats/label-majority';
import { cohenKappa } from '../../analysis/stats/cohen-kappa';
import { dawidSkene } from '../../analysis/stats/dawid-skene';
import { parseKnownTag, type DeclaredAttribute } from './attributes';
import { expandAttributes } from './presets';

/** The columns of annotations.csv and metadata.csv (analysis-spec §5.5), the export's and the reader's. */
export const ANNOTATION_COLUMNS = ['item_id', 'listener_id', 'attribute', 'value'] as const;
export const METADATA_COLUMNS = ['item_id', 'attribute', 'value'] as const;

export interface TagsRow {
  attribute: string;
  value: string;
}

export interface Confusion {
  metadata: string;
  majority: string;
  n: number;
}

export interface MetadataAgreement {
  n: number;
  accuracy: number | null;
  cohen_kappa: number | null;
  confusion: Confusion[];
}

export interface DawidSkeneSection {
  iterations: number;
  converged: boolean;
  log_likelihood: number;
  labels: { item_id: string; value: string | null }[];
  listeners: { listener_id: string; reliability: number | null }[];
  metadata: Omit<MetadataAgreement, 'confusion'> | null;
}

export interface AttributeSection {
  attribute: string;
  type: 'single' | 'multi';
  /** scored items with answers from ≥ 2 retained listeners */
  items: number;
  answers: number;
  alpha: number | null;
  alpha_jaccard?: number | null;
  per_value: ValueAgreement[];
  majority: { item_id: string; value?: string | null; values?: string[] | null }[];
  metadata: MetadataAgreement | null;
  dawid_skene?: DawidSkeneSection;
}

export interface AnnotationSection {
  attributes: AttributeSection[];
}

const partOf = (row: TagsRow) => `${row.attribute}=${row.value}`;

export const tagsAnalysis: AnalysisKind<TagsRow, AnnotationSection> = {
  kind: 'tags',
  file: 'annotations.csv',
  columns: ANNOTATION_COLUMNS,
  facts: { file: 'metadata.csv', columns: METADATA_COLUMNS },
  item(cells, line) {
    const attention = cells.attention === '1';
    if (attention ? parseKnownTag(cells.expected) === null : cells.expected !== '') {
      return new BundleError('items.csv', line, '6 (expected)', attention ? 'a tags attention item expects attribute=value (the certain value of one attribute)' : 'must be empty for an item that is not an attention check', 'tags_item');
    }
    return { item_id: cells.item_id, utterance_id: cells.utterance_id, system_a: cells.system_a, system_b: cells.system_b, attention, expected: attention ? cells.expected : null };
  },
  row(cells, _item, line) {
    if (cells.attribute === '') return new BundleError('annotations.csv', line, '3 (attribute)', 'must name the attribute the value is of', 'tags_value');
    return { attribute: cells.attribute, value: cells.value };
  },
  part: partOf,
  correct: (answer, item) => {
    const known = parseKnownTag(String(item.expected));
    return known !== null && answer.rows.some((r) => r.attribute === known.attribute && r.value === known.value);
  },
  section: 'annotation',
  report: (bundle, answers, context) => annotationSection(bundle, answers, context.retained),
  csv: (section) => ({
    'annotation_attributes.csv': {
      header: ['attribute', 'type', 'items', 'answers', 'alpha', 'alpha_jaccard', 'metadata_n', 'accuracy', 'cohen_kappa', 'dawid_skene_accuracy', 'dawid_skene_cohen_kappa'],
      rows: section.attributes.map((a) => [a.attribute, a.type, a.items, a.answers, a.alpha, a.alpha_jaccard ?? null, a.metadata?.n ?? null, a.metadata?.accuracy ?? null, a.metadata?.cohen_kappa ?? null, a.dawid_skene?.metadata?.accuracy ?? null, a.dawid_skene?.metadata?.cohen_kappa ?? null]),
    },
    'annotation_values.csv': {
      header: ['attribute', 'value', 'prevalence', 'alpha'],
      rows: section.attributes.flatMap((a) => a.per_value.map((v) => [a.attribute, v.value, v.prevalence, v.alpha])),
    },
    'annotation_majority.csv': {
      header: ['attribute', 'item_id', 'majority', 'dawid_skene'],
      rows: section.attributes.flatMap((a) => a.majority.map((m, i) => [a.attribute, m.item_id, a.type === 'single' ? m.value ?? null : m.values?.join(';') ?? null, a.dawid_skene?.labels[i].value ?? null])),
    },
    'annotation_confusion.csv': {
      header: ['attribute', 'metadata', 'majority', 'n'],
      rows: section.attributes.flatMap((a) => (a.metadata?.confusion ?? []).map((c) => [a.attribute, c.metadata, c.majority, c.n])),
    },
    'annotation_listeners.csv': {
      header: ['attribute', 'listener_id', 'reliability'],
      rows: section.attributes.flatMap((a) => (a.dawid_skene?.listeners ?? []).map((l) => [a.attribute, l.listener_id, l.reliability])),
    },
  }),
};

interface Declared {
  name: string;
  mode: 'single' | 'multi';
  values: string[];
}

/** The attributes: study.json's `trial` where it declares them, else those the answers use (multi where any answer gives ≠ 1 value). */
function declaredAttributes(bundle: Bundle, answers: readonly KindAnswer<TagsRow>[]): Declared[] {
  // study.json's `trial` is the study's validated `trial:` (contract.ts TagsSettings).
  const trial = bundle.study?.trial as { kind: string; attributes?: (DeclaredAttribute | string)[] } | undefined;
  if (trial?.kind === 'tags' && Array.isArray(trial.attributes)) return expandAttributes(trial.attributes as Parameters<typeof expandAttributes>[0]);
  const seen = new Map<string, { values: Set<string>; multi: boolean }>();
  for (const answer of answers) {
    const counts = new Map<string, number>();
    for (const r of answer.rows) {
      const a = seen.get(r.attribute) ?? { values: new Set<string>(), multi: false };
      seen.set(r.attribute, a);
      if (r.value !== '') a.values.add(r.value);
      counts.set(r.attribute, (counts.get(r.attribute) ?? 0) + 1);
      if (r.value === '') a.multi = true;
    }
    for (const [name, n] of counts) if (n !== 1) seen.get(name)!.multi = true;
  }
  return [...seen].map(([name, a]) => ({ name, mode: a.multi ? 'multi' : 'single', values: [...a.values].sort() }));
}

/** metadata.csv's values per item index and attribute. */
function metadataByItem(bundle: Bundle): Map<number, Map<string, string[]>> {
  const out = new Map<number, Map<string, string[]>>();
  for (const fact of (bundle.kindFacts?.['metadata.csv'] ?? []) as KindFact[]) {
    const byAttribute = out.get(fact.item) ?? new Map<string, string[]>();
    out.set(fact.item, byAttribute);
    const values = byAttribute.get(fact.cells.attribute) ?? [];
    byAttribute.set(fact.cells.attribute, values);
    if (fact.cells.value !== '') values.push(fact.cells.value);
  }
  return out;
}

function confusionOf(pairs: readonly [string, string][]): Confusion[] {
  const counts = new Map<string, Confusion>();
  for (const [metadata, majority] of pairs) {
    const key = JSON.stringify([metadata, majority]);
    const c = counts.get(key) ?? { metadata, majority, n: 0 };
    c.n++;
    counts.set(key, c);
  }
  return [...counts.values()].sort((a, b) => (a.metadata < b.metadata ? -1 : a.metadata > b.metadata ? 1 : a.majority < b.majority ? -1 : a.majority > b.majority ? 1 : 0));
}

/** Single attributes: agreement of one label per item with the corpus's (the items with both). */
function singleAgreement(labels: readonly (string | null)[], metadata: readonly (string | undefined)[]): MetadataAgreement {
  const pairs: [string, string][] = [];
  labels.forEach((l, i) => {
    if (l !== null && metadata[i] !== undefined) pairs.push([metadata[i]!, l]);
  });
  const n = pairs.length;
  return {
    n,
    accuracy: n === 0 ? null : pairs.filter(([m, l]) => m === l).length / n,
    cohen_kappa: cohenKappa(pairs.map((p) => p[0]), pairs.map((p) => p[1])),
    confusion: confusionOf(pairs),
  };
}

export function annotationSection(bundle: Bundle, answers: readonly KindAnswer<TagsRow>[], retained: Uint8Array): AnnotationSection {
  const scored: number[] = [];
  bundle.items.forEach((item: BundleItem, i) => {
    if (item.kind === 'tags' && !item.attention) scored.push(i);
  });
  const position = new Map(scored.map((item, i) => [item, i]));
  const counted = answers.filter((a) => position.has(a.item) && retained[a.listener] === 1);
  const metadata = metadataByItem(bundle);
  const attributes = declaredAttributes(bundle, answers).map((a): AttributeSection => {
    // Per scored item, each counted answer's set of values for this attribute (answers without it left out).
    const units: Set<string>[][] = scored.map(() => []);
    const listenersOf: number[][] = scored.map(() => []);
    for (const answer of counted) {
      const rows = answer.rows.filter((r) => r.attribute === a.name);
      if (rows.length === 0) continue;
      if (a.mode === 'single' && (rows.length !== 1 || rows[0].value === '')) {
        throw new BundleError('annotations.csv', answer.line, '4 (value)', `${a.name} is a single attribute: one value per answer (listener ${bundle.listeners[answer.listener]}, item ${bundle.items[answer.item].item_id})`, 'tags_single');
      }
      const stray = rows.find((r) => r.value !== '' && !a.values.includes(r.value));
      if (stray) throw new BundleError('annotations.csv', answer.line, '4 (value)', `"${stray.value}" is not a value of ${a.name} (values: ${a.values.join(', ')})`, 'tags_value');
      units[position.get(answer.item)!].push(new Set(rows.map((r) => r.value).filter((v) => v !== '')));
      listenersOf[position.get(answer.item)!].push(answer.listener);
    }
    const itemIds = scored.map((i) => bundle.items[i].item_id);
    const metaOf = scored.map((i) => metadata.get(i)?.get(a.name));
    const section: AttributeSection = {
      attribute: a.name,
      type: a.mode,
      items: units.filter((u) => u.length >= 2).length,
      answers: units.reduce((s, u) => s + u.length, 0),
      alpha: null,
      per_value: perValueAlpha(units, a.values),
      majority: [],
      metadata: null,
    };
    const hasMetadata = metaOf.some((m) => m !== undefined);
    if (a.mode === 'single') {
      const index = new Map(a.values.map((v, k) => [v, k]));
      section.alpha = krippendorffAlphaNominal(units.map((u) => {
        const counts = new Array<number>(a.values.length).fill(0);
        for (const s of u) counts[index.get([...s][0])!]++;
        return counts;
      }));
      const majority = units.map((u) => singleMajority(u.map((s) => [...s][0])));
      section.majority = majority.map((value, i) => ({ item_id: itemIds[i], value }));
      const firstMeta = metaOf.map((m) => m?.[0]);
      if (hasMetadata) section.metadata = singleAgreement(majority, firstMeta);
      const labels = units.flatMap((u, item) => u.map((s, j) => ({ item, listener: listenersOf[item][j], label: index.get([...s][0])! })));
      const ds = dawidSkene(labels, scored.length, bundle.listeners.length, a.values.length);
      const dsLabels = ds.labels.map((k) => (k === null ? null : a.values[k]));
      const answered = new Set(labels.map((l) => l.listener));
      const agreement = hasMetadata ? singleAgreement(dsLabels, firstMeta) : null;
      section.dawid_skene = {
        iterations: ds.iterations,
        converged: ds.converged,
        log_likelihood: ds.logLikelihood,
        labels: dsLabels.map((value, i) => ({ item_id: itemIds[i], value })),
        listeners: [...answered].sort((x, y) => x - y).map((l) => ({ listener_id: bundle.listeners[l], reliability: ds.reliability[l] })),
        metadata: agreement && { n: agreement.n, accuracy: agreement.accuracy, cohen_kappa: agreement.cohen_kappa },
      };
    } else {
      section.alpha = krippendorffAlphaDistance(units, masiDistance, setKey);
      section.alpha_jaccard = krippendorffAlphaDistance(units, jaccardDistance, setKey);
      const majority = units.map((u) => multiMajority(u));
      section.majority = majority.map((m, i) => ({ item_id: itemIds[i], values: m === null ? null : a.values.filter((v) => m.has(v)) }));
      if (hasMetadata) {
        const pairs: [Set<string>, Set<string>][] = [];
        majority.forEach((m, i) => {
          if (m !== null && metaOf[i] !== undefined) pairs.push([new Set(metaOf[i]), m]);
        });
        const join = (s: Set<string>) => [...s].sort().join(';');
        section.metadata = {
          n: pairs.length,
          accuracy: pairs.length === 0 ? null : pairs.reduce((s, [m, l]) => s + (1 - jaccardDistance(m, l)), 0) / pairs.length,
          cohen_kappa: null,
          confusion: confusionOf(pairs.map(([m, l]) => [join(m), join(l)])),
        };
      }
    }
    return section;
  });
  return { attributes };
}

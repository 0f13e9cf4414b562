/**
 * A trial kind for tests only: "is this clip natural?", answered yes or no, one row per answer in
 * its own file yesno.csv; an attention item expects yes or no; its own rule excludes a listener
 * who says no to every ordinary clip; its section counts the yeses per system. Tests register it
 * (registerYesNo) to show that the core reads a kind it does not know.
 */
import { BundleError } from '../bundle-error';
import type { ExclusionRule } from '../exclusion';
import { ANALYSIS_KINDS } from './index';
import type { AnalysisKind } from './types';

export interface YesNoRow { answer: 'yes' | 'no' }
export interface YesNoSection { systems: { system: string; n: number; yes: number; share_yes: number | null }[] }

export const YESNO_COLUMNS = ['item_id', 'listener_id', 'answer'] as const;

/** "Is this clip natural?": one row per answer; an attention item expects yes or no. */
export const yesno: AnalysisKind<YesNoRow, YesNoSection> = {
  kind: 'yesno',
  file: 'yesno.csv',
  columns: YESNO_COLUMNS,
  item(cells, line) {
    if (cells.system_a === '') return new BundleError('items.csv', line, '3 (system_a)', 'must name the system asked about', 'invalid system_a');
    if (cells.system_b !== '') return new BundleError('items.csv', line, '4 (system_b)', 'must be empty for a yesno item', 'invalid system_b');
    const attention = cells.attention === '1';
    if (attention ? cells.expected !== 'yes' && cells.expected !== 'no' : cells.expected !== '') {
      return new BundleError('items.csv', line, '6 (expected)', attention ? 'a yesno attention item expects yes or no' : 'must be empty for a non-attention item', 'invalid expected');
    }
    return { item_id: cells.item_id, utterance_id: cells.utterance_id, system_a: cells.system_a, system_b: '', attention, expected: attention ? cells.expected : null };
  },
  row(cells, _item, line) {
    if (cells.answer !== 'yes' && cells.answer !== 'no') return new BundleError('yesno.csv', line, '3 (answer)', `must be yes or no, got "${cells.answer}"`, 'invalid answer');
    return { answer: cells.answer };
  },
  part: () => '',
  correct: (answer, item) => answer.rows[0].answer === item.expected,
  rules(bundle, answers): ExclusionRule[] {
    // A listener who says no to every ordinary item (two or more) is not listening.
    const no = new Map<string, { n: number; no: number }>();
    for (const a of answers) {
      if (bundle.items[a.item].attention) continue;
      const id = bundle.listeners[a.listener];
      const c = no.get(id) ?? { n: 0, no: 0 };
      c.n++;
      if (a.rows[0].answer === 'no') c.no++;
      no.set(id, c);
    }
    return [{
      reason: 'always_no',
      evaluate(id) {
        const c = no.get(id);
        if (!c || c.n < 2) return { outcome: 'not_run' };
        return c.no < c.n ? { outcome: 'pass' } : { outcome: 'fail', detail: { answered_no: c.no } };
      },
    }];
  },
  describeRules: () => [{ reason: 'always_no', description: 'not "no" to every clip' }],
  section: 'yesno',
  report(bundle, answers, { retained }) {
    const bySystem = new Map<string, { n: number; yes: number }>();
    for (const a of answers) {
      const item = bundle.items[a.item];
      if (item.attention || !retained[a.listener]) continue;
      const c = bySystem.get(item.system_a) ?? { n: 0, yes: 0 };
      c.n++;
      if (a.rows[0].answer === 'yes') c.yes++;
      bySystem.set(item.system_a, c);
    }
    return { systems: [...bySystem].map(([system, c]) => ({ system, n: c.n, yes: c.yes, share_yes: c.n ? c.yes / c.n : null })) };
  },
  csv: (section) => ({ 'yesno_systems.csv': { header: ['system', 'n', 'yes', 'share_yes'], rows: section.systems.map((s) => [s.system, s.n, s.yes, s.share_yes]) } }),
};

/** Registers the kind in ANALYSIS_KINDS; the function returned removes it again. */
export function registerYesNo(): () => void {
  const kinds = ANALYSIS_KINDS as AnalysisKind<any, any>[];
  kinds.push(yesno);
  return () => {
    kinds.splice(kinds.indexOf(yesno), 1);
  };
}

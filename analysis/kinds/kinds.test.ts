/**
 * The core reads a kind it does not know: a yes/no kind declared here only (its own answers file
 * yesno.csv, its attention answer, a rule of its own, its section, CSV and HTML), registered for
 * these tests, goes through the bundle reader (directory, zip and in memory), the exclusion
 * rules, the report JSON, the CSV report and the HTML page; its bad rows are refused with file,
 * line and column.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { createElement } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleError } from '../bundle-error';
import { buildBundle, bundleFileChunks, readBundle, writeBundle, type Bundle, type BundleToWrite } from '../bundle';
import { withZippedBundle, zipBundleChunks } from '../bundle-zip';
import { reportCsvFiles } from '../csv-report';
import { renderReportHtml } from '../html';
import { analyzeStudy, reportHeader, resolveSettings } from '../study-settings';
import { KIND_SECTIONS, type KindSectionProps } from './sections';
import type { KindAnswer } from './types';
import { registerYesNo, YESNO_COLUMNS as COLUMNS, type YesNoRow, type YesNoSection } from './yesno.test-kind';

function YesNoSectionView({ section }: KindSectionProps<YesNoSection>) {
  return createElement('section', { 'data-section': 'yesno' }, createElement('h2', null, 'Natural or not?'), section.systems.map((s) => `${s.system}: ${s.yes}/${s.n}`).join('; '));
}

let unregister: () => void;
beforeAll(() => {
  unregister = registerYesNo();
});
afterAll(() => {
  unregister();
  delete KIND_SECTIONS.yesno;
});

const STUDY = { study: 'yn', exportedAt: '2026-12-03T07:00:00.000Z', minAttention: 0.75, splitThreshold: 0.75, rules: {}, linkParameters: [], trial: { kind: 'yesno', question: 'natural?' } };
const ITEMS = [
  'item_id,utterance_id,system_a,system_b,attention,expected,kind',
  'i1,u1,tts,,0,,yesno',
  'i2,u2,tts,,0,,yesno',
  'i3,u3,human,,0,,yesno',
  'i4,u4,human,,0,,yesno',
  'chk,u5,human,,1,yes,yesno',
];
// l1 answers honestly; l2 fails the attention item; l3 says no to everything (the kind's own rule).
const ANSWERS = [
  'item_id,listener_id,answer,response_ms,vote_id',
  'i1,l1,no,900,v1', 'i2,l1,yes,800,v2', 'i3,l1,yes,700,v3', 'i4,l1,yes,750,v4', 'chk,l1,yes,500,v5',
  'i1,l2,yes,900,v6', 'i3,l2,yes,900,v7', 'chk,l2,no,900,v8',
  'i1,l3,no,900,v9', 'i2,l3,no,900,v10', 'i3,l3,no,900,v11', 'chk,l3,yes,900,v12',
];
const STIMULI = ['item_id,slot,role,system', 'i1,A,condition,tts', 'i1,B,reference,human', 'i1,C,anchor35,anchor35'];

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function bundleDir(files: Record<string, string[]>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'earmark-kind-'));
  dirs.push(dir);
  for (const [file, lines] of Object.entries(files)) await writeFile(join(dir, file), lines.join('\r\n') + '\r\n');
  return dir;
}
const yesnoBundle = () => bundleDir({ 'items.csv': ITEMS, 'yesno.csv': ANSWERS, 'stimuli.csv': STIMULI, 'study.json': [JSON.stringify(STUDY)] });
async function refusal(files: Record<string, string[]>): Promise<BundleError> {
  try {
    await readBundle(await bundleDir(files));
  } catch (e) {
    if (e instanceof BundleError) return e;
    throw e;
  }
  throw new Error('not refused');
}
const analyzeBundle = (bundle: Bundle) => analyzeStudy(bundle, resolveSettings(bundle.study));

describe('a registered kind through the bundle reader', () => {
  it('reads its items, its answers file (app columns after its own allowed) and stimuli.csv', async () => {
    const bundle = await readBundle(await yesnoBundle());
    expect(bundle.items.map((i) => [i.item_id, i.kind, i.expected])).toEqual([['i1', 'yesno', null], ['i2', 'yesno', null], ['i3', 'yesno', null], ['i4', 'yesno', null], ['chk', 'yesno', 'yes']]);
    expect(bundle.listeners).toEqual(['l1', 'l2', 'l3']);
    const answers = bundle.kindAnswers.yesno as KindAnswer<YesNoRow>[];
    expect(answers).toHaveLength(12);
    expect(answers[0]).toEqual({ item: 0, listener: 0, rows: [{ answer: 'no' }], line: 2 });
    expect(answers[7]).toEqual({ item: 4, listener: 1, rows: [{ answer: 'no' }], line: 9 });
    expect(bundle.stimuli).toEqual([
      { item_id: 'i1', slot: 'A', role: 'condition', system: 'tts' },
      { item_id: 'i1', slot: 'B', role: 'reference', system: 'human' },
      { item_id: 'i1', slot: 'C', role: 'anchor35', system: 'anchor35' },
    ]);
    expect(bundle.study?.trial).toEqual({ kind: 'yesno', question: 'natural?' });
    expect(bundle.votes.length).toBe(0);
  });

  it('reads the same from a zip, and buildBundle of the records gives the same bundle and report (live = offline)', async () => {
    const dir = await yesnoBundle();
    const fromDir = await readBundle(dir);
    const records: BundleToWrite = {
      items: fromDir.items, votes: [], judgeScores: [], study: fromDir.study!, extraVoteColumns: ['response_ms', 'vote_id'],
      stimuli: fromDir.stimuli!,
      answerFiles: [{
        file: 'yesno.csv', columns: COLUMNS,
        rows: ANSWERS.slice(1).map((l) => l.split(',')).map(([item_id, listener_id, answer, response_ms, vote_id]) => ({ cells: { item_id, listener_id, answer }, extra: { response_ms: Number(response_ms), vote_id } })),
      }],
    };
    const inMemory = buildBundle(records);
    expect(inMemory.kindAnswers).toEqual(fromDir.kindAnswers);
    expect(inMemory.stimuli).toEqual(fromDir.stimuli);
    expect(analyzeBundle(inMemory)).toEqual(analyzeBundle(fromDir));
    // written, zipped as the studio downloads it, and read back
    const zip = join(dir, 'study.zip');
    writeFileSync(zip, Buffer.concat([...zipBundleChunks('yn', bundleFileChunks(records))]));
    const fromZip = await withZippedBundle(zip, (d) => readBundle(d));
    expect(fromZip.kindAnswers).toEqual(fromDir.kindAnswers);
    expect(fromZip.stimuli).toEqual(fromDir.stimuli);
    const written = await mkdtemp(join(tmpdir(), 'earmark-kind-'));
    dirs.push(written);
    await writeBundle(written, records);
    expect(analyzeBundle(await readBundle(written))).toEqual(analyzeBundle(fromDir));
  });

  it('refuses a bad row, a duplicate, an answer on an unknown or other item, and missing columns, naming file, line and column', async () => {
    const bad = await refusal({ 'items.csv': ITEMS, 'yesno.csv': [...ANSWERS.slice(0, 3), 'i3,l1,maybe,1,v', ...ANSWERS.slice(3)] });
    expect(bad.message).toBe('yesno.csv line 4, column 3 (answer): must be yes or no, got "maybe"');
    const dup = await refusal({ 'items.csv': ITEMS, 'yesno.csv': [...ANSWERS, 'i2,l1,no,1,v13'] });
    expect(dup.message).toBe('yesno.csv line 14, column 2 (listener_id): duplicate answer: listener "l1" already answered on item "i2" (line 3)');
    const unknown = await refusal({ 'items.csv': ITEMS, 'yesno.csv': [ANSWERS[0], 'nope,l1,yes,1,v'] });
    expect(unknown.message).toBe('yesno.csv line 2, column 1 (item_id): unknown item_id "nope" (not in items.csv)');
    const other = await refusal({ 'items.csv': [...ITEMS, 'p1,u9,x,y,0,,pair'], 'yesno.csv': [ANSWERS[0], 'p1,l1,yes,1,v'] });
    expect(other.message).toBe('yesno.csv line 2, column 1 (item_id): item "p1" is a pair item (items.csv): only yesno items\' answers belong in yesno.csv');
    const vote = await refusal({ 'items.csv': ITEMS, 'votes.csv': ['item_id,listener_id,first,chosen', 'i1,l1,a,a'] });
    expect(vote.message).toBe('votes.csv line 2, column item_id: item "i1" is a yesno item (items.csv): its answers belong in yesno.csv');
    const columns = await refusal({ 'items.csv': ITEMS, 'yesno.csv': ['item_id,listener_id,reply', 'i1,l1,yes'] });
    expect(columns.message).toMatch(/^yesno\.csv line 1, column answer: missing column\(s\) "answer"/);
    const stimulus = await refusal({ 'items.csv': ITEMS, 'stimuli.csv': [...STIMULI, 'i1,A,condition,other'] });
    expect(stimulus.message).toBe('stimuli.csv line 5, column 2 (slot): duplicate slot "A" of item "i1"');
  });

  it('refuses its own bad items.csv rows and a kind nobody registered, listing the known kinds', async () => {
    const item = await refusal({ 'items.csv': [...ITEMS, 'chk2,u6,human,,1,maybe,yesno'] });
    expect(item.message).toBe('items.csv line 7, column 6 (expected): a yesno attention item expects yes or no');
    const kind = await refusal({ 'items.csv': [...ITEMS, 'm1,u7,tts,,0,,mushra9'] });
    expect(kind.message).toBe('items.csv line 7, column 7 (kind): must be pair, rating, ab, abx, ccr, tags, mushra, describe, yesno or empty (the kinds this analysis reads; empty = pair, or rating where system_b is empty), got "mushra9"');
  });

  it('skips bad rows with skipInvalid, counted by file and reason', async () => {
    const dir = await bundleDir({ 'items.csv': ITEMS, 'yesno.csv': [...ANSWERS, 'i2,l1,no,1,v13', 'i4,l2,maybe,1,v14'] });
    const bundle = await readBundle(dir, { skipInvalid: true });
    expect(bundle.skipped.by_reason).toEqual({ 'yesno.csv: duplicate (item, listener) answer': 1, 'yesno.csv: invalid answer': 1 });
    expect(bundle.kindAnswers.yesno).toHaveLength(12);
  });
});

describe('a registered kind through exclusion and the reports', () => {
  it('counts its attention answers, applies its own rule after the study\'s, and reports its section from the retained listeners', async () => {
    const bundle = await readBundle(await yesnoBundle());
    const report = analyzeBundle(bundle);
    expect(report.listeners.total).toBe(3);
    expect(report.listeners.excluded).toEqual([
      { listener_id: 'l2', reason: 'attention', reasons: ['attention'], correct: 0, answered: 1 },
      { listener_id: 'l3', reason: 'always_no', reasons: ['always_no'], answered_no: 3 },
    ]);
    expect(report.listeners.attention_pass_rate).toBeCloseTo(2 / 3, 12);
    const section = (report as unknown as { yesno: YesNoSection }).yesno;
    expect(section).toEqual({ systems: [{ system: 'tts', n: 2, yes: 1, share_yes: 0.5 }, { system: 'human', n: 2, yes: 2, share_yes: 1 }] });
    // A study of this kind has no pair items: no pair table, no pair systems.
    expect(report.items).toBeUndefined();
    expect(report.bradley_terry.systems).toEqual([]);
    const header = reportHeader(bundle, resolveSettings(bundle.study));
    expect(header.rules).toEqual([
      { reason: 'attention', description: 'attention checks ≥ 75% right' },
      { reason: 'always_no', description: 'not "no" to every clip' },
    ]);
  });

  it('leaves a pair study\'s analysis to its pair items when the bundle has items of the kind too', async () => {
    const pairItems = ['p1,u9,x,y,0,,pair', 'p2,u9,y,z,0,,pair'];
    const votes = ['item_id,listener_id,first,chosen', 'p1,l1,a,a', 'p2,l1,a,b', 'p1,l4,b,a'];
    const mixed = await readBundle(await bundleDir({ 'items.csv': [...ITEMS, ...pairItems], 'yesno.csv': ANSWERS, 'votes.csv': votes }));
    const pairOnly = await readBundle(await bundleDir({ 'items.csv': [ITEMS[0], ...pairItems], 'votes.csv': votes }));
    const a = analyzeBundle(mixed);
    const b = analyzeBundle(pairOnly);
    expect(a.bradley_terry).toEqual(b.bradley_terry);
    expect(a.items).toEqual(b.items);
    expect((a as unknown as { yesno: YesNoSection }).yesno.systems.map((s) => s.system)).toEqual(['tts', 'human']);
  });

  it('adds its CSV files to the CSV report', async () => {
    const files = reportCsvFiles(analyzeBundle(await readBundle(await yesnoBundle())));
    expect(files['yesno_systems.csv']).toBe('system,n,yes,share_yes\r\ntts,2,1,0.5\r\nhuman,2,2,1\r\n');
    expect(files['excluded_by_reason.csv']).toContain('always_no,1,0');
  });

  it('shows its section on the HTML page: its own component when registered, plain tables otherwise', async () => {
    const bundle = await readBundle(await yesnoBundle());
    const report = analyzeBundle(bundle);
    const header = reportHeader(bundle, resolveSettings(bundle.study));
    const plain = renderReportHtml(report, header);
    expect(plain).toContain('<section data-section="yesno"><h2>yesno</h2>');
    expect(plain).toMatch(/<td>human<\/td><td>2<\/td><td>2<\/td><td>1<\/td>/);
    expect(plain).toContain('not &quot;no&quot; to every clip');
    // no votes: the page says nothing of missing votes for a study of another kind
    expect(plain).not.toContain('data-section="votes"');
    KIND_SECTIONS.yesno = YesNoSectionView;
    const own = renderReportHtml(report, header);
    expect(own).toContain('<section data-section="yesno"><h2>Natural or not?</h2>tts: 1/2; human: 2/2</section>');
    expect(own).not.toContain('<h2>yesno</h2>');
  });
});

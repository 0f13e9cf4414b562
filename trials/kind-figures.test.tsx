/**
 * The kinds' figures (trials/<kind>/figure.tsx): the one renderer the HTML report's section and the
 * dashboard's panel share, fed with sections computed by the kinds' own analysis. Rendered to
 * static markup as the report page is; the dashboard's panels are driven in Chromium by
 * e2e/dashboard-kinds.spec.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { readBundle, writeBundle, type Bundle, type BundleItem } from '../analysis/bundle';
import { KindSections } from '../analysis/kinds/sections';
import type { KindAnswer } from '../analysis/kinds/types';
import { analyze, type Report } from '../analysis/report';
import { wilsonInterval } from '../analysis/stats/wilson-interval';
import { abPreferences, AbFigure } from './ab/figure';
import { abxPairs, type AbxRow } from './abx/report';
import { ccrSystems, signCorrected, type CcrRow } from './ccr/report';
import type { AnnotationSection } from './tags/report';
import { simulateTags } from './tags/simulate';

const item = (kind: string, id: string, a: string, b: string, attention = false): BundleItem => ({ kind, item_id: id, utterance_id: `u-${id}`, system_a: a, system_b: b, attention, expected: null });
const answersOf = <Row,>(rows: [number, number, Row][]): KindAnswer<Row>[] => rows.map(([i, l, r], line) => ({ item: i, listener: l, rows: [r], line: line + 2 }));
const cells = (html: string, testId: string) =>
  [...html.slice(html.indexOf(`data-testid="${testId}"`)).split('</table>')[0].matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((m) => [...m[1].matchAll(/<td>(.*?)<\/td>/g)].map((c) => c[1]));

describe('the A/B figure', () => {
  it('pools a pair’s items whichever system was a, with the Wilson interval of the decided votes and the ties apart', () => {
    const pairs = abPreferences([
      { system_a: 'x', system_b: 'y', votes_a: 3, votes_b: 1, ties: 1 },
      { system_a: 'y', system_b: 'x', votes_a: 2, votes_b: 4, ties: 0 },
      { system_a: 'y', system_b: 'z', votes_a: 0, votes_b: 0, ties: 2 },
    ]);
    expect(pairs.map((p) => [p.first, p.second, p.forFirst, p.decided, p.ties])).toEqual([['x', 'y', 7, 10, 1], ['y', 'z', 0, 0, 2]]);
    expect(pairs[0].share).toBe(0.7);
    expect(pairs[0].ci95).toEqual(wilsonInterval(7, 10));
    expect(pairs[1].share).toBeNull();
    expect(pairs[1].ci95).toBeNull();
    const html = renderToStaticMarkup(<AbFigure items={[{ system_a: 'x', system_b: 'y', votes_a: 3, votes_b: 1, ties: 1 }]} />);
    expect(html).toContain('role="img" aria-label="A/B preference per system pair with 95% intervals"');
    expect(cells(html, 'ab-preference')).toEqual([['x', 'y', '3', '4', '75.0%', `[${(100 * wilsonInterval(3, 4)![0]).toFixed(1)}%, ${(100 * wilsonInterval(3, 4)![1]).toFixed(1)}%]`, '1']]);
  });
});

describe('the ABX and CCR sections on the HTML page', () => {
  const abxItems = [item('abx', 'i1', 'p', 'q'), item('abx', 'i2', 'q', 'p')];
  const abx = abxPairs({ items: abxItems, listeners: ['L1', 'L2'] } as unknown as Bundle, answersOf<AbxRow>([
    [0, 0, { x: 'a', chosen: 'a' }],
    [0, 1, { x: 'b', chosen: 'a' }],
    [1, 0, { x: 'a', chosen: 'a' }],
    [1, 1, { x: 'b', chosen: 'b' }],
  ]), Uint8Array.from([1, 1]));
  const ccrItems = [item('ccr', 'c1', 'tts', 'ref'), item('ccr', 'c2', 'vocoder', 'ref')];
  const ccrRow = (first: 'reference' | 'processed', raw: number): CcrRow => ({ first, raw, score: signCorrected(first, raw) });
  const ccr = ccrSystems({ items: ccrItems, listeners: ['L1', 'L2'] } as unknown as Bundle, answersOf<CcrRow>([
    [0, 0, ccrRow('reference', -1)],
    [0, 1, ccrRow('processed', 2)],
    [1, 0, ccrRow('reference', 1)],
    [1, 1, ccrRow('processed', -1)],
  ]), Uint8Array.from([1, 1]));
  const html = renderToStaticMarkup(<KindSections report={{ abx, ccr } as unknown as Report} />);

  it('draws ABX per pair: % right with its interval, the exact binomial p and both d′', () => {
    expect(html).toContain('<section data-section="abx"><h2>ABX: can listeners tell two systems apart?</h2>');
    expect(html).toContain('aria-label="ABX: share of right answers per system pair with 95% intervals"');
    const [row] = cells(html, 'abx-pairs');
    expect(row.slice(0, 5)).toEqual(['p', 'q', '4', '3', '75.0%']);
    expect(abx.pairs[0].p_value).toBeCloseTo(5 / 16, 12);
    expect(row[6]).toBe(abx.pairs[0].p_value!.toFixed(3));
    expect(row[7]).toBe(abx.pairs[0].d_prime_independent!.toFixed(2));
    expect(html).not.toContain('<h2>abx</h2>');
  });

  it('draws the CMOS per system on −3…+3 with its interval, and the order effect', () => {
    expect(html).toContain('<section data-section="ccr"><h2>CCR: comparison mean opinion score</h2>');
    expect(html).toContain('aria-label="Comparison mean opinion score per system with 95% intervals"');
    // tts: −1 and −2 → −1.5; vocoder: 1 and 1 → 1
    expect(cells(html, 'ccr-systems').map((r) => [r[0], r[1], r[3], r[4]])).toEqual([['1', 'vocoder', '2', '1.00'], ['2', 'tts', '2', '-1.50']]);
    // reference first: −1, 1 → 0; processed first: −2, 1 → −0.5; effect 0.5
    expect(html).toContain('Order effect: 0.50 (mean score with the reference played first 0.00, n = 2; with the processed first -0.50, n = 2)');
    expect(html).not.toContain('<h2>ccr</h2>');
  });
});

describe('the tags section on the HTML page, from a simulated study (the bundle npm run simulate -- --kind tags writes)', () => {
  let html = '';
  let section: AnnotationSection;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'earmark-tags-figure-'));
    await writeBundle(dir, simulateTags({ items: 60, listeners: 10, careless: 2, attention: 4, answersPerItem: 5, seed: 5 }));
    const report = analyze(await readBundle(dir));
    section = (report as unknown as { annotation: AnnotationSection }).annotation;
    html = renderToStaticMarkup(<KindSections report={report} />);
  });
  /** The heat map of one attribute: each cell's row, column and printed count. */
  const heatCells = (attribute: string) => {
    const svg = html.slice(html.indexOf(`data-figure="tags-confusion-${attribute}"`)).split('</svg>')[0];
    return [...svg.matchAll(/<g data-row="([^"]*)" data-column="([^"]*)">.*?<text[^>]*>(\d+)<\/text><\/g>/g)].map((m) => ({ row: m[1], column: m[2], n: Number(m[3]) }));
  };
  const shown = (label: string) => (label === '' ? '(none)' : label);

  it('draws its own section, not plain tables', () => {
    expect(html).toContain('<section data-section="annotation"><h2>Tags: how listeners label the clips</h2>');
    expect(html).not.toContain('<h2>annotation</h2>');
    expect(section.attributes.map((a) => [a.attribute, a.type])).toEqual([['emotion', 'single'], ['timbre', 'multi']]);
  });

  it.each(['emotion', 'timbre'])('prints in each heat-map cell of %s the count of its confusion entry (0 where there is none)', (attribute) => {
    const a = section.attributes.find((x) => x.attribute === attribute)!;
    const confusion = a.metadata!.confusion;
    expect(confusion.length).toBeGreaterThan(1);
    const cells = heatCells(attribute);
    const rows = new Set(cells.map((c) => c.row)), columns = new Set(cells.map((c) => c.column));
    expect(cells).toHaveLength(rows.size * columns.size);
    for (const c of confusion) expect(cells.filter((x) => x.row === shown(c.metadata) && x.column === shown(c.majority)).map((x) => x.n)).toEqual([c.n]);
    const entries = new Set(confusion.map((c) => JSON.stringify([shown(c.metadata), shown(c.majority)])));
    expect(cells.filter((x) => !entries.has(JSON.stringify([x.row, x.column]))).every((x) => x.n === 0)).toBe(true);
    expect(cells.reduce((s, x) => s + x.n, 0)).toBe(a.metadata!.n);
    expect(html).toContain(`aria-label="${attribute}: corpus label × listeners&#x27; majority (items)"`);
  });

  it('shows each attribute’s α, its values’ prevalence and α, and Dawid–Skene beside the majority with each listener’s reliability', () => {
    const [emotion, timbre] = section.attributes;
    const tables = (testId: string) => html.split(`data-testid="${testId}"`).slice(1).map((t) => [...t.split('</table>')[0].matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((m) => [...m[1].matchAll(/<td>(.*?)<\/td>/g)].map((c) => c[1])));
    expect(tables('tags-attribute')).toEqual([
      [['emotion', String(emotion.items), String(emotion.answers), emotion.alpha!.toFixed(3)]],
      [['timbre', String(timbre.items), String(timbre.answers), timbre.alpha!.toFixed(3), timbre.alpha_jaccard!.toFixed(3)]],
    ]);
    expect(tables('tags-values')[1]).toEqual(timbre.per_value.map((v) => [v.value, `${(100 * v.prevalence!).toFixed(1)}%`, v.alpha!.toFixed(3)]));
    const ds = emotion.dawid_skene!;
    expect(tables('tags-agreement')[0]).toEqual([
      ['majority', String(emotion.metadata!.n), `${(100 * emotion.metadata!.accuracy!).toFixed(1)}%`, emotion.metadata!.cohen_kappa!.toFixed(3)],
      ['Dawid–Skene', String(ds.metadata!.n), `${(100 * ds.metadata!.accuracy!).toFixed(1)}%`, ds.metadata!.cohen_kappa!.toFixed(3)],
    ]);
    expect(tables('tags-agreement')[1].map((r) => r[0])).toEqual(['majority']);
    expect(tables('tags-listeners')).toEqual([ds.listeners.map((l) => [l.listener_id, l.reliability!.toFixed(3)])]);
    expect(ds.listeners.length).toBeGreaterThan(5);
  });
});

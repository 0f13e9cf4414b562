/**
 * The kinds' figures (trials/<kind>/figure.tsx): the one renderer the HTML report's section and the
 * dashboard's panel share, fed with sections computed by the kinds' own analysis. Rendered to
 * static markup as the report page is; the dashboard's panels are driven in Chromium by
 * e2e/dashboard-kinds.spec.ts.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { Bundle, BundleItem } from '../analysis/bundle';
import { KindSections } from '../analysis/kinds/sections';
import type { KindAnswer } from '../analysis/kinds/types';
import type { Report } from '../analysis/report';
import { wilsonInterval } from '../analysis/stats/wilson-interval';
import { abPreferences, AbFigure } from './ab/figure';
import { abxPairs, type AbxRow } from './abx/report';
import { ccrSystems, signCorrected, type CcrRow } from './ccr/report';

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

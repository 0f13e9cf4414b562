import { describe, expect, it } from 'vitest';
import { buildBundle } from './bundle';
import { renderReportHtml } from './html';
import { analyze } from './report';
import { simulate } from './simulate';

describe('renderReportHtml', () => {
  const study = simulate({ systems: 6, items: 60, listeners: 9, careless: 1, attention: 6, seed: 5 });
  const report = analyze(buildBundle(study), { bootstrap: { n: 30, seed: 2 } });
  const html = renderReportHtml(report);

  it('is one self-contained page: no scripts, no external resources', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
  });

  it('has the reliability, agreement, bucket, calibration and BT sections with charts and readings', () => {
    for (const heading of ['Do listeners agree?', 'Does the judge prefer', 'score gap is larger', 'Calibration', 'ranking from human votes']) {
      expect(html).toContain(heading);
    }
    expect(html.match(/<svg /g)!.length).toBe(3);
    expect(html.match(/class="reading"/g)!.length).toBeGreaterThanOrEqual(5);
    expect(html).toContain('<polyline'); // fitted logistic curve
    for (const s of report.bradley_terry.systems) expect(html).toContain(s.system);
  });

  it('escapes names from the bundle', () => {
    const evil = simulate({ systems: 3, items: 30, listeners: 4, careless: 0, attention: 0, seed: 1 });
    const rename = (s: string) => (s === 'oracle' ? '<b onmouseover=x>' : s);
    const renamed = {
      ...evil,
      items: evil.items.map((i) => ({ ...i, system_a: rename(i.system_a), system_b: rename(i.system_b) })),
      judgeScores: evil.judgeScores.map((j) => ({ ...j, system: rename(j.system) })),
    };
    const out = renderReportHtml(analyze(buildBundle(renamed), { btPrior: 0.1 }));
    expect(out).not.toContain('<b onmouseover');
    // React's entity for < and > (the string templates wrote &#60; and &#62;)
    expect(out).toContain('&lt;b onmouseover=x&gt;');
  });
});

/**
 * The MUSHRA section on the HTML page and the dashboard (one renderer, figure.tsx), drawn from a
 * simulated study written as a bundle, read back and analysed as `npm run analyze` does: the
 * numbers shown are the section's, and the dashboard's panel shows the same markup.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';
import { readBundle, writeBundle } from '../../analysis/bundle';
import { KindSections } from '../../analysis/kinds/sections';
import { analyze } from '../../analysis/report';
import { simulateMushra } from '../../analysis/simulate';
import { KIND_PANELS } from '../../client/reports/kind-panels';
import { MUSHRA_COLUMNS, type MushraSection } from './report';

const cells = (html: string, testId: string) =>
  [...html.slice(html.indexOf(`data-testid="${testId}"`)).split('</table>')[0].matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((m) => [...m[1].matchAll(/<td>(.*?)<\/td>/g)].map((c) => c[1]));
const dir = mkdtempSync(join(tmpdir(), 'earmark-mushra-figure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the MUSHRA section from a simulated, analysed bundle', async () => {
  const study = simulateMushra({ systems: 4, items: 12, listeners: 10, seed: 7, missReference: 2 });
  await writeBundle(dir, {
    items: study.items, votes: [], judgeScores: [], stimuli: study.stimuli,
    answerFiles: [{ file: 'mushra.csv', columns: MUSHRA_COLUMNS, rows: study.rows.map((c) => ({ cells: c })) }],
  });
  const report = analyze(await readBundle(dir));
  const section = (report as unknown as { mushra: MushraSection }).mushra;
  const html = renderToStaticMarkup(<KindSections report={report} />);

  it('is the registered section, with one accessible figure holding boxes and means', () => {
    expect(html).toContain('<section data-section="mushra"><h2>MUSHRA: scores against the hidden reference</h2>');
    expect(html).not.toContain('<h2>mushra</h2>');
    const svg = html.slice(html.indexOf('<svg'), html.indexOf('</svg>'));
    expect(svg).toContain('role="img" aria-label="MUSHRA: scores per stimulus with box plots and mean 95% intervals"');
    // 3 + 4 stimuli: a box (rect with its title) and a mean (circle) each
    expect(svg.match(/<rect [^>]*><title>/g)).toHaveLength(7);
    expect(svg.match(/<circle /g)).toHaveLength(7);
    const tts1 = section.systems.find((s) => s.system === 'tts-01')!;
    expect(svg).toContain(`tts-01: median ${tts1.median!.toFixed(1)}, quartiles [${tts1.iqr![0].toFixed(1)}, ${tts1.iqr![1].toFixed(1)}], whiskers [${tts1.whiskers![0].toFixed(1)}, ${tts1.whiskers![1].toFixed(1)}], n = ${tts1.n}`);
    expect(svg).toContain(`tts-01: mean ${tts1.mean!.toFixed(2)} [${tts1.ci95![0].toFixed(2)}, ${tts1.ci95![1].toFixed(2)}]`);
  });

  it('tabulates every stimulus with the section’s numbers, in its order', () => {
    expect(section.systems).toHaveLength(7);
    expect(cells(html, 'mushra-systems')).toEqual(section.systems.map((s) => [
      s.system,
      { reference: 'hidden reference', anchor35: 'anchor 3.5 kHz', anchor70: 'anchor 7 kHz', condition: 'system' }[s.role],
      String(s.n), s.mean!.toFixed(2), `[${s.ci95![0].toFixed(2)}, ${s.ci95![1].toFixed(2)}]`, s.sd!.toFixed(2),
      s.median!.toFixed(1), `[${s.iqr![0].toFixed(1)}, ${s.iqr![1].toFixed(1)}]`, `[${s.whiskers![0].toFixed(1)}, ${s.whiskers![1].toFixed(1)}]`,
      s.rank === null ? '—' : String(s.rank), s.rank_ci === null ? '—' : String(s.rank_ci),
    ]));
    // the truth's order of the systems under test: tts-01 best
    expect(section.systems.filter((s) => s.role === 'condition').map((s) => s.system)).toEqual(['tts-01', 'tts-02', 'tts-03', 'tts-04']);
  });

  it('lists the listeners the post-screening excluded with both fractions', () => {
    expect(section.screening.applied).toBe(true);
    expect(section.screening.excluded.map((e) => e.listener_id).sort()).toEqual(study.truth.missesReference);
    expect(cells(html, 'mushra-screening')).toEqual(section.screening.excluded.map((e) => [
      e.listener_id, `${(100 * e.reference_below_90!).toFixed(1)}%`, e.anchor70_above_90 === null ? '—' : `${(100 * e.anchor70_above_90).toFixed(1)}%`,
    ]));
    expect(html).toContain('Post-screening (BS.1534-3 §4.1.2): 2 listener(s) excluded');
  });

  it('is what the dashboard’s registered panel draws, with its save button', () => {
    const Panel = KIND_PANELS.mushra!.Panel!;
    const panel = renderToStaticMarkup(<Panel section={section} study="demo" />);
    expect(panel).toContain('data-testid="dash-mushra"');
    expect(panel).toContain('Save the MUSHRA figure (SVG)');
    const figure = (markup: string) => markup.slice(markup.indexOf('<svg'), markup.lastIndexOf('</table>'));
    expect(figure(panel)).toBe(figure(html));
  });
});

import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BarChart } from './BarChart';
import { MosChart } from './MosChart';

const xs = (svg: string) => [...svg.matchAll(/<line x1="([-\d.]+)" x2="([-\d.]+)"/g)].flatMap((m) => [Number(m[1]), Number(m[2])]);

describe('shared figures', () => {
  it('keep a MOS interval wider than the scale inside the plot', () => {
    const svg = renderToStaticMarkup(<MosChart scale={[1, 5]} systems={[{ system: 'a', rank: 1, n: 4, mos: 3, ci95: [0.09, 5.91] }]} />);
    // plot from nameW + 8 = 158 to nameW + plotW − 8 = 562
    for (const x of xs(svg)) expect(x).toBeGreaterThanOrEqual(158);
    for (const x of xs(svg)) expect(x).toBeLessThanOrEqual(562);
  });

  it('tell bar kinds apart without colour: solid, hollow and muted marks, named in a legend inside the figure', () => {
    const svg = renderToStaticMarkup(
      <BarChart name="v" title="Votes per item" values={[3, 2, 1]} labels={['1', '2', '3']} styles={['solid', 'hollow', 'muted']}
        legend={[{ style: 'solid', label: 'pairs' }, { style: 'hollow', label: 'attention checks' }, { style: 'muted', label: 'practice' }]} />,
    );
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*role="img" aria-label="Votes per item"[^>]*><title>Votes per item<\/title>/);
    const fills = [...svg.matchAll(/<rect x="[\d.]+" width="[\d.]+" y="[\d.]+" height="[\d.]+" fill="(#[0-9a-f]+)"/g)].map((m) => m[1]);
    expect(new Set(fills).size).toBe(3);
    expect(fills).toContain('#ffffff'); // the hollow bar
    for (const label of ['pairs', 'attention checks', 'practice']) expect(svg).toContain(`>${label}</text>`);
  });
});

import { describe, expect, it } from 'vitest';
import { buildBundle } from './bundle';
import { renderReportHtml } from './html';
import { analyze } from './report';
import { simulate, simulateRatings } from './simulate';

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

/** The figures of a page: each inline <svg>…</svg>, and each download link's file decoded. */
function figures(html: string) {
  const inline = html.match(/<svg [\s\S]*?<\/svg>/g) ?? [];
  const links = [...html.matchAll(/<a href="data:image\/svg\+xml;charset=utf-8,([^"]*)" download="([^"]+)"/g)]
    .map((m) => ({ file: m[2], svg: decodeURIComponent(m[1].replace(/&amp;/g, '&')) }));
  return { inline, links };
}

const sections = (html: string) => [...html.matchAll(/data-section="([^"]+)"/g)].map((m) => m[1]);

describe('the page is components', () => {
  const html = renderReportHtml(analyze(buildBundle(simulate({ systems: 6, items: 60, listeners: 9, careless: 1, attention: 6, seed: 5 })), { bootstrap: { n: 30, seed: 2 } }));

  it('escapes hostile names everywhere: systems, judges, listeners, items, utterances, in text, titles and saved figures', () => {
    const study = simulate({ systems: 3, items: 30, listeners: 4, careless: 0, attention: 2, seed: 1 });
    const evil = {
      oracle: '<script>alert("s")</script>',
      'judge-1': '<img src=x onerror=alert(1)>',
      L1: '"><svg onload=alert(2)>',
    } as Record<string, string>;
    const bad = (s: string) => evil[s] ?? s;
    const hostile = {
      ...study,
      items: study.items.map((i) => ({ ...i, item_id: i.attention ? i.item_id : `${i.item_id}</td><b>`, utterance_id: `${i.utterance_id}&amp;<i>`, system_a: bad(i.system_a), system_b: bad(i.system_b) })),
      votes: study.votes.map((v) => ({ ...v, item_id: v.item_id.startsWith('item') ? `${v.item_id}</td><b>` : v.item_id, listener_id: bad(v.listener_id) })),
      judgeScores: study.judgeScores.map((j) => ({ ...j, utterance_id: `${j.utterance_id}&amp;<i>`, system: bad(j.system), judge: bad(j.judge) })),
    };
    const html = renderReportHtml(analyze(buildBundle(hostile), { btPrior: 0.1 }));
    for (const raw of ['<script', '<img', '<svg onload', '</td><b>', '&amp;<i>', 'onerror=alert(1)>']) expect(html).not.toContain(raw);
    expect(html).toContain('&lt;script&gt;alert(&quot;s&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&amp;amp;&lt;i&gt;');
    // The saved figures are escaped SVG too: a name is text in them, never markup.
    const { links } = figures(html);
    expect(links.length).toBe(3);
    for (const { svg } of links) {
      expect(svg).not.toMatch(/<script|<img|onload=|onerror=alert\(1\)>/);
    }
    expect(links.find((l) => l.file === 'bradley-terry.svg')!.svg).toContain('&lt;script&gt;');
  });

  it('draws self-contained, named figures and offers each as the very SVG shown', () => {
    const { inline, links } = figures(html);
    expect(inline.length).toBe(3);
    expect(links.map((l) => l.file)).toEqual(['agreement-by-gap.svg', 'calibration-ensemble.svg', 'bradley-terry.svg']);
    for (const svg of inline) {
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      expect(svg).toMatch(/^<svg [^>]*role="img"[^>]*aria-label="[^"]+"/);
      expect(svg).toMatch(/^<svg [^>]*><title>[^<]+<\/title><desc>/);
      expect(svg).toMatch(/^<svg [^>]*font-family="[^"]+"/);
      // nothing outside the file: no links, no stylesheet classes, no CSS variables, no url() fills
      expect(svg).not.toMatch(/href|class=|var\(--|url\(|<style|<image|<foreignObject/i);
      // every mark carries its own colour
      for (const mark of svg.match(/<(circle|line|polyline|rect)\b[^>]*>/g)!) expect(mark).toMatch(/ (fill|stroke)="#[0-9a-f]{6}"/);
    }
    // the download is the figure shown (React escapes & in the attribute, as in the page's markup)
    expect(links.map((l) => l.svg)).toEqual(inline.map((s) => s.replace(/&amp;/g, '&')));
  });

  it('has the pair sections and the quality view, and no rating section, in a pair report', () => {
    expect(sections(html)).toEqual(['listener-quality', 'reliability', 'items', 'judges', 'buckets', 'calibration', 'ranking']);
    expect(html).not.toContain('MOS');
  });

  it('has the rating sections and the quality view, and no pair section, in a rating report', () => {
    const page = renderReportHtml(analyze(buildBundle(simulateRatings({ systems: 3, items: 30, listeners: 6, careless: 0, attention: 3, seed: 2 }))));
    expect(sections(page)).toEqual(['listener-quality', 'ratings']);
    for (const pairWords of ['Krippendorff’s α (nominal)', 'Bradley', 'Does the judge', 'majority']) expect(page).not.toContain(pairWords);
    expect(page).toContain('data-table="spread"');
    expect(page).toContain('data-table="clips"');
    expect(figures(page).links.map((l) => l.file)).toEqual(['mos.svg']);
  });

  it('says nothing about ranking one system, nor about rank correlations over two', () => {
    const one = renderReportHtml(analyze(buildBundle(simulateRatings({ systems: 1, items: 12, listeners: 4, careless: 0, attention: 0, seed: 3 }))));
    expect(one).toContain('One system was rated (tts-01), so there is nothing to rank.');
    expect(one).not.toMatch(/ahead of every other system|cannot separate|rank_ci|<th class="n">rank<\/th>/);
    const two = renderReportHtml(analyze(buildBundle(simulate({ systems: 2, items: 30, listeners: 5, careless: 0, attention: 0, seed: 3 }))));
    expect(two).toContain('can only be +1 or −1');
    expect(two).not.toContain('correlates with the human ranking');
    expect(html).toMatch(/correlates with the human ranking at ρ = [0-9.−-]+ \(τ-b = [0-9.−-]+\) over 6 systems/);
  });

  it('names the careless listener who passed the attention checks', () => {
    const sim = simulate({ systems: 8, items: 160, listeners: 12, careless: 3, carelessPassing: 1, attention: 8, seed: 12 });
    const page = renderReportHtml(analyze(buildBundle(sim)));
    const [sneaky] = sim.truth.carelessPassing;
    expect(page).toMatch(new RegExp(`Retained but flagged: ${sneaky} \\(attention \\d+/8, agreement `));
    // first row of the quality table
    expect(page).toMatch(new RegExp(`data-table="listener-quality"><thead>.*?</thead><tbody><tr><td>${sneaky}</td><td>retained</td>`));
  });
});

/**
 * The paper bundle end to end: simulated pair, rating and A/B bundles (simulate CLI `--kind`),
 * with a system, the study's title and its instructions renamed to hold LaTeX's specials, go
 * through `analyze --format paper`; a real pdflatex compiles tables.tex inside a small document
 * (no skipping: a machine without pdflatex fails here, and .ci/run installs it); numbers.json
 * holds the very numbers of `--format json`; a second run gives the same bytes; the figures are
 * the HTML report's own markup. A registered kind's section gets generic tables, or its own.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli.test-support';
import { buildBundle } from '../bundle';
import { registerYesNo, yesno, YESNO_COLUMNS } from '../kinds/yesno.test-kind';
import type { Report } from '../report';
import { analyzeStudy, reportHeader, resolveSettings, type StudySettings } from '../study-settings';
import { paperFiles } from './index';
import { cell, renderTables, tex } from './latex';

const run = promisify(execFile);
const SPECIAL = 'sys_1 & 50% #1';
const TITLE = 'Captions_v2 & friends: 100% #real';
const INSTRUCTIONS = 'Listen to each clip **with headphones**.\nThen choose the caption that fits_best: 100% & #honest.\n```\nnot a fence\n```';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'earmark-paper-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function files(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[relative(root, path)] = await readFile(path, 'utf8');
  }
  return out;
}

/** pdflatex on a document that loads booktabs only and \input-s the tables; its exit code and log. */
async function compile(tablesTex: string, name: string): Promise<{ code: number; log: string }> {
  const doc = join(dir, `${name}.tex`);
  await writeFile(doc, `\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{${tablesTex}}\n\\end{document}\n`);
  try {
    const { stdout } = await run('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', '-no-shell-escape', `-output-directory=${dir}`, doc], { cwd: dir });
    return { code: 0, log: stdout };
  } catch (e) {
    const err = e as { code: number | string; stdout?: string; message: string };
    return { code: typeof err.code === 'number' ? err.code : -1, log: err.stdout || err.message };
  }
}

/** A simulated bundle of that kind with SPECIAL as one system's name and a study.json quoting the methods. */
async function bundle(kind: 'pair' | 'rating' | 'ab'): Promise<string> {
  const out = join(dir, `${kind}-bundle`);
  const sim = await cli('simulate-cli.ts', ['--kind', kind, '--systems', '5', '--items', '40', '--listeners', '9', '--careless', '2', '--attention', '4', '--seed', '3', '--out', out]);
  expect(sim.code, sim.stderr).toBe(0);
  const renamed = kind === 'pair' ? 'system-01' : 'tts-01';
  for (const file of await readdir(out)) {
    if (!file.endsWith('.csv')) continue;
    const text = await readFile(join(out, file), 'utf8');
    await writeFile(join(out, file), text.replaceAll(renamed, SPECIAL));
  }
  const study: StudySettings = {
    study: `paper-${kind}`, exportedAt: '2026-12-03T12:00:00.000Z', minAttention: 0.75, splitThreshold: 0.75,
    rules: {}, linkParameters: [], title: TITLE,
    ...(kind === 'rating' && { ratingScale: [1, 5] as [number, number] }),
    methods: {
      design: 'Fully crossed: every listener heard every item.',
      instructions: INSTRUCTIONS,
      question: 'Which caption describes the speaking style better?',
      ...(kind === 'rating' && { scale: { labels: ['Bad', 'Poor', 'Fair', 'Good', 'Excellent'].map((label, i) => ({ value: i + 1, label })), increment: 1 } }),
      screening: { kind: 'huggins', required: true },
      loudness: { normalize: true, measure: 'speech-level', target: -26, dither: true },
      processing: 'Served as 48 kHz FLAC copies, normalised to the target and dithered.',
    },
  };
  await writeFile(join(out, 'study.json'), JSON.stringify(study));
  return out;
}

const paperRuns: Record<string, { paper: Record<string, string>; again: Record<string, string>; report: Report; html: string }> = {};

describe.each(['pair', 'rating', 'ab'] as const)('the paper bundle of a simulated %s study', (kind) => {
  beforeAll(async () => {
    const b = await bundle(kind);
    const [p1, p2, json, html] = [join(dir, `${kind}-paper`), join(dir, `${kind}-paper-again`), join(dir, `${kind}.json`), join(dir, `${kind}.html`)];
    for (const [format, out] of [['paper', p1], ['paper', p2], ['json', json], ['html', html]]) {
      const r = await cli('cli.ts', [b, '--format', format, '--out', out]);
      expect(r.code, r.stderr).toBe(0);
    }
    // Rebuilt into the directory it was written to: still the same files, nothing left over.
    expect((await cli('cli.ts', [b, '--format', 'paper', '--out', p1])).code).toBe(0);
    paperRuns[kind] = { paper: await files(p1), again: await files(p2), report: JSON.parse(await readFile(json, 'utf8')), html: await readFile(html, 'utf8') };
  }, 120_000);

  it('writes tables.tex, numbers.json, methods.md, paper.bib and SVG figures, byte-identical when rebuilt', () => {
    const { paper, again } = paperRuns[kind];
    expect(Object.keys(paper)).toEqual(expect.arrayContaining(['tables.tex', 'numbers.json', 'methods.md', 'paper.bib']));
    expect(Object.keys(paper).filter((f) => f.startsWith('figures/')).length).toBeGreaterThan(0);
    expect(Object.keys(paper).sort()).toEqual(Object.keys(again).sort());
    for (const name of Object.keys(paper)) expect(paper[name], name).toBe(again[name]);
    // The only time in the bundle is the export's, from study.json.
    expect(paper['methods.md']).toContain('Data exported 2026-12-03T12:00:00.000Z.');
  });

  it('compiles with pdflatex, the specials of names escaped', async () => {
    const { paper } = paperRuns[kind];
    expect(paper['tables.tex']).toContain('sys\\_1 \\& 50\\% \\#1');
    expect(paper['tables.tex']).not.toContain(SPECIAL);
    const r = await compile(join(dir, `${kind}-paper`, 'tables.tex'), `wrapper-${kind}`);
    expect(r.code, r.log.slice(-3000)).toBe(0);
    expect(r.log).toMatch(/Output written on .*wrapper-[a-z]+\.pdf/);
  }, 60_000);

  it('quotes the instructions verbatim in methods.md, with the listeners, the rules and the processing', () => {
    const { paper, report } = paperRuns[kind];
    const methods = paper['methods.md'];
    expect(methods).toContain(`# Methods: ${TITLE} (paper-${kind})`);
    expect(methods).toContain(`\`\`\`\`text\n${INSTRUCTIONS}\n\`\`\`\``);
    expect(methods).toContain(`- Recruited: ${report.listeners.total}. Retained: ${report.listeners.retained}. Excluded: ${report.listeners.excluded.length}.`);
    for (const e of report.listeners.excluded) expect(methods).toContain(`| \`${e.listener_id}\` | ${e.reasons.map((r) => `\`${r}\``).join(', ')} |`);
    expect(methods).toContain('- `attention`: attention checks ≥ 75% right');
    expect(methods).toContain('- Headphone screening: `huggins`, passing required to continue.');
    expect(methods).toContain('- target: -26');
    expect(methods).toContain('Served as 48 kHz FLAC copies');
    if (kind === 'rating') expect(methods).toContain('  - 5: Excellent');
  });

  it('draws the figures with the HTML report\'s renderer', () => {
    const { paper, html } = paperRuns[kind];
    const name = kind === 'rating' ? 'figures/mos.svg' : 'figures/bradley-terry.svg';
    const svg = paper[name].replace(/^<\?xml[^>]*>\n/, '').trimEnd();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(html).toContain(svg);
  });
});

describe('numbers.json holds the numbers of --format json', () => {
  it('pair: Tables 10–13, the calibration and the BT strengths, unrounded', () => {
    const { paper, report } = paperRuns.pair;
    const n = JSON.parse(paper['numbers.json']);
    const r = report.reliability;
    for (const key of ['items', 'votes', 'krippendorff_alpha', 'fleiss_kappa', 'brennan_prediger_kappa', 'mean_pairwise_agreement', 'split', 'lopsided', 'unanimous'] as const) {
      expect(n['table10-reliability'][key].value, key).toBe(r[key]);
    }
    expect(n['table10-reliability'].listeners_total.value).toBe(report.listeners.total);
    expect(n['table10-reliability'].listeners_retained.value).toBe(report.listeners.retained);
    expect(n['table10-reliability'].attention_pass_rate.value).toBe(report.listeners.attention_pass_rate);
    for (const [reason, count] of Object.entries(report.listeners.excluded_by_reason)) expect(n['table10-reliability'][`excluded_${reason}`].value).toBe(count);
    expect(report.judges.length).toBeGreaterThan(1);
    for (const j of report.judges) {
      expect(n['table11-judges'][j.judge]).toEqual({ n: j.n, n_delta_zero: j.n_delta_zero, agreement: j.agreement, ci95: j.ci95, cohen_kappa: j.cohen_kappa, p_value: j.p_value });
      for (const b of j.buckets) expect(n['table12-buckets'][`${j.judge}/B${b.bucket}`]).toEqual({ lo: b.lo, hi: b.hi, n: b.n, agreement: b.agreement, ci95: b.ci95, p_value: b.p_value });
      const { bins: _, ...fit } = j.calibration;
      expect(n.calibration[j.judge]).toEqual(fit);
      expect(n['table13-ranking'][j.judge]).toEqual(j.ranking);
    }
    expect(Object.keys(n['bradley-terry'])).toEqual(report.bradley_terry.systems.map((s) => s.system));
    for (const { system, ...s } of report.bradley_terry.systems) expect(n['bradley-terry'][system]).toEqual(s);
    expect(n['bradley-terry'][SPECIAL]).toBeDefined();
  });

  it('rating: the MOS table and the reliability', () => {
    const { paper, report } = paperRuns.rating;
    const n = JSON.parse(paper['numbers.json']);
    const ratings = report.ratings!;
    for (const { system, ...s } of ratings.systems) expect(n.mos[system]).toEqual(s);
    expect(n['ratings-reliability'].krippendorff_alpha_interval.value).toBe(ratings.reliability.krippendorff_alpha_interval);
    expect(n['ratings-reliability'].krippendorff_alpha_ordinal.value).toBe(ratings.reliability.krippendorff_alpha_ordinal);
    expect(n['ratings-reliability'].votes.value).toBe(ratings.votes);
    expect(n['table10-reliability']).toBeUndefined();
    expect(paper['paper.bib']).toContain('@techreport{itu-p800,');
    expect(paper['paper.bib']).not.toContain('bradley1952');
  });

  it('A/B: Table 10 with the ties, and the ties per system pair', () => {
    const { paper, report } = paperRuns.ab;
    const n = JSON.parse(paper['numbers.json']);
    const ties = report.reliability.ties!;
    expect(ties.votes).toBeGreaterThan(0);
    expect(n['table10-reliability'].ties.value).toBe(ties.votes);
    expect(n['table10-reliability'].krippendorff_alpha.value).toBe(report.reliability.krippendorff_alpha);
    for (const p of ties.per_system_pair) expect(n['ab-ties'][JSON.stringify([p.system_a, p.system_b])]).toEqual({ votes: p.votes, ties: p.ties });
    expect(paper['paper.bib']).toContain('@article{bradley1952,');
    expect(paper['paper.bib']).toContain('@book{krippendorff2004,');
  });
});

describe('a registered kind in the paper', () => {
  const ITEMS = ['item_id,utterance_id,system_a,system_b,attention,expected,kind', 'i1,u1,tts_a,,0,,yesno', 'i2,u2,tts_a,,0,,yesno', 'i3,u3,human & co,,0,,yesno', 'chk,u4,human & co,,1,yes,yesno'];
  const ANSWERS = [['i1', 'l1', 'no'], ['i2', 'l1', 'yes'], ['i3', 'l1', 'yes'], ['chk', 'l1', 'yes'], ['i1', 'l2', 'yes'], ['i3', 'l2', 'yes'], ['chk', 'l2', 'yes']];
  const study = { study: 'yn', exportedAt: '2026-12-03T07:00:00.000Z', minAttention: 0.75, splitThreshold: 0.75, rules: {}, linkParameters: [], trial: { kind: 'yesno' } };
  const files = async () => {
    const b = buildBundle({
      items: ITEMS.slice(1).map((l) => l.split(',')).map(([item_id, utterance_id, system_a, , attention, expected]) => ({
        item_id, utterance_id, system_a, system_b: '', attention: attention === '1', expected: expected || null, kind: 'yesno',
      })),
      votes: [], judgeScores: [], study,
      answerFiles: [{ file: 'yesno.csv', columns: YESNO_COLUMNS, rows: ANSWERS.map(([item_id, listener_id, answer]) => ({ cells: { item_id, listener_id, answer }, extra: {} })) }],
    });
    const settings = resolveSettings(b.study);
    const report = analyzeStudy(b, settings);
    return Object.fromEntries(paperFiles(b, report, reportHeader(b, settings), settings, { buckets: 5, btPrior: 0, bootstrap: null }));
  };

  it('writes its section as generic tables (a column per field) that compile, or as its own paperTables', async () => {
    const unregister = registerYesNo();
    try {
      const generic = await files();
      const numbers = JSON.parse(generic['numbers.json']);
      expect(numbers['quality-control'].listeners_total.value).toBe(2);
      expect(numbers['yesno-systems']).toEqual({ '["tts_a"]': { n: 3, yes: 2, share_yes: 2 / 3 }, '["human & co"]': { n: 2, yes: 2, share_yes: 1 } });
      expect(generic['tables.tex']).toContain('human \\& co & $2$ & $2$ & $1$ \\\\');
      expect(generic['tables.tex']).toContain('share\\_yes');
      await writeFile(join(dir, 'yesno-tables.tex'), generic['tables.tex']);
      const r = await compile(join(dir, 'yesno-tables.tex'), 'wrapper-yesno');
      expect(r.code, r.log.slice(-3000)).toBe(0);

      yesno.paperTables = (section) => [{
        id: 'yesno-own', caption: 'Own.', columns: [{ key: 'system', head: 'System', align: 'l' }, { key: 'yes', head: 'Yes', align: 'r' }],
        rows: section.systems.map((s) => ({ key: s.system, cells: [cell.text(s.system), cell.int(s.yes)] })),
      }];
      const own = JSON.parse((await files())['numbers.json']);
      expect(own['yesno-own']).toEqual({ tts_a: { yes: 2 }, 'human & co': { yes: 2 } });
      expect(own['yesno-systems']).toBeUndefined();
    } finally {
      delete yesno.paperTables;
      unregister();
    }
  });
});

describe('LaTeX text', () => {
  it('escapes every special, and a study id cannot break out of the heading comment', async () => {
    expect(tex('a_b & c% #d $e {f} ~g ^h \\i <j> |k')).toBe('a\\_b \\& c\\% \\#d \\$e \\{f\\} \\~{}g \\^{}h $\\backslash$i $<$j$>$ $|$k');
    const t = renderTables([{ id: 'x', caption: tex('all of _&%#$~^\\{}<>|'), columns: [{ key: 'k', head: 'K', align: 'l' }], rows: [{ key: 'r', cells: [cell.text('_&%#$~^\\{}<>|')] }] }], 'study\n\\bad');
    expect(t.split('\n')[0]).toBe('% study \\bad');
    await writeFile(join(dir, 'specials.tex'), t);
    const r = await compile(join(dir, 'specials.tex'), 'wrapper-specials');
    expect(r.code, r.log.slice(-3000)).toBe(0);
  }, 60_000);
});

describe.each([
  ['mushra', ['figures/mushra.svg']],
  ['tags', ['figures/tags-confusion-emotion.svg']],
] as const)('a simulated %s study’s own figures', (kind, figures) => {
  it('are in figures/ as the HTML section draws them, and its tables compile', async () => {
    const b = join(dir, `${kind}-bundle`);
    const sim = await cli('simulate-cli.ts', ['--kind', kind, '--out', b, '--seed', '2', '--items', '24', '--listeners', '8']);
    expect(sim.code, sim.stderr).toBe(0);
    const [out, html] = [join(dir, `${kind}-paper`), join(dir, `${kind}.html`)];
    for (const [format, to] of [['paper', out], ['html', html]]) expect((await cli('cli.ts', [b, '--format', format, '--out', to])).code).toBe(0);
    const paper = await files(out);
    const page = await readFile(html, 'utf8');
    for (const name of figures) {
      expect(Object.keys(paper), name).toContain(name);
      expect(page).toContain(paper[name].replace(/^<\?xml[^>]*>\n/, '').trimEnd());
    }
    const r = await compile(join(out, 'tables.tex'), `wrapper-${kind}`);
    expect(r.code, r.log.slice(-3000)).toBe(0);
  }, 120_000);
});

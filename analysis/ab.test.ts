/**
 * The A/B preference kind in the analysis (docs/analysis-spec.md §6, `ab`): items.csv's `kind`,
 * ties in votes.csv, and the report — the pair analysis with the ties left out and counted.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleError, buildBundle, itemKind, readBundle, writeBundle, type BundleItem, type BundleVote, type JudgeScore } from './bundle';
import { reportCsvFiles } from './csv-report';
import { renderReportHtml } from './html';
import { analyze, type Report } from './report';
import { simulate } from './simulate';
import { abRespondent, chosenSide } from '../trials/ab/simulate';
import { krippendorffAlphaNominal } from './stats/krippendorff-alpha';
import { spearmanRho } from './stats/spearman';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'earmark-ab-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));
let n = 0;
async function bundleDir(files: Record<string, string>): Promise<string> {
  const d = join(dir, `b${++n}`);
  await writeBundle(d, { items: [], votes: [], judgeScores: [] });
  for (const f of ['items.csv', 'votes.csv', 'judge_scores.csv']) await rm(join(d, f));
  for (const [name, text] of Object.entries(files)) await writeFile(join(d, name), text);
  return d;
}
async function refusedBy(d: string): Promise<BundleError> {
  try {
    await readBundle(d);
  } catch (e) {
    expect(e).toBeInstanceOf(BundleError);
    return e as BundleError;
  }
  throw new Error('bundle was not refused');
}

const abItem = (id: string, a: string, b: string): BundleItem =>
  ({ item_id: id, utterance_id: `u-${id}`, system_a: a, system_b: b, attention: false, expected: null, kind: 'ab' });
const abCheck = (id: string, expected: 'a' | 'b'): BundleItem =>
  ({ item_id: id, utterance_id: `u-${id}`, system_a: expected === 'a' ? 'clean' : 'degraded', system_b: expected === 'a' ? 'degraded' : 'clean', attention: true, expected, kind: 'ab' });
const vote = (item_id: string, listener_id: string, chosen: BundleVote['chosen'], first: 'a' | 'b' = 'a'): BundleVote =>
  ({ item_id, listener_id, first, chosen, extra: { response_ms: 3000 } });
const score = (utterance_id: string, system: string, s: number): JudgeScore => ({ utterance_id, system, judge: 'mos', run: '1', score: s });

/**
 * Three systems, three ab items and a check; L4 fails the check and is excluded. Ties (retained
 * listeners, ordinary items): i1 by L3, i2 by L1 and L2 — L4's tie on i3 is an excluded
 * listener's. The other votes: i1 a, a; i2 a; i3 b, a, b.
 */
function handStudy() {
  const items = [abItem('i1', 'X', 'Y'), abItem('i2', 'Y', 'Z'), abItem('i3', 'Z', 'X'), abCheck('c1', 'a')];
  const votes = [
    vote('c1', 'L1', 'a'), vote('c1', 'L2', 'a'), vote('c1', 'L3', 'a', 'b'), vote('c1', 'L4', 'b'),
    vote('i1', 'L1', 'a'), vote('i1', 'L2', 'a', 'b'), vote('i1', 'L3', 'tie'), vote('i1', 'L4', 'b'),
    vote('i2', 'L1', 'tie', 'b'), vote('i2', 'L2', 'tie'), vote('i2', 'L3', 'a'),
    vote('i3', 'L1', 'b'), vote('i3', 'L2', 'a', 'b'), vote('i3', 'L3', 'b'), vote('i3', 'L4', 'tie'),
  ];
  // The judge is an automatic score of each rendition, keyed (utterance, system). u-i2's X and
  // u-i1's Z are renditions no item compares: the join by (utterance, system) leaves them out.
  const judgeScores = [
    score('u-i1', 'X', 4), score('u-i1', 'Y', 3), score('u-i1', 'Z', 1),
    score('u-i2', 'Y', 2.5), score('u-i2', 'Z', 3.5), score('u-i2', 'X', 1),
    score('u-i3', 'Z', 3), score('u-i3', 'X', 4.5),
  ];
  return { items, votes, judgeScores, extraVoteColumns: ['response_ms'] };
}

/** The same study as a caption-pair study: no kind, the tie rows deleted. */
function withoutTies(study: ReturnType<typeof handStudy>) {
  return {
    ...study,
    items: study.items.map(({ kind: _, ...item }) => item),
    votes: study.votes.filter((v) => v.chosen !== 'tie'),
  };
}

/** Everything but the ties and the listeners' answer counts (which count ties as answers). */
function statistics(report: Report) {
  const { ties: _, ...reliability } = report.reliability;
  return {
    ...report, reliability,
    items: report.items?.map(({ ties: __, ...item }) => item),
    listener_quality: report.listener_quality.map(({ answers: __, ...q }) => q),
  };
}

describe('the A/B report on a hand-worked study', () => {
  const study = handStudy();
  const report = analyze(buildBundle(study));

  it('counts the ties of retained listeners on ordinary items, per system pair in ordinal order', () => {
    // i1 (X, Y): 2 votes + 1 tie; i2 (Y, Z): 1 vote + 2 ties; i3 (Z, X), named X, Z: 3 votes, no tie.
    expect(report.reliability.ties).toEqual({
      votes: 3,
      per_system_pair: [
        { system_a: 'X', system_b: 'Y', ties: 1, votes: 3 },
        { system_a: 'X', system_b: 'Z', ties: 0, votes: 3 },
        { system_a: 'Y', system_b: 'Z', ties: 2, votes: 3 },
      ],
    });
  });

  it('leaves the ties out of every statistic', () => {
    expect(report.listeners).toMatchObject({ total: 4, retained: 3, attention_pass_rate: 3 / 4 });
    expect(report.reliability).toMatchObject({ items: 3, votes: 6, unanimous: 2, lopsided: 0, split: 1 });
    expect(report.reliability.krippendorff_alpha).toBeCloseTo(krippendorffAlphaNominal([[2, 0], [1, 0], [1, 2]])!, 14);
    expect(report.items!.map((i) => [i.item_id, i.votes, i.votes_a, i.votes_b, i.majority, i.ties])).toEqual([
      ['i1', 2, 2, 0, 'a', 1], ['i2', 1, 1, 0, 'a', 2], ['i3', 3, 1, 2, 'b', 0],
    ]);
    // X beats Y twice (i1), Y beats Z once (i2), X beats Z twice and Z beats X once (i3).
    expect(report.bradley_terry.comparisons).toBe(6);
    expect(report.bradley_terry.systems.map((s) => s.system)).toEqual(['X', 'Y', 'Z']);
  });

  it('compares the automatic scores of the renditions, joined by (utterance, system), with the majority', () => {
    // Δ = s(a) − s(b): i1 4 − 3 = 1 (a, majority a: agree), i2 2.5 − 3.5 = −1 (b, majority a:
    // disagree), i3 3 − 4.5 = −1.5 (b, majority b: agree).
    const ensemble = report.judges[0];
    expect(report.judges.map((j) => j.judge)).toEqual(['ensemble', 'mos']);
    expect([ensemble.n, ensemble.agreement]).toEqual([3, 2 / 3]);
    expect(ensemble.system_means).toEqual({ X: (4 + 4.5) / 2, Y: (3 + 2.5) / 2, Z: (3.5 + 3) / 2 });
  });

  it('is the report of the same bundle run as a pair study without its tie rows', () => {
    const pairs = analyze(buildBundle(withoutTies(study)));
    expect(pairs.reliability.ties).toBeUndefined();
    expect(statistics(report)).toEqual(statistics(pairs));
    // A tie is still one of the listener's answers.
    expect(report.listener_quality.map((q) => q.answers)).toEqual([3, 3, 3, 2]);
    expect(pairs.listener_quality.map((q) => q.answers)).toEqual([2, 2, 2, 1]);
  });

  it('counts a tie on an attention check as answered and wrong (the check expects the clean side)', () => {
    const tied = analyze(buildBundle({ ...study, items: [...study.items, abCheck('c2', 'b')], votes: [...study.votes, vote('c2', 'L1', 'tie')] }));
    expect(tied.listeners.excluded.map((e) => [e.listener_id, e.correct, e.answered])).toEqual([['L1', 1, 2], ['L4', 0, 1]]);
    expect(tied.listeners.attention_pass_rate).toBe(3 / 5);
  });

  it('feeds the ties to the listener rules as answers (their response times)', () => {
    const fast = { ...study, votes: study.votes.map((v) => (v.chosen === 'tie' && v.listener_id === 'L1' ? { ...v, extra: { response_ms: 10 } } : v)) };
    const bundle = buildBundle(fast);
    expect([...bundle.ties.responseMs!]).toEqual([3000, 10, 3000, 3000]);
  });

  it('shows the ties in the CSV and HTML reports', () => {
    const files = reportCsvFiles(report);
    expect(files['ties.csv'].split('\r\n')).toEqual(['system_a,system_b,ties,votes', 'X,Y,1,3', 'X,Z,0,3', 'Y,Z,2,3', '']);
    expect(files['reliability.csv'].split('\r\n')[0]).not.toContain('ties');
    expect(files['item_votes.csv'].split('\r\n').slice(0, 2)).toEqual([
      'item_id,utterance_id,system_a,system_b,votes,votes_a,votes_b,majority,majority_share,split,ties', 'i1,u-i1,X,Y,2,2,0,a,1,unanimous,1',
    ]);
    const pairFiles = reportCsvFiles(analyze(buildBundle(withoutTies(study))));
    expect(pairFiles['ties.csv']).toBeUndefined();
    expect(pairFiles['item_votes.csv'].split('\r\n')[0]).toBe('item_id,utterance_id,system_a,system_b,votes,votes_a,votes_b,majority,majority_share,split');
    const html = renderReportHtml(report);
    expect(html).toContain('Ties (no preference)');
    expect(html).toContain('<table data-table="ties">');
    expect(html).toContain('3 of the 9 votes of retained listeners on the A/B items were ties');
    expect(html).toContain('Two listeners picked the same rendition');
  });
});

const header = 'item_id,utterance_id,system_a,system_b,attention,expected';

describe('reading and writing an A/B bundle', () => {
  const votesHeader = 'item_id,listener_id,first,chosen\n';

  it('writes items.csv with kind last when the items carry their kind, stimuli.csv when given, and reads it back alike', async () => {
    const study = handStudy();
    const stimuli = study.items.flatMap((i) => [
      { item_id: i.item_id, slot: 0, role: 'a', system: i.system_a },
      { item_id: i.item_id, slot: 1, role: 'b', system: i.system_b },
    ]);
    const d = join(dir, 'written');
    await writeBundle(d, { ...study, stimuli });
    expect((await readdir(d)).sort()).toEqual(['items.csv', 'judge_scores.csv', 'stimuli.csv', 'votes.csv']);
    const items = (await readFile(join(d, 'items.csv'), 'utf8')).split('\r\n');
    expect(items[0]).toBe(`${header},kind`);
    expect(items[1]).toBe('i1,u-i1,X,Y,0,,ab');
    expect((await readFile(join(d, 'stimuli.csv'), 'utf8')).split('\r\n').slice(0, 2)).toEqual(['item_id,slot,role,system', 'i1,0,a,X']);
    expect((await readFile(join(d, 'votes.csv'), 'utf8'))).toContain('i1,L3,a,tie,3000');
    const read = await readBundle(d);
    expect(read.items).toEqual(study.items);
    const inMemory = buildBundle({ ...study, stimuli });
    expect(read.items).toEqual(inMemory.items);
    expect([read.votes.length, read.ties.length]).toEqual([11, 4]);
    expect([...read.ties.item]).toEqual([...inMemory.ties.item]);
    expect(analyze(read)).toEqual(analyze(inMemory));
  });

  it('reads a bundle without the kind column as before: pair, or rating where system_b is empty', async () => {
    const d = await bundleDir({ 'items.csv': `${header}\ni1,u1,A,B,0,\n`, 'votes.csv': `${votesHeader}i1,L1,a,b\n` });
    const b = await readBundle(d);
    expect(b.items).toEqual([{ item_id: 'i1', utterance_id: 'u1', system_a: 'A', system_b: 'B', attention: false, expected: null }]);
    expect(itemKind(b.items[0])).toBe('pair');
    expect(itemKind({ system_b: '' })).toBe('rating');
    expect(analyze(b).reliability.ties).toBeUndefined();
    // An empty kind cell reads as no kind.
    const empty = await readBundle(await bundleDir({ 'items.csv': `${header},kind\ni1,u1,A,B,0,,\n` }));
    expect(empty.items[0].kind).toBeUndefined();
  });

  it('refuses a tie on a pair item, naming file, line and field', async () => {
    for (const items of [`${header}\ni1,u1,A,B,0,\ni2,u2,A,B,0,\n`, `${header},kind\ni1,u1,A,B,0,,pair\ni2,u2,A,B,0,,pair\n`]) {
      const e = await refusedBy(await bundleDir({ 'items.csv': items, 'votes.csv': `${votesHeader}i1,L1,a,b\ni2,L1,b,tie\n` }));
      expect([e.file, e.line, e.column]).toEqual(['votes.csv', 3, '4 (chosen)']);
      expect(e.message).toContain('tie is an answer only on an ab item; item "i2" is a pair item');
    }
    const skipped = await readBundle(await bundleDir({ 'items.csv': `${header}\ni1,u1,A,B,0,\n`, 'votes.csv': `${votesHeader}i1,L1,a,tie\n` }), { skipInvalid: true });
    expect(skipped.skipped.by_reason).toEqual({ 'votes.csv: tie on a non-ab item': 1 });
  });

  it('refuses an unknown kind, and a kind its systems contradict', async () => {
    const kind = await refusedBy(await bundleDir({ 'items.csv': `${header},kind\ni1,u1,A,B,0,,mos9\n` }));
    expect([kind.file, kind.line, kind.column]).toEqual(['items.csv', 2, '7 (kind)']);
    expect(kind.problem).toBe('must be pair, rating, ab, abx, ccr, tags, mushra, describe or empty (the kinds this analysis reads; empty = pair, or rating where system_b is empty), got "mos9"');
    const oneSystem = await refusedBy(await bundleDir({ 'items.csv': `${header},kind\ni1,u1,A,B,0,,ab\ni2,u2,A,,0,,ab\n` }));
    expect([oneSystem.line, oneSystem.column, oneSystem.problem]).toEqual([3, '4 (system_b)', 'must not be empty: a ab item compares two systems, system_a and system_b']);
    const twoSystems = await refusedBy(await bundleDir({ 'items.csv': `${header},kind\ni1,u1,A,B,0,,rating\n` }));
    expect([twoSystems.line, twoSystems.column]).toEqual([2, '4 (system_b)']);
    expect(twoSystems.problem).toContain('must be empty for a rating item');
    const choice = await refusedBy(await bundleDir({ 'items.csv': `${header},kind\ni1,u1,A,B,0,,ab\n`, 'votes.csv': `${votesHeader}i1,L1,a,none\n` }));
    expect([choice.line, choice.column, choice.problem]).toEqual([2, '4 (chosen)', 'must be a, b or tie (tie only on an ab item)']);
  });

  it('reads a rating item that says its kind without ratings.csv as a rating study with no ratings yet', async () => {
    const b = await readBundle(await bundleDir({ 'items.csv': `${header},kind\nr1,u1,A,,0,,rating\n` }));
    expect(b.items).toEqual([{ item_id: 'r1', utterance_id: 'u1', system_a: 'A', system_b: '', attention: false, expected: null, kind: 'rating' }]);
    expect(b.ratings?.length).toBe(0);
    const report = analyze(b);
    expect(report.ratings?.votes).toBe(0);
    expect(report.items).toBeUndefined();
    expect(renderReportHtml(report)).not.toContain('data-section="votes"');
  });

  it('takes a bundle of items.csv alone: the report says what it leaves out', async () => {
    const d = await bundleDir({ 'items.csv': `${header},kind\ni1,u1,A,B,0,,ab\ni2,u2,B,C,0,,ab\nc1,u3,clean,degraded,1,a,ab\n` });
    const report = analyze(await readBundle(d));
    expect(report.listeners.total).toBe(0);
    expect(report.reliability).toMatchObject({ items: 0, votes: 0, krippendorff_alpha: null });
    expect(report.reliability.ties).toEqual({
      votes: 0, per_system_pair: [{ system_a: 'A', system_b: 'B', ties: 0, votes: 0 }, { system_a: 'B', system_b: 'C', ties: 0, votes: 0 }],
    });
    expect(report.judges).toEqual([]);
    const html = renderReportHtml(report);
    expect(html).toContain('This bundle has no votes of retained listeners (votes.csv is absent, has only its header, or holds attention checks only), so the sections computed from votes — reliability, the judges’ agreement and calibration, and the ranking — are left out. It has no judge scores either (judge_scores.csv is absent or empty).');
    expect(html).not.toContain('Do listeners agree?');
    expect(html).toContain('2 item(s) have no votes yet.');
    const cli = await promisify(execFile)(join(process.cwd(), 'node_modules/.bin/tsx'), ['analysis/cli.ts', d, '--format', 'json']);
    expect(cli.stderr).toContain('note: the bundle has no votes of retained listeners on its items (votes.csv absent or empty?): reliability, judges, calibration and ranking have nothing to compute');
    expect(cli.stderr).not.toContain('warning: Bradley–Terry');
  });
});

describe('ties change no other figure (property)', () => {
  it('adding ties of the listeners on items they left unanswered changes only the ties and the answer counts', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 100_000 }), fc.array(fc.tuple(fc.nat(5), fc.nat(11)), { maxLength: 30 }), (seed, extra) => {
      const study = simulate({ kind: 'ab', systems: 4, items: 12, listeners: 6, ratingsPerItem: 3, careless: 1, attention: 3, seed, tieRate: 0 });
      const base = analyze(buildBundle(study));
      const answered = new Set(study.votes.map((v) => `${v.listener_id}|${v.item_id}`));
      const ties: BundleVote[] = [];
      for (const [l, i] of extra) {
        const listener = `L${l + 1}`;
        const item = study.items[i].item_id;
        if (answered.has(`${listener}|${item}`)) continue;
        answered.add(`${listener}|${item}`);
        ties.push({ item_id: item, listener_id: listener, first: 'a', chosen: 'tie', extra: { response_ms: 3000 } });
      }
      const tied = analyze(buildBundle({ ...study, votes: [...study.votes, ...ties] }));
      expect(statistics(tied)).toEqual(statistics(base));
      const retained = new Set(base.listener_quality.filter((q) => q.retained).map((q) => q.listener_id));
      expect(tied.reliability.ties!.votes).toBe(ties.filter((t) => retained.has(t.listener_id)).length);
      const sum = (r: Report) => r.reliability.ties!.per_system_pair.reduce((s, p) => s + p.votes, 0);
      expect(sum(tied) - sum(base)).toBe(tied.reliability.ties!.votes);
    }), { numRuns: 40 });
  });
});

describe('the simulated A/B respondent', () => {
  const answers = (o: Parameters<typeof abRespondent>[1], trial: Parameters<ReturnType<typeof abRespondent>>[0], times = 4000) => {
    const respond = abRespondent(7, o);
    const counts = { A: 0, B: 0, tie: 0 };
    for (let k = 0; k < times; k++) counts[respond(trial)]++;
    return counts;
  };

  it('is reproduced by its seed', () => {
    const run = () => Array.from({ length: 50 }, ((r) => () => r({ tie: true }))(abRespondent(3)));
    expect(run()).toEqual(run());
  });

  it('ties most between equal systems, never when ties are not offered, and follows the strength gap', () => {
    const equal = answers({ tieRate: 0.2, positionBias: 0 }, { tie: true, gap: 0 });
    expect(equal.tie / 4000).toBeGreaterThan(0.17);
    expect(equal.tie / 4000).toBeLessThan(0.23);
    expect(answers({ tieRate: 0.2 }, { tie: false, gap: 0 }).tie).toBe(0);
    const apart = answers({ tieRate: 0.2, positionBias: 0 }, { tie: true, gap: 3 });
    expect(apart.tie / 4000).toBeLessThan(0.05);
    expect(apart.A / (apart.A + apart.B)).toBeGreaterThan(0.9);
  });

  it('answers attention checks right as an attentive listener, at random (ties included) as a careless one', () => {
    expect(answers({}, { tie: true, expected: 'B' }).B / 4000).toBeGreaterThan(0.95);
    const careless = answers({ careless: true }, { tie: true, expected: 'B' });
    for (const k of ['A', 'B', 'tie'] as const) expect(Math.abs(careless[k] / 4000 - 1 / 3)).toBeLessThan(0.04);
    expect(answers({ careless: true, passesChecks: true }, { tie: true, expected: 'B' }).B / 4000).toBeGreaterThan(0.95);
  });

  it('turns a screen answer into the item’s terms', () => {
    expect([chosenSide('A', 'a'), chosenSide('A', 'b'), chosenSide('B', 'a'), chosenSide('B', 'b'), chosenSide('tie', 'b')]).toEqual(['a', 'b', 'b', 'a', 'tie']);
  });
});

describe('simulate --kind ab', () => {
  it('writes ab items, ties and predictor scores, from which the report recovers the true order', () => {
    const study = simulate({ kind: 'ab', systems: 6, items: 600, listeners: 12, ratingsPerItem: 10, careless: 0, attention: 4, seed: 5 });
    expect(study.items.every((i) => i.kind === 'ab')).toBe(true);
    const ties = study.votes.filter((v) => v.chosen === 'tie').length;
    expect(ties / study.votes.length).toBeGreaterThan(0.02);
    expect(ties / study.votes.length).toBeLessThan(0.15);
    expect(new Set(study.judgeScores.map((s) => s.judge))).toEqual(new Set(['mos-predictor-1', 'mos-predictor-2']));
    const report = analyze(buildBundle(study));
    expect(report.reliability.ties!.votes).toBe(study.votes.filter((v) => v.chosen === 'tie' && !v.item_id.startsWith('check')).length);
    const systems = report.bradley_terry.systems;
    expect(spearmanRho(systems.map((s) => s.log_strength), systems.map((s) => study.truth.theta[s.system]))).toBeGreaterThanOrEqual(0.9);
    expect(report.judges[0].agreement).toBeGreaterThan(0.7);
    expect(simulate({ kind: 'ab', systems: 3, items: 30, listeners: 4, careless: 1, attention: 2, seed: 5, tieRate: 0 }).votes.some((v) => v.chosen === 'tie')).toBe(false);
  });
});

describe('npm run simulate / analyze on an A/B bundle', () => {
  const run = promisify(execFile);
  const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
  it('gives the pair sections with the ties, in JSON, CSV and HTML', async () => {
    const out = join(dir, 'sim-ab');
    await run(tsx, ['analysis/simulate-cli.ts', '--kind', 'ab', '--systems', '4', '--items', '40', '--listeners', '8', '--seed', '3', '--out', out]);
    expect((await readFile(join(out, 'items.csv'), 'utf8')).split('\r\n')[0]).toBe(`${header},kind`);
    const json = JSON.parse((await run(tsx, ['analysis/cli.ts', out, '--format', 'json'])).stdout) as Report;
    expect(json.reliability.ties!.votes).toBeGreaterThan(0);
    expect(json.judges.map((j) => j.judge)).toEqual(['ensemble', 'mos-predictor-1', 'mos-predictor-2']);
    expect(json.bradley_terry.systems).toHaveLength(4);
    await run(tsx, ['analysis/cli.ts', out, '--format', 'csv', '--out', join(out, 'csv')]);
    expect(await readdir(join(out, 'csv'))).toContain('ties.csv');
    await run(tsx, ['analysis/cli.ts', out, '--format', 'html', '--out', join(out, 'r.html')]);
    const html = await readFile(join(out, 'r.html'), 'utf8');
    for (const section of ['reliability', 'items', 'judges', 'buckets', 'calibration', 'ranking']) expect(html).toContain(`data-section="${section}"`);
    expect(html).toContain('Ties (no preference)');
  });
});

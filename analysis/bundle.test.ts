import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BundleError, buildBundle, bundleTexts, readBundle, writeBundle, type BundleItem, type BundleRating, type BundleVote, type JudgeScore } from './bundle';

const dirs: string[] = [];
async function tempDir() {
  const d = await mkdtemp(join(tmpdir(), 'earmark-bundle-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const items: BundleItem[] = [
  { item_id: 'i1', utterance_id: 'u1', system_a: 'sys, "quoted"', system_b: 'plain', attention: false, expected: null },
  { item_id: 'i2', utterance_id: 'u2\nline', system_a: 'plain', system_b: 'other', attention: false, expected: null },
  { item_id: 'c1', utterance_id: 'u3', system_a: 'true', system_b: 'false', attention: true, expected: 'a' },
];
const votes: BundleVote[] = [
  { item_id: 'i1', listener_id: 'L1', first: 'a', chosen: 'b', extra: { response_ms: 1234, note: 'a,b' } },
  { item_id: 'i2', listener_id: 'L1', first: 'b', chosen: 'a' },
  { item_id: 'c1', listener_id: 'L2', first: 'a', chosen: 'a' },
];
const judgeScores: JudgeScore[] = [
  { utterance_id: 'u1', system: 'sys, "quoted"', judge: 'j1', run: '1', score: 7.5 },
  { utterance_id: 'u1', system: 'plain', judge: 'j1', run: '1', score: -2e-3 },
];

async function writeFiles(dir: string, files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}
const goodItems = 'item_id,utterance_id,system_a,system_b,attention,expected\ni1,u1,A,B,0,\nc1,u2,T,F,1,b\n';
const goodVotes = 'item_id,listener_id,first,chosen\ni1,L1,a,b\nc1,L1,b,b\n';
const goodScores = 'utterance_id,system,judge,run,score\nu1,A,j,1,3\n';

/** The BundleError readBundle refuses `dir` with. */
async function refusedBy(dir: string): Promise<BundleError> {
  try {
    await readBundle(dir);
  } catch (e) {
    expect(e).toBeInstanceOf(BundleError);
    return e as BundleError;
  }
  throw new Error('bundle was not refused');
}

async function refusal(files: Record<string, string>): Promise<BundleError> {
  const dir = await tempDir();
  await writeFiles(dir, { 'items.csv': goodItems, 'votes.csv': goodVotes, 'judge_scores.csv': goodScores, ...files });
  return refusedBy(dir);
}

describe('writeBundle / readBundle', () => {
  it('round-trips records with RFC 4180 quoting, extra vote columns included and then ignored', async () => {
    const dir = await tempDir();
    await writeBundle(dir, { items, votes, judgeScores, extraVoteColumns: ['response_ms', 'note'] });
    const header = (await readFile(join(dir, 'votes.csv'), 'utf8')).split('\r\n')[0];
    expect(header).toBe('item_id,listener_id,first,chosen,response_ms,note');
    const b = await readBundle(dir);
    expect(b.items).toEqual(items);
    expect(b.judgeScores).toEqual(judgeScores);
    expect(b.listeners).toEqual(['L1', 'L2']);
    expect([...b.votes.item.subarray(0, 3)]).toEqual([0, 1, 2]);
    expect([...b.votes.chosenA.subarray(0, 3)]).toEqual([0, 1, 1]);
    expect([...b.votes.firstA.subarray(0, 3)]).toEqual([1, 0, 1]);
    expect(b.votes.length).toBe(3);
  });

  it('renders in memory exactly the files it writes (the export endpoint and the CLI agree)', async () => {
    const dir = await tempDir();
    const bundle = { items, votes, judgeScores, extraVoteColumns: ['response_ms', 'note'] };
    await writeBundle(dir, bundle);
    const texts = bundleTexts(bundle);
    for (const file of ['items.csv', 'votes.csv', 'judge_scores.csv'] as const) {
      expect(texts[file]).toBe(await readFile(join(dir, file), 'utf8'));
    }
    expect(texts['items.csv'].split('\r\n')[0]).toBe('item_id,utterance_id,system_a,system_b,attention,expected');
  });

  it('builds the same bundle from in-memory records', async () => {
    const dir = await tempDir();
    await writeBundle(dir, { items, votes, judgeScores });
    const fromDisk = await readBundle(dir);
    const fromMemory = buildBundle({ items, votes, judgeScores });
    expect(fromMemory.items).toEqual(fromDisk.items);
    expect(fromMemory.listeners).toEqual(fromDisk.listeners);
    expect(fromMemory.votes.length).toBe(fromDisk.votes.length);
    expect([...fromMemory.votes.chosenA.subarray(0, 3)]).toEqual([...fromDisk.votes.chosenA.subarray(0, 3)]);
  });

  it('accepts a bundle whose judge_scores.csv has only its header', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'items.csv': goodItems, 'votes.csv': goodVotes, 'judge_scores.csv': 'utterance_id,system,judge,run,score\n' });
    expect((await readBundle(dir)).judgeScores).toEqual([]);
  });
});

it('reads item ids and systems trimmed, as the schema makes them', async () => {
  const dir = await tempDir();
  await writeFiles(dir, { 'items.csv': 'item_id,utterance_id,system_a,system_b,attention,expected\n i1 ,u1 , A,B ,0,\nc1,\tu2,T,F,1,b\n', 'votes.csv': goodVotes, 'judge_scores.csv': goodScores });
  expect((await readBundle(dir)).items).toEqual([
    { item_id: 'i1', utterance_id: 'u1', system_a: 'A', system_b: 'B', attention: false, expected: null },
    { item_id: 'c1', utterance_id: 'u2', system_a: 'T', system_b: 'F', attention: true, expected: 'b' },
  ]);
});

describe('a bundle without judge_scores.csv or votes.csv (docs/analysis-spec.md §1)', () => {
  it('reads without judge scores: no judges, the votes as they are', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'items.csv': goodItems, 'votes.csv': goodVotes });
    const bundle = await readBundle(dir);
    expect(bundle.votes.length).toBe(2);
    expect(bundle.judgeScores.length).toBe(0);
  });
  it('reads without votes: no answers', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'items.csv': goodItems, 'judge_scores.csv': goodScores });
    const bundle = await readBundle(dir);
    expect(bundle.votes.length).toBe(0);
    expect(bundle.items).toHaveLength(2);
  });
});

describe('readBundle refuses bad input naming file, line and column', () => {
  it('missing file: items.csv is the one file a bundle needs', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'votes.csv': goodVotes, 'judge_scores.csv': goodScores });
    await expect(readBundle(dir)).rejects.toThrow(/^items\.csv line 0: missing file/);
  });
  it('missing column', async () => {
    const e = await refusal({ 'votes.csv': 'item_id,listener_id,chosen\ni1,L1,a\n' });
    expect(e.message).toMatch(/^votes\.csv line 1, column first: missing column/);
  });
  it('unknown item_id', async () => {
    const e = await refusal({ 'votes.csv': goodVotes + 'nope,L2,a,a\n' });
    expect([e.file, e.line, e.column]).toEqual(['votes.csv', 4, 'item_id']);
    expect(e.message).toContain('unknown item_id "nope"');
  });
  it('first / chosen not a or b', async () => {
    const e1 = await refusal({ 'votes.csv': goodVotes + 'i1,L2,left,a\n' });
    expect([e1.line, e1.column]).toEqual([4, '3 (first)']);
    const e2 = await refusal({ 'votes.csv': goodVotes + 'i1,L2,a,B\n' });
    expect([e2.line, e2.column]).toEqual([4, '4 (chosen)']);
  });
  it('non-numeric score', async () => {
    const e = await refusal({ 'judge_scores.csv': goodScores + 'u1,B,j,1,seven\n' });
    expect([e.file, e.line, e.column]).toEqual(['judge_scores.csv', 3, '5 (score)']);
    expect(e.message).toContain('"seven"');
  });
  it('duplicate (item, listener) vote', async () => {
    const e = await refusal({ 'votes.csv': goodVotes + 'i1,L1,b,a\n' });
    expect([e.line, e.column]).toEqual([4, 'listener_id']);
    expect(e.message).toContain('duplicate vote');
  });
  it('attention item without an expected answer', async () => {
    const e = await refusal({ 'items.csv': goodItems + 'c2,u9,T,F,1,\n' });
    expect([e.file, e.line, e.column]).toEqual(['items.csv', 4, '6 (expected)']);
  });
  it('items: same systems, attention without 0/1, expected on an ordinary item (the checks the hand path leaves to the schema)', async () => {
    const same = await refusal({ 'items.csv': goodItems + 'i2,u9, A ,A,0,\n' });
    expect([same.line, same.column, same.problem]).toEqual([4, '4 (system_b)', 'must differ from system_a']);
    const attention = await refusal({ 'items.csv': goodItems + 'i2,u9,A,B, 1,a\n' });
    expect([attention.line, attention.column, attention.problem]).toEqual([4, '5 (attention)', 'must be 0 or 1']);
    const expected = await refusal({ 'items.csv': goodItems + 'i2,u9,A,B,0,a\n' });
    expect([expected.line, expected.column, expected.problem]).toEqual([4, '6 (expected)', 'must be empty for a non-attention item']);
  });
  it('a row with the wrong number of fields', async () => {
    const e = await refusal({ 'votes.csv': goodVotes + 'i1,L3,a\n' });
    expect(e.line).toBe(4);
    expect(e.message).toContain('3 fields');
  });
});

describe('readBundle with skipInvalid', () => {
  it('skips bad rows and counts them by reason', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'items.csv': goodItems,
      'votes.csv': goodVotes + 'nope,L2,a,a\ni1,L1,a,a\ni1,L3,x,a\ni1,L4,a,b\n',
      'judge_scores.csv': goodScores + 'u1,B,j,1,NaN\n',
    });
    const b = await readBundle(dir, { skipInvalid: true });
    expect(b.votes.length).toBe(3);
    expect(b.skipped).toEqual({
      count: 4,
      by_reason: {
        'votes.csv: unknown item_id': 1,
        'votes.csv: duplicate (item, listener) vote': 1,
        'votes.csv: invalid first': 1,
        'judge_scores.csv: invalid score': 1,
      },
    });
  });
});

describe('line numbers with quoted fields spanning lines', () => {
  it('names the physical line of a bad row after a multi-line field', async () => {
    const e = await refusal({
      'items.csv': 'item_id,utterance_id,system_a,system_b,attention,expected\ni1,"two\nlines",A,B,0,\nc1,u2,T,F,1,b\n',
      'votes.csv': goodVotes + 'i1,L2,a,zz\n',
      'judge_scores.csv': goodScores,
    });
    expect([e.file, e.line]).toEqual(['votes.csv', 4]);
    const e2 = await refusal({
      'items.csv': 'item_id,utterance_id,system_a,system_b,attention,expected\ni1,"two\nlines",A,B,0,\nc1,u2,T,F,7,b\n',
    });
    expect([e2.file, e2.line, e2.column]).toEqual(['items.csv', 4, '5 (attention)']);
  });
});

describe('listeners.csv, study.json and the vote facts (round 2)', () => {
  const study = {
    study: 'pilot', exportedAt: '2026-01-31T12:00:00.000Z', minAttention: 0.8, splitThreshold: 0.7,
    rules: { fast: { minMedianResponseMs: 900 }, screening: { excludeFailedScreening: true as const } },
    linkParameters: ['PROLIFIC_PID'],
  };
  const listeners = [
    { listener_id: 'L1', started_at: '2026-01-31T10:00:00.000Z', completed_at: '2026-01-31T10:20:00.000Z', screening: 'passed' as const, more: { PROLIFIC_PID: '=cmd|x', completion_code: 'C1' } },
    { listener_id: 'L2', started_at: '2026-01-31T10:05:00.000Z', completed_at: null, screening: null, more: { PROLIFIC_PID: '', completion_code: null } },
  ];
  const factVotes: BundleVote[] = [
    { item_id: 'i1', listener_id: 'L1', first: 'a', chosen: 'b', extra: { response_ms: 1200, heard_to_end: 1, hidden_ms: 0, seconds_listened: 2.5 } },
    { item_id: 'i2', listener_id: 'L1', first: 'b', chosen: 'a', extra: { response_ms: 800, heard_to_end: 0, hidden_ms: 4000, seconds_listened: 0.75 } },
    { item_id: 'c1', listener_id: 'L2', first: 'a', chosen: 'a', extra: { response_ms: null, heard_to_end: null, hidden_ms: 10, seconds_listened: null } },
  ];
  const records = {
    items, votes: factVotes, judgeScores,
    extraVoteColumns: ['response_ms', 'heard_to_end', 'hidden_ms', 'seconds_listened'],
    listeners, extraListenerColumns: ['PROLIFIC_PID', 'completion_code'], study,
  };

  it('round-trips through the files exactly as the in-memory bundle reads them', async () => {
    const dir = await tempDir();
    await writeBundle(dir, records);
    const header = (await readFile(join(dir, 'listeners.csv'), 'utf8')).split('\r\n')[0];
    expect(header).toBe('listener_id,started_at,completed_at,screening,PROLIFIC_PID,completion_code');
    const fromDisk = await readBundle(dir);
    expect(buildBundle(records)).toEqual(fromDisk);
    expect(fromDisk.study).toEqual(study);
    expect(fromDisk.listenerTable!.get('L1')).toEqual({ ...listeners[0], more: { PROLIFIC_PID: '=cmd|x', completion_code: 'C1' } });
    expect(fromDisk.listenerTable!.get('L2')).toEqual({ ...listeners[1], more: { PROLIFIC_PID: '', completion_code: '' } });
    expect([...fromDisk.votes.responseMs!]).toEqual([1200, 800, NaN]);
    expect([...fromDisk.votes.heardToEnd!]).toEqual([1, 0, -1]);
    expect([...fromDisk.votes.hiddenMs!]).toEqual([0, 4000, 10]);
    expect([...fromDisk.votes.secondsListened!]).toEqual([2.5, 0.75, NaN]);
    expect(Object.keys(bundleTexts(records))).toEqual(['items.csv', 'votes.csv', 'judge_scores.csv', 'listeners.csv', 'study.json']);
  });

  it('a bundle without them has no listener table, no study and no facts', async () => {
    const dir = await tempDir();
    await writeBundle(dir, { items, votes, judgeScores });
    const b = await readBundle(dir);
    expect([b.listenerTable, b.study, b.votes.responseMs, b.votes.hiddenMs]).toEqual([null, null, undefined, undefined]);
  });

  const listenersHeader = 'listener_id,started_at,completed_at,screening,PROLIFIC_PID\n';
  it('refuses a bad screening, time, duplicate listener or fact, naming file, line and column', async () => {
    const bad = await refusal({ 'listeners.csv': listenersHeader + 'L1,2026-01-31T10:00:00Z,,maybe,p\n' });
    expect([bad.file, bad.line, bad.column]).toEqual(['listeners.csv', 2, '4 (screening)']);
    expect(bad.message).toContain('passed, failed or empty');
    const time = await refusal({ 'listeners.csv': listenersHeader + 'L1,yesterday,,,p\n' });
    expect([time.line, time.column]).toEqual([2, '2 (started_at)']);
    expect(time.message).toContain('ISO 8601');
    const dup = await refusal({ 'listeners.csv': listenersHeader + 'L1,2026-01-31T10:00:00Z,,,p\nL1,2026-01-31T10:00:00Z,,,q\n' });
    expect([dup.line, dup.column]).toEqual([3, 'listener_id']);
    const fact = await refusal({ 'votes.csv': 'item_id,listener_id,first,chosen,response_ms,heard_to_end\ni1,L1,a,b,12,1\nc1,L1,b,b,-4,1\n' });
    expect([fact.file, fact.line, fact.column]).toEqual(['votes.csv', 3, 'response_ms']);
    expect(fact.message).toContain('a number ≥ 0 or empty, got "-4"');
    const heard = await refusal({ 'votes.csv': 'item_id,listener_id,first,chosen,heard_to_end\ni1,L1,a,b,yes\n' });
    expect([heard.column, heard.message]).toEqual(['heard_to_end', expect.stringContaining('0, 1 or empty')]);
  });

  it('refuses a study.json that is not JSON or names an unknown rule', async () => {
    const syntax = await refusal({ 'study.json': '{\n  "study": "x",\n  oops\n}\n' });
    expect([syntax.file, syntax.line]).toEqual(['study.json', 3]);
    expect(syntax.message).toContain('not valid JSON');
    const rule = await refusal({ 'study.json': JSON.stringify({ ...study, rules: { sleepy: {} } }) });
    expect([rule.file, rule.column]).toEqual(['study.json', 'rules']);
    expect(rule.message).toMatch(/sleepy/);
  });
});

const itemsHeader = 'item_id,utterance_id,system_a,system_b,attention,expected\n';
const ratingBundleItems = itemsHeader + 'r1,u1,tts-a,,0,\nr2,u1,tts-b,,0,\nchk,u9,tts-a,,1,5\np1,u2,A,B,0,\n';
const ratingBundleVotes = 'item_id,listener_id,first,chosen\np1,L1,a,b\n';
const ratingBundleScores = 'utterance_id,system,judge,run,score\n';
const ratingsHeader = 'item_id,listener_id,system,utterance_id,score\n';
const ratingBundleRatings = ratingsHeader + 'r1,L1,tts-a,u1,4\nr2,L1,tts-b,u1,2\nchk,L1,tts-a,u9,5\nr1,L2,tts-a,u1,5\n';

async function ratingBundleDir(files: Record<string, string>): Promise<string> {
  const dir = await tempDir();
  const all = { 'items.csv': ratingBundleItems, 'votes.csv': ratingBundleVotes, 'judge_scores.csv': ratingBundleScores, 'ratings.csv': ratingBundleRatings, ...files };
  for (const [name, text] of Object.entries(all)) if (text !== '') await writeFile(join(dir, name), text);
  return dir;
}
async function ratingRefusal(files: Record<string, string>): Promise<BundleError> {
  return refusedBy(await ratingBundleDir(files));
}

describe('ratings.csv in the bundle', () => {
  it('reads rating items (system_b empty, expected = required score) beside pair items', async () => {
    const b = await readBundle(await ratingBundleDir({}));
    expect(b.items.map((i) => [i.item_id, i.system_b, i.expected])).toEqual([['r1', '', null], ['r2', '', null], ['chk', '', 5], ['p1', 'B', null]]);
    expect(b.listeners).toEqual(['L1', 'L2']);
    expect(b.votes.length).toBe(1);
    const r = b.ratings!;
    expect(r.length).toBe(4);
    expect([...r.item.subarray(0, 4)]).toEqual([0, 1, 2, 0]);
    expect([...r.listener.subarray(0, 4)]).toEqual([0, 0, 0, 1]);
    expect([...r.score.subarray(0, 4)]).toEqual([4, 2, 5, 5]);
    expect(r.scale).toBeNull();
  });

  it('a bundle without ratings.csv has ratings null and still refuses an empty system_b', async () => {
    const dir = await ratingBundleDir({ 'items.csv': itemsHeader + 'p1,u2,A,B,0,\n', 'ratings.csv': '' });
    expect((await readBundle(dir)).ratings).toBeNull();
    const e = await ratingRefusal({ 'ratings.csv': '', 'items.csv': itemsHeader + 'p1,u2,A,B,0,\nr1,u1,tts-a,,0,\n' });
    expect([e.file, e.line, e.column]).toEqual(['items.csv', 3, '4 (system_b)']);
    expect(e.message).toContain('no ratings.csv');
  });

  it('keeps pair validation for pair items of a rating bundle', async () => {
    const same = await ratingRefusal({ 'items.csv': ratingBundleItems + 'p2,u3,A,A,0,\n' });
    expect([same.file, same.line, same.column]).toEqual(['items.csv', 6, '4 (system_b)']);
    const scoreOnPair = await ratingRefusal({ 'items.csv': ratingBundleItems + 'p2,u3,A,B,1,4\n' });
    expect([scoreOnPair.line, scoreOnPair.column]).toEqual([6, '6 (expected)']);
  });

  it('refuses bad rating items, naming line and column', async () => {
    const noScore = await ratingRefusal({ 'items.csv': ratingBundleItems + 'chk2,u8,tts-b,,1,\n' });
    expect([noScore.file, noScore.line, noScore.column]).toEqual(['items.csv', 6, '6 (expected)']);
    expect(noScore.message).toContain('required score');
    const letter = await ratingRefusal({ 'items.csv': ratingBundleItems + 'chk2,u8,tts-b,,1,a\n' });
    expect([letter.line, letter.column]).toEqual([6, '6 (expected)']);
    const expectedOnOrdinary = await ratingRefusal({ 'items.csv': ratingBundleItems + 'r3,u8,tts-b,,0,3\n' });
    expect(expectedOnOrdinary.message).toContain('must be empty for a non-attention item');
  });

  it('refuses bad ratings rows, naming line and column', async () => {
    const cases: Array<[string, number, string, RegExp]> = [
      ['r9,L1,tts-a,u1,4', 6, '1 (item_id)', /unknown item_id "r9"/],
      ['p1,L3,A,u2,4', 6, '1 (item_id)', /pair item .* votes\.csv/],
      ['r1,L3,tts-b,u1,4', 6, '3 (system)', /rated system of item "r1" \("tts-a"/],
      ['r1,L3,tts-a,u7,4', 6, '4 (utterance_id)', /utterance of item "r1"/],
      ['r1,L3,tts-a,u1,3.5', 6, '5 (score)', /integer score, got "3\.5"/],
      ['r1,L1,tts-a,u1,3', 6, '2 (listener_id)', /duplicate rating/],
    ];
    for (const [row, line, column, message] of cases) {
      const e = await ratingRefusal({ 'ratings.csv': ratingBundleRatings + row + '\n' });
      expect([e.file, e.line, e.column]).toEqual(['ratings.csv', line, column]);
      expect(e.message).toMatch(message);
    }
    const missing = await ratingRefusal({ 'ratings.csv': 'item_id,listener_id,score\nr1,L1,4\n' });
    expect(missing.message).toMatch(/^ratings\.csv line 1, column system, utterance_id: missing column/);
  });

  it('refuses a vote on a rating item', async () => {
    const e = await ratingRefusal({ 'votes.csv': ratingBundleVotes + 'r1,L1,a,a\n' });
    expect([e.file, e.line, e.column]).toEqual(['votes.csv', 3, 'item_id']);
    expect(e.message).toContain('belong in ratings.csv');
  });

  it('checks scores against the study’s scale when given, and can skip bad rows instead', async () => {
    const dir = await ratingBundleDir({ 'ratings.csv': ratingBundleRatings + 'r2,L2,tts-b,u1,7\n' });
    await expect(readBundle(dir, { ratingScale: [1, 5] })).rejects.toThrow(/ratings\.csv line 6, column 5 \(score\): 7 is outside the study's scale 1–5/);
    expect((await readBundle(dir, { ratingScale: [1, 7] })).ratings!.scale).toEqual([1, 7]);
    const check = await ratingBundleDir({ 'items.csv': ratingBundleItems + 'chk2,u8,tts-b,,1,6\n' });
    await expect(readBundle(check, { ratingScale: [1, 5] })).rejects.toThrow(/items\.csv line 6, column 6 \(expected\): the required score 6 is outside the study's scale 1–5/);
    const skipped = await readBundle(dir, { ratingScale: [1, 5], skipInvalid: true });
    expect(skipped.ratings!.length).toBe(4);
    expect(skipped.skipped.by_reason).toEqual({ 'ratings.csv: score outside the scale': 1 });
  });

  it('round-trips through writeBundle, bundleTexts and buildBundle alike', async () => {
    const ratedItems: BundleItem[] = [
      { item_id: 'r1', utterance_id: 'u1', system_a: 'tts, "a"', system_b: '', attention: false, expected: null },
      { item_id: 'chk', utterance_id: 'u2', system_a: 'tts, "a"', system_b: '', attention: true, expected: 1 },
    ];
    // Enough ratings to make the columns grow past their first allocation.
    const ratedRatings: BundleRating[] = Array.from({ length: 1500 }, (_, l) => ({ item_id: 'r1', listener_id: `L${l}`, system: 'tts, "a"', utterance_id: 'u1', score: 1 + (l % 5) }));
    ratedRatings.push({ item_id: 'chk', listener_id: 'L0', system: 'tts, "a"', utterance_id: 'u2', score: 1 });
    const dir = await tempDir();
    await writeBundle(dir, { items: ratedItems, votes: [], judgeScores: [], ratings: ratedRatings });
    const text = await readFile(join(dir, 'ratings.csv'), 'utf8');
    expect(text.split('\r\n')[0]).toBe('item_id,listener_id,system,utterance_id,score');
    expect(bundleTexts({ items: ratedItems, votes: [], judgeScores: [], ratings: ratedRatings })['ratings.csv']).toBe(text);
    expect(bundleTexts({ items: [], votes: [], judgeScores: [] })['ratings.csv']).toBeUndefined();
    const fromDisk = await readBundle(dir);
    const fromMemory = buildBundle({ items: ratedItems, votes: [], judgeScores: [], ratings: ratedRatings });
    expect(fromDisk.items).toEqual(ratedItems);
    expect(fromMemory.items).toEqual(ratedItems);
    expect(fromDisk.ratings!.length).toBe(1501);
    expect([...fromMemory.ratings!.score.subarray(0, 1501)]).toEqual([...fromDisk.ratings!.score.subarray(0, 1501)]);
    expect(fromMemory.listeners).toEqual(fromDisk.listeners);
    expect(() => buildBundle({ items: ratedItems, votes: [], judgeScores: [], ratings: [{ ...ratedRatings[0], system: 'other' }] })).toThrow(/ratings\.csv line 2, column 3 \(system\)/);
    expect(() => buildBundle({ items: ratedItems, votes: [], judgeScores: [] })).toThrow(/items\.csv line 2, column 4 \(system_b\).*no ratings\.csv/);
  });

  it('takes the rating scale from study.json, the option overriding it, on disk and in memory alike', async () => {
    const study = {
      study: 'mos-pilot', exportedAt: '2026-01-31T12:00:00.000Z', minAttention: 0.75, splitThreshold: 0.75,
      rules: { correlation: { minListenerCorrelation: 0.3 } }, linkParameters: [], ratingScale: [1, 4] as [number, number],
    };
    const ratedItems: BundleItem[] = [
      { item_id: 'r1', utterance_id: 'u1', system_a: 'tts-a', system_b: '', attention: false, expected: null },
      { item_id: 'chk', utterance_id: 'u9', system_a: 'tts-a', system_b: '', attention: true, expected: 4 },
    ];
    const ratedRatings: BundleRating[] = [
      { item_id: 'r1', listener_id: 'L1', system: 'tts-a', utterance_id: 'u1', score: 3 },
      { item_id: 'chk', listener_id: 'L1', system: 'tts-a', utterance_id: 'u9', score: 4 },
    ];
    const records = { items: ratedItems, votes: [], judgeScores: [], ratings: ratedRatings, study };
    const dir = await tempDir();
    await writeBundle(dir, records);
    const fromDisk = await readBundle(dir);
    expect(buildBundle(records)).toEqual(fromDisk);
    expect(fromDisk.study).toEqual(study);
    expect(fromDisk.ratings!.scale).toEqual([1, 4]);
    expect(Object.keys(bundleTexts(records))).toEqual(['items.csv', 'votes.csv', 'judge_scores.csv', 'ratings.csv', 'study.json']);

    const narrow = { ...records, study: { ...study, ratingScale: [1, 3] as [number, number] } };
    await writeBundle(dir, narrow);
    await expect(readBundle(dir)).rejects.toThrow(/items\.csv line 3, column 6 \(expected\): the required score 4 is outside the study's scale 1–3/);
    expect(() => buildBundle(narrow)).toThrow(/items\.csv line 3, column 6 \(expected\): the required score 4 is outside the study's scale 1–3/);
    expect((await readBundle(dir, { ratingScale: [0, 10] })).ratings!.scale).toEqual([0, 10]);
    expect(buildBundle(narrow, { ratingScale: [0, 10] })).toEqual(await readBundle(dir, { ratingScale: [0, 10] }));

    await writeFile(join(dir, 'study.json'), JSON.stringify({ ...study, ratingScale: [5, 1] }));
    const reversed = await refusedBy(dir);
    expect([reversed.file, reversed.column]).toEqual(['study.json', 'ratingScale']);
    expect(reversed.message).toContain('the lowest score must be below the highest');
  });
});

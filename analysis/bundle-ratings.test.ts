import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BundleError, buildBundle, bundleTexts, readBundle, writeBundle, type BundleItem, type BundleRating } from './bundle';

const dirs: string[] = [];
async function tempDir() {
  const d = await mkdtemp(join(tmpdir(), 'earmark-ratings-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const itemsHeader = 'item_id,utterance_id,system_a,system_b,attention,expected\n';
const goodItems = itemsHeader + 'r1,u1,tts-a,,0,\nr2,u1,tts-b,,0,\nchk,u9,tts-a,,1,5\np1,u2,A,B,0,\n';
const goodVotes = 'item_id,listener_id,first,chosen\np1,L1,a,b\n';
const goodScores = 'utterance_id,system,judge,run,score\n';
const ratingsHeader = 'item_id,listener_id,system,utterance_id,score\n';
const goodRatings = ratingsHeader + 'r1,L1,tts-a,u1,4\nr2,L1,tts-b,u1,2\nchk,L1,tts-a,u9,5\nr1,L2,tts-a,u1,5\n';

async function bundleDir(files: Record<string, string>): Promise<string> {
  const dir = await tempDir();
  const all = { 'items.csv': goodItems, 'votes.csv': goodVotes, 'judge_scores.csv': goodScores, 'ratings.csv': goodRatings, ...files };
  for (const [name, text] of Object.entries(all)) if (text !== '') await writeFile(join(dir, name), text);
  return dir;
}
async function refusal(files: Record<string, string>): Promise<BundleError> {
  try {
    await readBundle(await bundleDir(files));
  } catch (e) {
    expect(e).toBeInstanceOf(BundleError);
    return e as BundleError;
  }
  throw new Error('bundle was not refused');
}

describe('ratings.csv in the bundle', () => {
  it('reads rating items (system_b empty, expected = required score) beside pair items', async () => {
    const b = await readBundle(await bundleDir({}));
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
    const dir = await bundleDir({ 'items.csv': itemsHeader + 'p1,u2,A,B,0,\n', 'ratings.csv': '' });
    expect((await readBundle(dir)).ratings).toBeNull();
    const e = await refusal({ 'ratings.csv': '', 'items.csv': itemsHeader + 'p1,u2,A,B,0,\nr1,u1,tts-a,,0,\n' });
    expect([e.file, e.line, e.column]).toEqual(['items.csv', 3, '4 (system_b)']);
    expect(e.message).toContain('no ratings.csv');
  });

  it('keeps pair validation for pair items of a rating bundle', async () => {
    const same = await refusal({ 'items.csv': goodItems + 'p2,u3,A,A,0,\n' });
    expect([same.file, same.line, same.column]).toEqual(['items.csv', 6, '4 (system_b)']);
    const scoreOnPair = await refusal({ 'items.csv': goodItems + 'p2,u3,A,B,1,4\n' });
    expect([scoreOnPair.line, scoreOnPair.column]).toEqual([6, '6 (expected)']);
  });

  it('refuses bad rating items, naming line and column', async () => {
    const noScore = await refusal({ 'items.csv': goodItems + 'chk2,u8,tts-b,,1,\n' });
    expect([noScore.file, noScore.line, noScore.column]).toEqual(['items.csv', 6, '6 (expected)']);
    expect(noScore.message).toContain('required score');
    const letter = await refusal({ 'items.csv': goodItems + 'chk2,u8,tts-b,,1,a\n' });
    expect([letter.line, letter.column]).toEqual([6, '6 (expected)']);
    const expectedOnOrdinary = await refusal({ 'items.csv': goodItems + 'r3,u8,tts-b,,0,3\n' });
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
      const e = await refusal({ 'ratings.csv': goodRatings + row + '\n' });
      expect([e.file, e.line, e.column]).toEqual(['ratings.csv', line, column]);
      expect(e.message).toMatch(message);
    }
    const missing = await refusal({ 'ratings.csv': 'item_id,listener_id,score\nr1,L1,4\n' });
    expect(missing.message).toMatch(/^ratings\.csv line 1, column system, utterance_id: missing column/);
  });

  it('refuses a vote on a rating item', async () => {
    const e = await refusal({ 'votes.csv': goodVotes + 'r1,L1,a,a\n' });
    expect([e.file, e.line, e.column]).toEqual(['votes.csv', 3, 'item_id']);
    expect(e.message).toContain('belong in ratings.csv');
  });

  it('checks scores against the study’s scale when given, and can skip bad rows instead', async () => {
    const dir = await bundleDir({ 'ratings.csv': goodRatings + 'r2,L2,tts-b,u1,7\n' });
    await expect(readBundle(dir, { ratingScale: [1, 5] })).rejects.toThrow(/ratings\.csv line 6, column 5 \(score\): 7 is outside the study's scale 1–5/);
    expect((await readBundle(dir, { ratingScale: [1, 7] })).ratings!.scale).toEqual([1, 7]);
    const skipped = await readBundle(dir, { ratingScale: [1, 5], skipInvalid: true });
    expect(skipped.ratings!.length).toBe(4);
    expect(skipped.skipped.by_reason).toEqual({ 'ratings.csv: score outside the scale': 1 });
  });

  it('round-trips through writeBundle, bundleTexts and buildBundle alike', async () => {
    const items: BundleItem[] = [
      { item_id: 'r1', utterance_id: 'u1', system_a: 'tts, "a"', system_b: '', attention: false, expected: null },
      { item_id: 'chk', utterance_id: 'u2', system_a: 'tts, "a"', system_b: '', attention: true, expected: 1 },
    ];
    // Enough ratings to make the columns grow past their first allocation.
    const ratings: BundleRating[] = Array.from({ length: 1500 }, (_, l) => ({ item_id: 'r1', listener_id: `L${l}`, system: 'tts, "a"', utterance_id: 'u1', score: 1 + (l % 5) }));
    ratings.push({ item_id: 'chk', listener_id: 'L0', system: 'tts, "a"', utterance_id: 'u2', score: 1 });
    const dir = await tempDir();
    await writeBundle(dir, { items, votes: [], judgeScores: [], ratings });
    const text = await readFile(join(dir, 'ratings.csv'), 'utf8');
    expect(text.split('\r\n')[0]).toBe('item_id,listener_id,system,utterance_id,score');
    expect(bundleTexts({ items, votes: [], judgeScores: [], ratings })['ratings.csv']).toBe(text);
    expect(bundleTexts({ items: [], votes: [], judgeScores: [] })['ratings.csv']).toBeUndefined();
    const fromDisk = await readBundle(dir);
    const fromMemory = buildBundle({ items, votes: [], judgeScores: [], ratings });
    expect(fromDisk.items).toEqual(items);
    expect(fromMemory.items).toEqual(items);
    expect(fromDisk.ratings!.length).toBe(1501);
    expect([...fromMemory.ratings!.score.subarray(0, 1501)]).toEqual([...fromDisk.ratings!.score.subarray(0, 1501)]);
    expect(fromMemory.listeners).toEqual(fromDisk.listeners);
    expect(() => buildBundle({ items, votes: [], judgeScores: [], ratings: [{ ...ratings[0], system: 'other' }] })).toThrow(/ratings\.csv line 2, column 3 \(system\)/);
    expect(() => buildBundle({ items, votes: [], judgeScores: [] })).toThrow(/items\.csv line 2, column 4 \(system_b\).*no ratings\.csv/);
  });
});

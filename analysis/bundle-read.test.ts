import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildBundle, readBundle, type BundleItem, type BundleVote } from './bundle';

// readBundle splits plain lines itself and hands a file it cannot split exactly to csv-parse,
// reading the whole bundle again: what it gives must not depend on which reader ran.
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function bundleDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'earmark-bundle-read-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const items = 'item_id,utterance_id,system_a,system_b,attention,expected\r\ni1,u1,A,B,0,\r\ni2,u2,A,B,0,\r\n';

describe('readBundle, fast and full readers alike', () => {
  it('counts a skipped row once when a later file sends the bundle to the full parser', async () => {
    const dir = await bundleDir({
      'items.csv': items,
      'votes.csv': 'item_id,listener_id,first,chosen\r\ni1,L1,a,b\r\ni2,L1,x,b\r\ni2,L2,b,b\r\n',
      // a bare LF inside quotes in a CRLF file: text only csv-parse reads exactly
      'judge_scores.csv': 'utterance_id,system,judge,run,score\r\nu1,A,"j\n1",1,3\r\nu1,B, j2 ,1, 4 \r\n',
    });
    const bundle = await readBundle(dir, { skipInvalid: true });
    expect(bundle.skipped).toEqual({ count: 1, by_reason: { 'votes.csv: invalid first': 1 } });
    expect(bundle.votes.length).toBe(2);
    expect(bundle.listeners).toEqual(['L1', 'L2']);
    expect(bundle.judgeScores).toEqual([
      { utterance_id: 'u1', system: 'A', judge: 'j\n1', run: '1', score: 3 },
      { utterance_id: 'u1', system: 'B', judge: 'j2', run: '1', score: 4 },
    ]);
  });

  it('reads plain, quoted and neutralised fields, a BOM and LF endings as csv-parse does', async () => {
    const dir = await bundleDir({
      'items.csv': '\uFEFF' + items.replace(/\r\n/g, '\n'),
      'votes.csv': 'item_id,listener_id,first,chosen\n"i1","\'=L1",a,b\n\ni2, L2 ,a,a\n',
      'judge_scores.csv': 'utterance_id,system,judge,run,score\nu1,A,"j, ""one""",1,-1.5e0\n',
    });
    const bundle = await readBundle(dir);
    expect(bundle.items.map((i) => i.item_id)).toEqual(['i1', 'i2']);
    expect(bundle.listeners).toEqual(['=L1', 'L2']);
    expect([...bundle.votes.chosenA.slice(0, 2)]).toEqual([0, 1]);
    expect(bundle.judgeScores).toEqual([{ utterance_id: 'u1', system: 'A', judge: 'j, "one"', run: '1', score: -1.5 }]);
  });
});

describe('duplicate votes', () => {
  it('are found among many listeners and items alike (keys past 2^29 too, where the bitset gives way to a Set)', () => {
    // 18,000 listeners × 30,000 items: the last keys pass 2^29 (listener · items + item).
    const items: BundleItem[] = Array.from({ length: 30_000 }, (_, i) => ({
      item_id: `i${i}`, utterance_id: `u${i}`, system_a: 'A', system_b: 'B', attention: false, expected: null,
    }));
    const votes: BundleVote[] = Array.from({ length: 18_000 }, (_, l) => ({ item_id: `i${(l * 7) % 30_000}`, listener_id: `L${l}`, first: 'a', chosen: 'b' }));
    votes.push(
      { item_id: 'i0', listener_id: 'L0', first: 'b', chosen: 'b' }, // seen while the keys were small
      { item_id: `i${(17_999 * 7) % 30_000}`, listener_id: 'L17999', first: 'a', chosen: 'a' }, // a key past 2^29
      { item_id: 'i1', listener_id: 'L0', first: 'a', chosen: 'a' }, // new
    );
    const bundle = buildBundle({ items, votes, judgeScores: [] }, { skipInvalid: true });
    expect(17_999 * 30_000).toBeGreaterThan(2 ** 29);
    expect(bundle.skipped).toEqual({ count: 2, by_reason: { 'votes.csv: duplicate (item, listener) vote': 2 } });
    expect(bundle.votes.length).toBe(18_001);
  });
});

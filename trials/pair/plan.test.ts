/**
 * The caption pair moved onto the trial-kind registry without a change in behaviour: the demo
 * study builds exactly the items (and hands a listener exactly the trials) that the build made
 * before the move. pair-demo.expected.json was written by the build as it was then, and written again
 * when the demo stopped scoring its attention checks' clips (12 items, issue 21 item 6); clip ids are
 * random per import, so clips are compared by their file.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { setStudyStatus } from '../../studies/build';
import { assignTrials } from '../../studies/design';
import { loadStudyDir } from '../../studies/load';
import { insertListener, tempDb, type TempDb } from '../../studies/test-support';

const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));
const EXPECTED = JSON.parse(readFileSync(new URL('./pair-demo.expected.json', import.meta.url), 'utf8'));

let t: TempDb;
afterEach(() => t?.close());

describe('the caption pair on the trial-kind registry', () => {
  it('builds the demo study with the same items, seqs and orientation, and the same trials for a listener', async () => {
    t = tempDb();
    await loadStudyDir(t.db, DEMO, { dataDir: t.dir });
    const items = t.db
      .prepare(
        `SELECT seq, kind, utterance_id, (SELECT path FROM clips WHERE id = clip_id) AS clip, system_a, system_b, caption_a, caption_b, expected
           FROM items WHERE study_id = 'demo' ORDER BY seq`,
      )
      .all();
    expect(items).toEqual(EXPECTED.items);
    expect(t.db.prepare("SELECT DISTINCT trial_kind FROM items WHERE study_id = 'demo'").pluck().all()).toEqual(['pair']);
    setStudyStatus(t.db, 'demo', 'open');
    insertListener(t.db, 'demo', 'L1');
    assignTrials(t.db, 'demo', 'L1');
    const assignments = t.db
      .prepare("SELECT a.position, i.seq, a.first FROM assignments a JOIN items i ON i.id = a.item_id WHERE listener_id = 'L1' ORDER BY position")
      .all();
    expect(assignments).toEqual(EXPECTED.assignments);
  });
});

import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { setStudyStatus } from './build';
import { assignTrials } from './design';
import { loadStudyDir } from './load';
import { readStudyDefinition } from './settings';
import { insertListener, tempDb, type TempDb } from './test-support';

const DEMO = fileURLToPath(new URL('./demo/', import.meta.url));

let t: TempDb;
afterEach(() => t?.close());

describe('the demo study', () => {
  it('builds from the committed demo content through the audio manifest and serves 16 trials, no clip both scored and an attention check', async () => {
    t = tempDb();
    const { studyId, summary } = await loadStudyDir(t.db, DEMO);
    expect(studyId).toBe('demo');
    expect(summary.items).toEqual({ pair: 12, attention: 4, practice: 0 });
    expect(Object.keys(summary.sampler!.perSystem).sort()).toEqual(['lyra', 'oracle', 'parrot-7b', 'sonnet-cap', 'whisper-style']);
    for (const n of Object.values(summary.sampler!.perSystem)) expect(n).toBeGreaterThanOrEqual(4);

    const items = t.db.prepare("SELECT i.kind, i.expected, c.path FROM items i JOIN clips c ON c.id = i.clip_id WHERE study_id = 'demo'").all() as {
      kind: string;
      expected: string | null;
      path: string;
    }[];
    for (const i of items) expect(i.path).toMatch(/^demo-\d\d\.wav$/);
    expect(items.filter((i) => i.kind === 'attention').every((i) => i.expected === 'a' || i.expected === 'b')).toBe(true);
    const checked = new Set(items.filter((i) => i.kind === 'attention').map((i) => i.path));
    expect(items.filter((i) => i.kind === 'pair' && checked.has(i.path))).toEqual([]);

    const definition = readStudyDefinition(t.db, 'demo');
    expect(definition.completion.code).toBe('DEMO-EARMARK');
    expect(definition.design.kind).toBe('crossed');
    expect(definition.listening).toEqual({ mode: 'whole' });

    setStudyStatus(t.db, 'demo', 'open');
    insertListener(t.db, 'demo', 'L1');
    expect(assignTrials(t.db, 'demo', 'L1')).toBe(16);
    // Building again (as every server start does) changes nothing.
    expect((await loadStudyDir(t.db, DEMO)).summary).toMatchObject({ action: 'unchanged', status: 'open' });
  });
});

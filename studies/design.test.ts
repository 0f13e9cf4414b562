import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { assignTrials, itemLoads, StudyFullError } from './design';
import { baseDefinition, insertListener, insertStudy, seedManifest, tempDb, voteAll, type TempDb } from './test-support';

let t: TempDb;
afterEach(() => t?.close());

function incompleteStudy(db: TempDb['db'], pairs: number, k: number, r: number, attention = 0) {
  const utterances = seedManifest(db, { utterances: pairs + attention, systems: ['x', 'y'] });
  return insertStudy(
    db,
    'inc',
    {
      ...baseDefinition,
      items: { mode: 'explicit', list: [{ utterance: utterances[0], systemA: 'x', systemB: 'y' }] },
      design: { kind: 'incomplete', itemsPerListener: k, ratingsPerItem: r, abandonAfterMinutes: 30 },
    },
    [
      ...utterances.slice(0, pairs).map((u) => ({ kind: 'pair' as const, utteranceId: u })),
      ...utterances.slice(pairs).map((u) => ({ kind: 'attention' as const, utteranceId: u, expected: 'a' as const })),
    ],
  );
}

function assigned(db: TempDb['db'], listenerId: string) {
  return db.prepare('SELECT a.position, a.item_id AS itemId, a.first, i.kind FROM assignments a JOIN items i ON i.id = a.item_id WHERE listener_id = ? ORDER BY position').all(listenerId) as {
    position: number;
    itemId: string;
    first: 'a' | 'b';
    kind: string;
  }[];
}

describe('assignTrials — crossed', () => {
  it('gives every listener every item, practice first, order and caption side varying per listener', () => {
    t = tempDb();
    const u = seedManifest(t.db, { utterances: 30, systems: ['x', 'y'] });
    insertStudy(
      t.db,
      'crossed',
      { ...baseDefinition, items: { mode: 'explicit', list: [{ utterance: u[0], systemA: 'x', systemB: 'y' }] }, design: { kind: 'crossed' } },
      [
        ...u.slice(0, 24).map((utteranceId) => ({ kind: 'pair' as const, utteranceId })),
        ...u.slice(24, 28).map((utteranceId) => ({ kind: 'attention' as const, utteranceId, expected: 'b' as const })),
        ...u.slice(28).map((utteranceId) => ({ kind: 'practice' as const, utteranceId, expected: 'a' as const })),
      ],
    );
    const orders: string[][] = [];
    for (const id of ['L1', 'L2', 'L3']) {
      insertListener(t.db, 'crossed', id);
      expect(assignTrials(t.db, 'crossed', id)).toBe(30);
      const rows = assigned(t.db, id);
      expect(rows.slice(0, 2).map((r) => r.kind)).toEqual(['practice', 'practice']);
      const kinds = rows.slice(2).map((r) => r.kind);
      expect(kinds[0]).not.toBe('attention');
      expect(kinds.at(-1)).not.toBe('attention');
      kinds.forEach((k, i) => expect(k === 'attention' && kinds[i - 1] === 'attention').toBe(false));
      expect(new Set(rows.map((r) => r.first))).toEqual(new Set(['a', 'b']));
      orders.push(rows.map((r) => r.itemId));
    }
    expect(new Set(orders.map((o) => [...o].sort().join()))).toHaveProperty('size', 1);
    expect(orders[0]).not.toEqual(orders[1]);
    // Resuming a session hands out nothing new.
    expect(assignTrials(t.db, 'crossed', 'L1')).toBe(30);
    expect(assigned(t.db, 'L1').map((r) => r.itemId)).toEqual(orders[0]);
  });
});

describe('assignTrials — balanced incomplete', () => {
  it('converges every item to r ratings as listeners complete', () => {
    t = tempDb();
    const pairs = 40;
    incompleteStudy(t.db, pairs, 10, 3, 2);
    const listeners = (pairs * 3) / 10;
    for (let i = 0; i < listeners; i++) {
      const id = insertListener(t.db, 'inc', `L${i}`);
      expect(assignTrials(t.db, 'inc', id)).toBe(12);
      const rows = assigned(t.db, id);
      expect(rows.filter((r) => r.kind === 'attention')).toHaveLength(2);
      expect(new Set(rows.map((r) => r.itemId)).size).toBe(12);
      voteAll(t.db, id);
      t.db.prepare('UPDATE listeners SET completed_at = ? WHERE id = ?').run(new Date().toISOString(), id);
    }
    const loads = itemLoads(t.db, 'inc', 30);
    expect(loads).toHaveLength(pairs);
    for (const l of loads) expect(l).toMatchObject({ votes: 3, pending: 0 });
    insertListener(t.db, 'inc', 'late');
    expect(() => assignTrials(t.db, 'inc', 'late')).toThrow(StudyFullError);
  });

  it('counts active unanswered assignments so concurrent sessions spread out', () => {
    t = tempDb();
    incompleteStudy(t.db, 20, 5, 2);
    for (let i = 0; i < 8; i++) assignTrials(t.db, 'inc', insertListener(t.db, 'inc', `L${i}`));
    for (const l of itemLoads(t.db, 'inc', 30)) expect(l.votes + l.pending).toBe(2);
  });

  it('returns an abandoned assignment to the pool after the timeout, keeping answered ones', () => {
    t = tempDb();
    incompleteStudy(t.db, 6, 6, 1);
    const t0 = new Date('2026-01-01T10:00:00Z');
    insertListener(t.db, 'inc', 'gone', t0);
    assignTrials(t.db, 'inc', 'gone', undefined, t0);
    voteAll(t.db, 'gone', new Date('2026-01-01T10:02:00Z'), 2);
    const answered = new Set(assigned(t.db, 'gone').slice(0, 2).map((r) => r.itemId));

    insertListener(t.db, 'inc', 'early', new Date('2026-01-01T10:20:00Z'));
    expect(() => assignTrials(t.db, 'inc', 'early', undefined, new Date('2026-01-01T10:20:00Z'))).toThrow(StudyFullError);

    const later = new Date('2026-01-01T10:33:00Z');
    insertListener(t.db, 'inc', 'later', later);
    // Only the four abandoned items: the two already rated are at their target and never pad out k.
    expect(assignTrials(t.db, 'inc', 'later', undefined, later)).toBe(4);
    const rows = assigned(t.db, 'later');
    expect(rows.some((r) => answered.has(r.itemId))).toBe(false);
    const loads = itemLoads(t.db, 'inc', 30, later);
    for (const l of loads) expect(l.votes + l.pending).toBe(1);
  });

  it('hands the tail listener fewer than k items rather than any item at its target', () => {
    t = tempDb();
    incompleteStudy(t.db, 10, 4, 1);
    for (let i = 0; i < 2; i++) {
      const id = insertListener(t.db, 'inc', `L${i}`);
      expect(assignTrials(t.db, 'inc', id)).toBe(4);
      voteAll(t.db, id);
    }
    insertListener(t.db, 'inc', 'tail');
    expect(assignTrials(t.db, 'inc', 'tail')).toBe(2);
    voteAll(t.db, 'tail');
    for (const l of itemLoads(t.db, 'inc', 30)) expect(l.votes).toBe(1);
    insertListener(t.db, 'inc', 'over');
    expect(() => assignTrials(t.db, 'inc', 'over')).toThrow(StudyFullError);
  });

  it('gives a tail listener with one scored item no attention check (a check never comes first or last)', () => {
    t = tempDb();
    incompleteStudy(t.db, 3, 2, 1, 2);
    const first = insertListener(t.db, 'inc', 'first');
    expect(assignTrials(t.db, 'inc', first)).toBe(2 + 1);
    voteAll(t.db, first);
    insertListener(t.db, 'inc', 'tail');
    expect(assignTrials(t.db, 'inc', 'tail')).toBe(1);
  });

  it('never gives a returning participant (same PROLIFIC_PID) an item twice', () => {
    t = tempDb();
    incompleteStudy(t.db, 10, 5, 3);
    insertListener(t.db, 'inc', 'first', new Date(), { PROLIFIC_PID: 'p1' });
    assignTrials(t.db, 'inc', 'first');
    insertListener(t.db, 'inc', 'again', new Date(), { PROLIFIC_PID: 'p1' });
    assignTrials(t.db, 'inc', 'again');
    const a = new Set(assigned(t.db, 'first').map((r) => r.itemId));
    for (const r of assigned(t.db, 'again')) expect(a.has(r.itemId)).toBe(false);
  });

  it('hands out safely when several processes start sessions at once', async () => {
    t = tempDb();
    const pairs = 60;
    incompleteStudy(t.db, pairs, 6, 4);
    const perWorker = 10;
    const workers = 4; // 40 listeners × 6 = 240 = 60 items × 4 ratings
    for (let w = 0; w < workers; w++) for (let i = 0; i < perWorker; i++) insertListener(t.db, 'inc', `W${w}-${i}`);
    const script = fileURLToPath(new URL('./test-assign-worker.ts', import.meta.url));
    const results = await Promise.all(
      Array.from(
        { length: workers },
        (_, w) =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', script, t.file, 'inc', `W${w}-`, String(perWorker)], { stdio: ['ignore', 'pipe', 'pipe'] });
            let out = '';
            let err = '';
            child.stdout.on('data', (d) => (out += d));
            child.stderr.on('data', (d) => (err += d));
            child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`worker ${w} exited ${code}: ${err}`))));
          }),
      ),
    );
    expect(results.map((r) => r.trim())).toEqual(Array(workers).fill(String(perWorker * 6)));
    for (const l of itemLoads(t.db, 'inc', 30)) expect(l.pending).toBe(4);
    const dupes = t.db.prepare('SELECT count(*) AS n FROM (SELECT listener_id, item_id FROM assignments GROUP BY 1, 2 HAVING count(*) > 1)').get() as { n: number };
    expect(dupes.n).toBe(0);
  });
});

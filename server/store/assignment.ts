import type { Db } from '../db/open';

/**
 * TEMPORARY crossed design until studies/design.ts (branch `studies`) lands with the real
 * `assignTrials(db, studyId, listenerId, seed)`; then this file goes and sessions.ts imports
 * that one. Every listener gets every item: practice first in study order, the rest shuffled
 * per listener, the caption shown first drawn per trial.
 */
export function assignTrials(db: Db, studyId: string, listenerId: string, seed: number): number {
  const items = db
    .prepare<[string], { id: string; kind: string }>('SELECT id, kind FROM items WHERE study_id = ? ORDER BY seq')
    .all(studyId);
  const random = mulberry32(seed);
  const practice = items.filter((i) => i.kind === 'practice');
  const rest = items.filter((i) => i.kind !== 'practice');
  for (let i = rest.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rest[i], rest[j]] = [rest[j], rest[i]];
  }
  const insert = db.prepare(
    'INSERT INTO assignments (listener_id, position, item_id, first, assigned_at) VALUES (?, ?, ?, ?, ?)',
  );
  const now = new Date().toISOString();
  [...practice, ...rest].forEach((item, position) =>
    insert.run(listenerId, position, item.id, random() < 0.5 ? 'a' : 'b', now),
  );
  return items.length;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

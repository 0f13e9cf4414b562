/**
 * MUSHRA's hidden reference plays from a replay of its own (docs/blinding.md "MUSHRA's hidden
 * reference"): the demo-mushra template built from the real files, on a real server on loopback.
 * On every page a listener meets, the open reference and each rated stimulus have distinct ids,
 * ETags and bytes, and the hidden reference is the open one's clip within ±1 LSB (not identical).
 * Only the reference's clip gets a replay.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStudyDir } from '../../studies/load';
import { setStudyStatus } from '../../studies/build';
import { startTestServer, type TestServer } from '../testing/server';
import { call } from '../testing/client';
import { fetchAudio as fetchServed, sameBytes, samples } from '../testing/served-audio';

const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../../studies/templates/demo-mushra.yaml', import.meta.url));

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ studies: [] });
  const dir = join(server.dataDir, 'studies', 'mushra');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'study.yaml'), parseDocument(readFileSync(TEMPLATE, 'utf8').replaceAll('../demo/', DEMO)).toString());
  const { studyId } = await loadStudyDir(server.app.db, dir, { dataDir: server.dataDir });
  setStudyStatus(server.app.db, studyId, 'open');
}, 120_000);
afterAll(() => server?.close());

const fetchAudio = (url: string) => fetchServed(server.url, url);

describe('MUSHRA’s hidden reference', () => {
  it('is served on every page under its own id, ETag and bytes, within ±1 LSB of the open reference', async () => {
    const started = await call(`${server.url}/api/sessions`, { body: { study: 'mushra', external: { PROLIFIC_PID: 'P-replay' } } });
    expect(started.status, started.text).toBe(201);
    const token = started.body.token as string;
    const listener = server.app.store.sessions.byToken(token)!.id;
    const orders = server.app.db.prepare('SELECT slot_order FROM assignments WHERE listener_id = ? ORDER BY position').pluck().all(listener) as string[];
    let state = started.body.state;
    let seen = 0;
    while (state.trial) {
      const { reference, stimuli, position } = state.trial as { position: number; reference: { id: string; audioUrl: string }; stimuli: { id: string; audioUrl: string }[] };
      expect(stimuli).toHaveLength(5);
      const ids = [reference, ...stimuli].map((s) => s.id);
      expect(new Set(ids).size).toBe(6);
      const [open, ...rated] = await Promise.all([reference, ...stimuli].map((s) => fetchAudio(s.audioUrl)));
      const all = [open, ...rated];
      expect(new Set(all.map((a) => a.etag)).size).toBe(6);
      for (let i = 0; i < all.length; i++) for (let j = i + 1; j < all.length; j++) expect(sameBytes(all[i].bytes, all[j].bytes), `page ${position}: ${i} and ${j}`).toBe(false);
      const hidden = rated[(JSON.parse(orders[position]) as string[]).indexOf('reference')];
      const [heard, source] = await Promise.all([samples(hidden.bytes), samples(open.bytes)]);
      expect(heard.length).toBe(source.length);
      expect(Math.max(...heard.map((v, i) => Math.abs(v - source[i])))).toBe(1);
      const listening = stimuli.map(() => ({ plays: 1, secondsHeard: 2, heardToEnd: true }));
      const voted = await call(`${server.url}/api/session/votes`, {
        token,
        body: { voteId: randomUUID(), position, playCount: 5, secondsListened: 10, heardToEnd: true, hiddenMs: 0, responseMs: 9000, clientTs: new Date().toISOString(), listening, scores: [100, 20, 45, 70, 60] },
      });
      expect(voted.status, voted.text).toBe(200);
      state = (await call(`${server.url}/api/session`, { token })).body;
      seen++;
    }
    // the training page and six scored pages
    expect(seen).toBe(7);
    expect(seen).toBe(orders.length);
  }, 60_000);

  it('is the only clip with a replay', () => {
    const replayed = server.app.db.prepare("SELECT clip_id FROM served_clips WHERE study_id = 'mushra' AND variant = 'replay' ORDER BY clip_id").pluck().all();
    const references = server.app.db
      .prepare("SELECT DISTINCT json_extract(e.value, '$.clip') FROM items i, json_each(i.stimuli) e WHERE i.study_id = 'mushra' AND json_extract(e.value, '$.slot') = 'reference' ORDER BY 1")
      .pluck().all();
    expect(references).toHaveLength(7);
    expect(replayed).toEqual(references);
  });
});

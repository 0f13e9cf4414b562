/**
 * ABX's X plays from a replay of its own (docs/blinding.md "ABX"): the demo-abx template built
 * from the real files, twice (loudness on, and off without dither: the 16-bit sources copied
 * sample for sample), on a real server on loopback. For every trial of a listener, A, B and X have
 * three distinct ids and ETags, X's bytes are neither A's nor B's, and X decodes to the stimulus
 * it repeats within ±1 LSB (and is not identical to it). The studio's preview shows a check's X as
 * its degraded side. A lost replay is made again, byte for byte, when the server starts.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { restoreMissingCopies, servedAudioDir } from '../../audio-manifest/served';
import { liveRepository } from '../store/live';

const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../../studies/templates/demo-abx.yaml', import.meta.url));
const STUDIES = { abx: null, 'abx-raw': { normalize: false, dither: false } } as const;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ studies: [] });
  for (const [id, loudness] of Object.entries(STUDIES)) {
    const doc = parseDocument(readFileSync(TEMPLATE, 'utf8').replaceAll('../demo/', DEMO));
    if (loudness) doc.set('loudness', loudness);
    const dir = join(server.dataDir, 'studies', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'study.yaml'), doc.toString());
    const { studyId } = await loadStudyDir(server.app.db, dir, { dataDir: server.dataDir });
    setStudyStatus(server.app.db, studyId, 'open');
  }
}, 120_000);
afterAll(() => server?.close());

const heardAll = [0, 1, 2].map(() => ({ plays: 1, secondsHeard: 2, heardToEnd: true }));
const fetchAudio = (url: string) => fetchServed(server.url, url);

describe.each(Object.keys(STUDIES))('ABX replays in study %s', (study) => {
  it('serves every trial’s A, B and X under three ids and ETags, X byte-different from both and within ±1 LSB of the one it repeats', async () => {
    const started = await call(`${server.url}/api/sessions`, { body: { study, external: { PROLIFIC_PID: `P-${study}` } } });
    expect(started.status, started.text).toBe(201);
    const token = started.body.token as string;
    const listener = server.app.store.sessions.byToken(token)!.id;
    const orders = server.app.db.prepare('SELECT slot_order FROM assignments WHERE listener_id = ? ORDER BY position').pluck().all(listener) as string[];
    let state = started.body.state;
    let seen = 0;
    while (state.trial) {
      const { stimuli, position } = state.trial as { position: number; stimuli: { id: string; audioUrl: string }[] };
      expect(new Set(stimuli.map((s) => s.id)).size).toBe(3);
      const [a, b, x] = await Promise.all(stimuli.map((s) => fetchAudio(s.audioUrl)));
      expect(new Set([a.etag, b.etag, x.etag]).size).toBe(3);
      expect(sameBytes(x.bytes, a.bytes)).toBe(false);
      expect(sameBytes(x.bytes, b.bytes)).toBe(false);
      const [first, , xSlot] = JSON.parse(orders[position]) as string[];
      const repeated = xSlot === first ? a : b;
      const [heard, source] = await Promise.all([samples(x.bytes), samples(repeated.bytes)]);
      expect(heard.length).toBe(source.length);
      const differences = heard.map((v, i) => Math.abs(v - source[i]));
      expect(Math.max(...differences)).toBe(1);
      const voted = await call(`${server.url}/api/session/votes`, {
        token,
        body: { voteId: randomUUID(), position, playCount: 3, secondsListened: 6, heardToEnd: true, hiddenMs: 0, responseMs: 1800, clientTs: new Date().toISOString(), listening: heardAll, xIs: 'A' },
      });
      expect(voted.status, voted.text).toBe(200);
      state = (await call(`${server.url}/api/session`, { token })).body;
      seen++;
    }
    expect(seen).toBe(orders.length);
    expect(seen).toBe(15);
  }, 60_000);
});

describe('the studio’s ABX preview', () => {
  it('plays a check’s expected (degraded) side as X, from its replay', () => {
    const preview = liveRepository(server.app.db).preview('abx', { kind: 'abx' });
    const replay = server.app.db.prepare("SELECT id FROM served_clips WHERE study_id = 'abx' AND variant = 'replay' AND clip_id = ?").pluck();
    const copy = server.app.db.prepare("SELECT id FROM served_clips WHERE study_id = 'abx' AND variant = '' AND clip_id = ?").pluck();
    const items = server.app.db.prepare("SELECT seq, stimuli FROM items WHERE study_id = 'abx'").all() as { seq: number; stimuli: string }[];
    const checks = preview.filter((p) => p.kind !== 'abx');
    expect(checks.length).toBe(3);
    for (const p of preview) {
      const stimuli = JSON.parse(items.find((i) => i.seq === p.seq)!.stimuli) as { slot: string; clip: string }[];
      const xSlot = p.expected ?? 'a';
      const clip = stimuli.find((s) => s.slot === xSlot)!.clip;
      const ids = (p.trial as { stimuli: { id: string }[] }).stimuli.map((s) => s.id);
      expect(ids).toEqual([copy.get(stimuli[0].clip), copy.get(stimuli[1].clip), replay.get(clip)]);
    }
  });
});

describe('a lost replay', () => {
  it('is made again byte for byte from its copy and the installation secret', async () => {
    const dir = servedAudioDir(server.app.db);
    const files = server.app.db.prepare("SELECT file FROM served_clips WHERE study_id = 'abx-raw' AND variant = 'replay'").pluck().all() as string[];
    expect(files.length).toBeGreaterThan(0);
    const before = readFileSync(join(dir, files[0]));
    rmSync(join(dir, files[0]));
    const { restored, problems } = await restoreMissingCopies(server.app.db);
    expect(problems).toEqual([]);
    expect(restored).toBe(1);
    expect(sameBytes(readFileSync(join(dir, files[0])), before)).toBe(true);
  });
});

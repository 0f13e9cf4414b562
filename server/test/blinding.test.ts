import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, ratingFor, voteFor } from '../testing/client';
import { peakDb, readCanonicalWav } from '../../audio-manifest/test/audio';
import { activeSpeechLevel } from '../../audio-manifest/loudness';

let server: TestServer;
beforeAll(async () => {
  // A stand-in for dist/client, so the page and its headers are part of what is inspected.
  const clientDir = mkdtempSync(join(tmpdir(), 'earmark-client-'));
  mkdirSync(join(clientDir, 'assets'));
  writeFileSync(join(clientDir, 'index.html'), '<!doctype html><html><head><script type="module" src="/assets/app.js"></script></head><body></body></html>');
  writeFileSync(join(clientDir, 'assets', 'app.js'), 'console.log(1)');
  server = await startTestServer({
    studies: [{ study: 'blind', pairs: 6, attention: 3, practice: 1 }, { study: 'blind-rating', pairs: 6, attention: 3, practice: 1, rating: { caption: true } }],
    app: { clientDir },
  });
});
afterAll(() => server.close());

/**
 * A whole session of `study` as a listener's browser sees it (page, intro, trials, audio, peaks,
 * votes and refusals); fails on anything that names a system, an attention check, an answer, a
 * score, a path or a label. Returns the trials served.
 */
async function expectBlindedSession(study: string, seeded: number, answer: (position: number) => object, wrong: (position: number) => object) {
  const received: string[] = [];
  // Audio bytes as latin1: embedded metadata (LIST/INFO, bext, id3) would show up as text there.
  const audio: string[] = [];
  const fetchAs = async (path: string, init: RequestInit = {}, token?: string) => {
    const headers = new Headers(init.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    if (init.body) headers.set('content-type', 'application/json');
    const res = await fetch(`${server.url}${path}`, { ...init, headers });
    const isAudio = res.headers.get('content-type')?.startsWith('audio/');
    const body = isAudio ? '' : await res.text();
    if (isAudio) audio.push(Buffer.from(await res.arrayBuffer()).toString('latin1'));
    received.push(body, ...[...res.headers].map(([k, v]) => `${k}: ${v}`));
    return { status: res.status, json: () => JSON.parse(body) };
  };

  const page = await fetchAs(`/s/${study}`);
  expect(page.status).toBe(200);
  await fetchAs('/assets/app.js');
  await fetchAs(`/api/studies/${study}/intro`);
  const started = (await fetchAs('/api/sessions', { method: 'POST', body: JSON.stringify({ study, external: { PROLIFIC_PID: 'x' } }) })).json();
  const token = started.token as string;
  let state = started.state;
  const trialClipIds: string[] = [];
  const trials: { position: number; clip: { id: string } }[] = [];
  while (state.trial) {
    trialClipIds.push(state.trial.clip.id);
    trials.push(state.trial);
    await fetchAs(state.trial.clip.audioUrl);
    await fetchAs(state.trial.clip.audioUrl, { headers: { range: 'bytes=0-99' } });
    await fetchAs(state.trial.clip.peaksUrl);
    const ack = await fetchAs('/api/session/votes', { method: 'POST', body: JSON.stringify(answer(state.trial.position)) }, token);
    expect(ack.status).toBe(200);
    // Refusals are listener-visible too.
    await fetchAs('/api/session/votes', { method: 'POST', body: JSON.stringify(wrong(state.trial.position)) }, token);
    state = (await fetchAs('/api/session', {}, token)).json();
  }
  expect(state.completion.code).toBe('C0MPL3TE');

  const db = server.app.db;
  const forbidden = [
    ...server.seeded[seeded].secrets,
    ...(db.prepare('SELECT id FROM items').pluck().all() as string[]),
    ...(db.prepare('SELECT id FROM utterances').pluck().all() as string[]),
    ...(db.prepare("SELECT DISTINCT CAST(score AS TEXT) FROM judge_scores").pluck().all() as string[]),
    ...(db.prepare('SELECT id FROM listeners').pluck().all() as string[]),
    server.dataDir,
    'attention', 'expected', 'system', 'judge', 'ravdess', 'Actor_', '.wav', 'labels',
  ];
  const everything = received.join('\n');
  const audioBytes = audio.join('\n');
  expect(audio.length).toBeGreaterThan(0);
  for (const secret of forbidden) {
    // A score such as 8.25 is a leak as a number of its own, not as digits inside a peak like -0.182513.
    const numeric = /^-?\d+(\.\d+)?$/.test(secret);
    const leaked = numeric
      ? new RegExp(`(?<![\\d.])${secret.replace(/[.-]/g, '\\$&')}(?!\\d)`).test(everything)
      : everything.includes(secret) || audioBytes.includes(secret);
    expect(leaked, `leaked: ${secret}`).toBe(false);
  }
  for (const marker of ['LIST', 'INFO', 'INAM', 'IART', 'ICMT']) expect(audioBytes.includes(marker), marker).toBe(false);

  // Attention trials are addressed like every other trial: same id shape, never a manifest clip id.
  const kindOf = db.prepare<[string], { kind: string }>(
    'SELECT i.kind FROM served_clips s JOIN items i ON i.study_id = s.study_id AND i.clip_id = s.clip_id WHERE s.id = ?',
  );
  for (const id of trialClipIds) expect(id).toMatch(/^c[0-9a-f]{20}$/);
  const manifestIds = db.prepare('SELECT id FROM clips').pluck().all() as string[];
  expect(trialClipIds.filter((id) => manifestIds.includes(id))).toEqual([]);
  return trials.map((trial) => ({ trial, role: kindOf.get(trial.clip.id)?.kind }));
}

describe('blinding', () => {
  it('nothing a listener receives names a system, an attention check, an answer, a score, a path or a label', async () => {
    const served = await expectBlindedSession('blind', 0, (p) => voteFor(p, 2), (p) => voteFor(p, 1));
    expect([...new Set(served.map((s) => s.role))].sort()).toEqual(['attention', 'pair', 'practice']);
  });

  it('a rating study too; its attention checks look exactly like ordinary ratings', async () => {
    // The refusals a listener sees: a repeated answer and an answer of the other kind.
    const served = await expectBlindedSession('blind-rating', 1, (p) => ratingFor(p, 3), (p) => (p % 2 ? ratingFor(p, 4) : voteFor(p, 1)));
    expect([...new Set(served.map((s) => s.role))].sort()).toEqual(['attention', 'practice', 'rating']);
    const shape = (t: object) => JSON.stringify(Object.entries(t).map(([k, v]) => [k, typeof v]).sort());
    const ordinary = served.filter((s) => s.role === 'rating');
    const checks = served.filter((s) => s.role === 'attention');
    for (const { trial } of [...ordinary, ...checks]) {
      expect(trial).toMatchObject({ kind: 'rating', practice: false, caption: expect.any(String) });
      expect(shape(trial)).toBe(shape(ordinary[0].trial));
    }
    expect(served.find((s) => s.role === 'practice')!.trial).toMatchObject({ kind: 'rating', practice: true });
  });

  it('sends a strict CSP without inline scripts, with a style nonce handed to the page', async () => {
    const res = await fetch(`${server.url}/s/blind/anything`);
    const csp = res.headers.get('content-security-policy')!;
    const html = await res.text();
    expect(csp).toMatch(/script-src 'self' 'nonce-/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("media-src 'self' blob:");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    const nonce = /<meta name="csp-nonce" content="([^"]+)">/.exec(html)![1];
    expect(csp).toContain(`'nonce-${nonce}'`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fetch(`${server.url}/index.html`)).status).toBe(404);
    const api404 = await fetch(`${server.url}/api/nothing-here`);
    expect(api404.status).toBe(404);
    expect(await api404.json()).toMatchObject({ error: 'not_found' });
  });

  it('gives pages the document headers, and API answers (refusals too) a policy that allows nothing', async () => {
    const page = (await fetch(`${server.url}/s/blind/anything`)).headers;
    expect(page.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(page.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(page.get('referrer-policy')).toBe('no-referrer');
    for (const res of [await fetch(`${server.url}/api/studies/blind/intro`), await fetch(`${server.url}/api/nothing-here`), await fetch(`${server.url}/api/session`)]) {
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
      expect(res.headers.get('x-frame-options')).toBeNull();
    }
  });
});

describe('blinded audio bytes', () => {
  // Two studies in one installation, and a second installation seeded with byte-identical corpus files.
  let one: TestServer;
  let other: TestServer;
  beforeAll(async () => {
    one = await startTestServer({ studies: [{ study: 'blind-a', pairs: 3, attention: 1 }, { study: 'blind-b', pairs: 3, attention: 1 }] });
    other = await startTestServer({ studies: [{ study: 'blind-a', pairs: 3, attention: 1 }] });
  });
  afterAll(async () => {
    await one?.close();
    await other?.close();
  });

  const get = async (server: TestServer, id: string, what = 'audio') => {
    const res = await fetch(`${server.url}/media/clips/${id}/${what}`);
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  it('serve a fresh 16-bit WAV with no metadata, and no hash, size or date of the corpus file in any header', async () => {
    const [study] = one.seeded;
    for (const [n, id] of study.clipIds.entries()) {
      const original = readFileSync(study.audioFiles[n]);
      expect(original.toString('latin1')).toContain('actor07-female'); // the corpus file carries LIST/INFO
      const { res, bytes } = await get(one, id);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('audio/wav');
      expect(readCanonicalWav(bytes).chunks).toEqual(['fmt ', 'data']);
      const text = bytes.toString('latin1');
      for (const s of ['actor07', 'fearful', 'Actor_07', '03-01-0', 'LIST', 'INFO']) expect(text.includes(s), s).toBe(false);

      const headers = [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
      const sha = createHash('sha256').update(original).digest();
      const copySha = createHash('sha256').update(bytes).digest();
      const stored = one.app.db.prepare('SELECT c.sha256 FROM clips c JOIN served_clips s ON s.clip_id = c.id WHERE s.id = ?').pluck().get(id) as string;
      for (const hash of [sha, copySha]) {
        for (const form of [hash.toString('hex').slice(0, 12), hash.toString('base64').slice(0, 12), hash.toString('base64url').slice(0, 12)]) {
          expect(headers.includes(form), form).toBe(false);
        }
      }
      expect(headers.includes(stored.slice(0, 12))).toBe(false);
      expect(headers.includes(original.length.toString(16))).toBe(false);
      const modified = Math.floor(Date.parse(res.headers.get('last-modified')!) / 1000);
      expect(modified).not.toBe(Math.floor(statSync(study.audioFiles[n]).mtimeMs / 1000));
    }
  });

  it('play every clip at the study target (the default -26 dBov P.56 active speech level, measured on the served PCM) and draw its waveform at that gain', async () => {
    for (const id of one.seeded[0].clipIds) {
      const { bytes } = await get(one, id);
      const { samples, sampleRate } = readCanonicalWav(bytes);
      expect(Math.abs(activeSpeechLevel([samples], sampleRate)!.level + 26)).toBeLessThan(0.05);
      const peaks = (await call(`${one.url}/media/clips/${id}/peaks`)).body as { data: number[] };
      const drawn = Math.max(...peaks.data.map(Math.abs));
      // Peaks are stored to 4 decimals: equal to the copy's own peak at that precision.
      expect(drawn).toBeCloseTo(10 ** (peakDb(samples) / 20), 4);
    }
  });

  it('identical corpus files get different ETags, dates and ids in another installation and in another study', async () => {
    const [a, b] = one.seeded;
    const [elsewhere] = other.seeded;
    // The same study name and position seed byte-identical corpus files (metadata included) in both installations.
    expect(readFileSync(elsewhere.audioFiles[1])).toEqual(readFileSync(a.audioFiles[1]));
    const here = await get(one, a.clipIds[1]);
    const there = await get(other, elsewhere.clipIds[1]);
    const sibling = await get(one, b.clipIds[1]);
    expect(there.bytes).toEqual(here.bytes);
    expect(sibling.bytes).toEqual(here.bytes);
    expect(there.res.headers.get('etag')).not.toBe(here.res.headers.get('etag'));
    expect(there.res.headers.get('last-modified')).not.toBe(here.res.headers.get('last-modified'));
    expect(elsewhere.clipIds[1]).not.toBe(a.clipIds[1]);
    expect(b.clipIds[1]).not.toBe(a.clipIds[1]);
    // Each installation's ETag still revalidates its own copy.
    const again = await fetch(`${other.url}/media/clips/${elsewhere.clipIds[1]}/audio`, { headers: { 'if-none-match': there.res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call } from '../testing/client';

let server: TestServer;
let audioUrl: string;
let bytes: Buffer;
beforeAll(async () => {
  server = await startTestServer();
  const [clipId] = server.seeded[0].clipIds;
  audioUrl = `${server.url}/media/clips/${clipId}/audio`;
  // What is served is the study's copy in the data dir, not the corpus file.
  const { file } = server.app.db.prepare('SELECT file FROM served_clips WHERE id = ?').get(clipId) as { file: string };
  bytes = readFileSync(join(server.dataDir, 'served-audio', file));
});
afterAll(() => server.close());

describe('clip audio', () => {
  it('sends the whole file with validators and long-lived caching, and no file name', async () => {
    const res = await fetch(audioUrl);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
    expect(bytes.length).not.toBe(readFileSync(server.seeded[0].audioFiles[0]).length);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers.get('last-modified')).toBeTruthy();
    expect(res.headers.get('content-disposition')).toBeNull();
  });

  it('answers byte ranges (closed, open, suffix) with 206 and refuses unsatisfiable ones with 416', async () => {
    const part = await fetch(audioUrl, { headers: { range: 'bytes=10-29' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-29/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(10, 30));
    const tail = await fetch(audioUrl, { headers: { range: 'bytes=-16' } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 16));
    const open = await fetch(audioUrl, { headers: { range: `bytes=${bytes.length - 5}-` } });
    expect((await open.arrayBuffer()).byteLength).toBe(5);
    const beyond = await fetch(audioUrl, { headers: { range: `bytes=${bytes.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect(await beyond.json()).toMatchObject({ error: 'range_not_satisfiable' });
  });

  it('revalidates: If-None-Match and If-Modified-Since give 304; a stale If-Range gives the whole file', async () => {
    const first = await fetch(audioUrl);
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    const byTag = await fetch(audioUrl, { headers: { 'if-none-match': etag } });
    expect(byTag.status).toBe(304);
    const byDate = await fetch(audioUrl, { headers: { 'if-modified-since': first.headers.get('last-modified')! } });
    expect(byDate.status).toBe(304);
    const changed = await fetch(audioUrl, { headers: { 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);
    await changed.arrayBuffer();
    const stale = await fetch(audioUrl, { headers: { range: 'bytes=0-3', 'if-range': '"old"' } });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
    const fresh = await fetch(audioUrl, { headers: { range: 'bytes=0-3', 'if-range': etag } });
    expect(fresh.status).toBe(206);
    await fresh.arrayBuffer();
  });

  it('serves peaks as JSON with an ETag', async () => {
    const res = await call(`${server.url}/media/clips/${server.seeded[0].clipIds[0]}/peaks`);
    expect(res.status).toBe(200);
    expect(res.body.resolution).toBe(100);
    expect(res.body.data.every((v: number) => v >= -1 && v <= 1)).toBe(true);
    const again = await fetch(`${server.url}/media/clips/${server.seeded[0].clipIds[0]}/peaks`, {
      headers: { 'if-none-match': res.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('answers unknown ids and path traversal with a JSON 404', async () => {
    for (const id of ['nope', '..%2F..%2F..%2Fetc%2Fpasswd', '%2e%2e', encodeURIComponent(server.seeded[0].audioFiles[0])]) {
      for (const what of ['audio', 'peaks']) {
        const res = await call(`${server.url}/media/clips/${id}/${what}`);
        expect(res.status, id).toBe(404);
        expect(res.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      }
    }
    const raw = await call(`${server.url}/media/clips/../../../etc/passwd`);
    expect(raw.status).toBe(404);
    expect(raw.body.error).toBe('not_found');
  });
});

describe('refusals made before any route runs', () => {
  it('answer in the API error shape: a bad percent-encoding, an over-long id, oversized headers', async () => {
    const badUrl = await call(`${server.url}/media/clips/%E0%A4%A/audio`);
    expect(badUrl.status).toBe(400);
    expect(badUrl.body).toMatchObject({ error: 'bad_url', message: expect.any(String) });
    const longId = await call(`${server.url}/media/clips/${'c'.repeat(500)}/audio`);
    expect(longId.status).toBe(414);
    expect(longId.body).toMatchObject({ error: 'uri_too_long', message: expect.any(String) });
    const bigHeaders = await fetch(`${server.url}/media/clips/x/audio`, { headers: { 'x-padding': 'x'.repeat(20_000) } });
    expect(bigHeaders.status).toBe(431);
    expect(await bigHeaders.json()).toEqual({ error: 'headers_too_large', message: 'the request headers are too large' });
  });
});

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { voteFor } from '../testing/client';

let server: TestServer;
beforeAll(async () => {
  // A stand-in for dist/client, so the page and its headers are part of what is inspected.
  const clientDir = mkdtempSync(join(tmpdir(), 'earmark-client-'));
  mkdirSync(join(clientDir, 'assets'));
  writeFileSync(join(clientDir, 'index.html'), '<!doctype html><html><head><script type="module" src="/assets/app.js"></script></head><body></body></html>');
  writeFileSync(join(clientDir, 'assets', 'app.js'), 'console.log(1)');
  server = await startTestServer({ studies: [{ study: 'blind', pairs: 6, attention: 3, practice: 1 }], app: { clientDir } });
});
afterAll(() => server.close());

describe('blinding', () => {
  it('nothing a listener receives names a system, an attention check, an answer, a score, a path or a label', async () => {
    const received: string[] = [];
    const fetchAs = async (path: string, init: RequestInit = {}, token?: string) => {
      const headers = new Headers(init.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      if (init.body) headers.set('content-type', 'application/json');
      const res = await fetch(`${server.url}${path}`, { ...init, headers });
      const isAudio = res.headers.get('content-type')?.startsWith('audio/');
      const body = isAudio ? '' : await res.text();
      if (isAudio) await res.arrayBuffer();
      received.push(body, ...[...res.headers].map(([k, v]) => `${k}: ${v}`));
      return { status: res.status, json: () => JSON.parse(body) };
    };

    const page = await fetchAs('/s/blind');
    expect(page.status).toBe(200);
    await fetchAs('/assets/app.js');
    await fetchAs('/api/studies/blind/intro');
    const started = (await fetchAs('/api/sessions', { method: 'POST', body: JSON.stringify({ study: 'blind', external: { PROLIFIC_PID: 'x' } }) })).json();
    const token = started.token as string;
    let state = started.state;
    while (state.trial) {
      await fetchAs(state.trial.clip.audioUrl);
      await fetchAs(state.trial.clip.audioUrl, { headers: { range: 'bytes=0-99' } });
      await fetchAs(state.trial.clip.peaksUrl);
      const ack = await fetchAs('/api/session/votes', { method: 'POST', body: JSON.stringify(voteFor(state.trial.position, 2)) }, token);
      expect(ack.status).toBe(200);
      // Refusals are listener-visible too.
      await fetchAs('/api/session/votes', { method: 'POST', body: JSON.stringify(voteFor(state.trial.position, 1)) }, token);
      state = (await fetchAs('/api/session', {}, token)).json();
    }
    expect(state.completion.code).toBe('C0MPL3TE');

    const db = server.app.db;
    const forbidden = [
      ...server.seeded[0].secrets,
      ...(db.prepare('SELECT id FROM items').pluck().all() as string[]),
      ...(db.prepare('SELECT id FROM utterances').pluck().all() as string[]),
      ...(db.prepare("SELECT DISTINCT CAST(score AS TEXT) FROM judge_scores").pluck().all() as string[]),
      ...(db.prepare('SELECT id FROM listeners').pluck().all() as string[]),
      server.dataDir,
      'attention', 'expected', 'system', 'judge', 'ravdess', 'Actor_', '.wav', 'labels',
    ];
    const everything = received.join('\n');
    for (const secret of forbidden) {
      // A score such as 8.25 is a leak as a number of its own, not as digits inside a peak like -0.182513.
      const leaked = /^-?\d+(\.\d+)?$/.test(secret)
        ? new RegExp(`(?<![\\d.])${secret.replace(/[.-]/g, '\\$&')}(?!\\d)`).test(everything)
        : everything.includes(secret);
      expect(leaked, `leaked: ${secret}`).toBe(false);
    }
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
});

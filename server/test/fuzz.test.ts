import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, voteFor } from '../testing/client';

/**
 * Hostile input: every request here is malformed in at least one way (each mutation alone
 * makes it invalid), so every answer must be a 4xx JSON error and no row may change.
 */
let server: TestServer;
let listenerToken: string;
let researcherToken: string;
const TABLES = ['studies', 'items', 'clips', 'listeners', 'assignments', 'votes', 'access_tokens'];
const rowCounts = () =>
  Object.fromEntries(TABLES.map((t) => [t, (server.app.db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]));

beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'fuzz' }] });
  listenerToken = (await call(`${server.url}/api/sessions`, { body: { study: 'fuzz' } })).body.token;
  researcherToken = (await server.app.store.accessTokens.create('researcher')).token;
});
afterAll(() => server.close());

const oddString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('\u0000', '\ud800', '﻿', '‮evil', '../../etc/passwd', '%00', 'NaN', '-Infinity', '1e309', '<script>'),
  fc.integer({ min: 5000, max: 40000 }).map((n) => 'x'.repeat(n)),
);
const notAString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }), fc.object({ maxDepth: 1 }));

// For each vote field, values that are always invalid for it.
const badVoteValue: Record<string, fc.Arbitrary<unknown>> = {
  voteId: fc.oneof(notAString, fc.constantFrom('', 'not-a-uuid', '123e4567-e89b-12d3-a456-42661417400'), oddString.filter((s) => !/^[0-9a-f-]{36}$/i.test(s))),
  position: fc.oneof(fc.integer({ max: -1 }), fc.double({ min: 0.1, max: 0.9, noNaN: true }), fc.constantFrom('0', null, true, [], 'NaN')),
  choice: fc.oneof(fc.integer({ min: 3 }), fc.integer({ max: 0 }), fc.constantFrom('1', 1.5, null, '2')),
  playCount: fc.oneof(fc.integer({ max: -1 }), fc.integer({ min: 10_001 }), fc.constantFrom('x', null, 0.5)),
  secondsListened: fc.oneof(fc.double({ max: -0.001, noNaN: true }), fc.constantFrom('NaN', null, 86_401, '3')),
  heardToEnd: fc.constantFrom('true', 1, 0, null, 'yes'),
  hiddenMs: fc.oneof(fc.integer({ max: -1 }), fc.constantFrom(0.5, '5', null)),
  responseMs: fc.oneof(fc.integer({ max: -1 }), fc.constantFrom('fast', 86_400_001, null)),
  clientTs: fc.oneof(notAString, fc.constantFrom('yesterday', '', '2024-13-45T00:00:00Z', '2024-01-01')),
};
const VOTE_FIELDS = Object.keys(badVoteValue);

const mutatedVote = fc
  .record({
    wrong: fc.subarray(VOTE_FIELDS, { minLength: 0, maxLength: 3 }),
    missing: fc.subarray(VOTE_FIELDS, { minLength: 0, maxLength: 2 }),
    extra: fc.option(fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !VOTE_FIELDS.includes(k) && k !== '__proto__'), { nil: undefined }),
  })
  .filter((m) => m.wrong.length + m.missing.length > 0 || m.extra !== undefined)
  .chain((m) =>
    fc.tuple(...m.wrong.map((f) => badVoteValue[f]), oddString).map(([...values]) => {
      const vote: Record<string, unknown> = { ...voteFor(0) };
      m.wrong.forEach((f, i) => (vote[f] = values[i]));
      for (const f of m.missing) delete vote[f];
      if (m.extra !== undefined) vote[m.extra] = values.at(-1);
      return vote;
    }),
  );

interface FuzzRequest {
  path: string;
  method: 'GET' | 'POST';
  body?: string;
  headers: Record<string, string>;
}
const json = (value: unknown) => JSON.stringify(value);
// URLs cannot carry lone surrogates; everything else odd goes through percent-encoded.
const enc = (s: string) =>
  encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const jsonHeaders = (token?: string) => ({ 'content-type': 'application/json', ...(token ? bearer(token) : {}) });

const requests: fc.Arbitrary<FuzzRequest> = fc.oneof(
  // Votes: malformed bodies with a valid session.
  mutatedVote.map((v) => ({ path: '/api/session/votes', method: 'POST' as const, body: json(v), headers: jsonHeaders(listenerToken) })),
  // Votes: a valid body but a broken envelope (type, truncation, token, size).
  fc.oneof(
    fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=utf-16'),
  ).map((type) => ({ path: '/api/session/votes', method: 'POST' as const, body: json(voteFor(0)), headers: { 'content-type': type, ...bearer(listenerToken) } })),
  fc.double({ min: 0, max: 0.999, noNaN: true }).map((share) => {
    const whole = json(voteFor(0));
    return { path: '/api/session/votes', method: 'POST' as const, body: whole.slice(0, Math.floor(share * whole.length)), headers: jsonHeaders(listenerToken) };
  }),
  oddString.map((token) => ({ path: '/api/session/votes', method: 'POST' as const, body: json(voteFor(0)), headers: jsonHeaders(token.replace(/[^\x21-\x7e]/g, '') + 'x') })),
  fc.constant({ path: '/api/session/votes', method: 'POST' as const, body: json({ ...voteFor(0), pad: 'x'.repeat(20_000) }), headers: jsonHeaders(listenerToken) }),
  fc.constantFrom('null', '[]', '"vote"', '42', '{}', '{"__proto__":{"x":1}}', 'true').map((body) => ({
    path: '/api/session/votes', method: 'POST' as const, body, headers: jsonHeaders(listenerToken),
  })),
  // Session start: wrong shapes, unknown or malformed studies, bad external ids.
  fc.oneof(
    oddString.map((study) => ({ study: `zz-${study}` })),
    notAString.map((study) => ({ study })),
    fc.record({ study: fc.constant('fuzz'), external: fc.oneof(notAString, fc.dictionary(fc.string({ minLength: 65, maxLength: 80 }), fc.string())) }),
    fc.record({ study: fc.constant('fuzz'), unexpected: oddString }),
    fc.constant({}),
  ).map((body) => ({ path: '/api/sessions', method: 'POST' as const, body: json(body), headers: jsonHeaders() })),
  // Screening: one field always wrong.
  fc.record({
    kind: fc.constantFrom('antiphase', 'Huggins', 'none', 1),
    passed: fc.constantFrom('yes', null, 1),
    correct: fc.constantFrom(-1, 0.5, '6'),
    trials: fc.constantFrom(0, -6, 'six'),
    attempts: fc.constantFrom(1),
    userAgent: oddString.map((s) => s + 'x'.repeat(600)),
    audioOutput: fc.constantFrom('speakers', null, 5),
  }).map((body) => ({ path: '/api/session/screening', method: 'POST' as const, body: json(body), headers: jsonHeaders(listenerToken) })),
  // Reads with weird ids and tokens.
  oddString.map((s) => ({ path: `/api/studies/${enc(`zz-${s}`)}/intro`, method: 'GET' as const, headers: {} })),
  oddString.map((s) => ({ path: '/api/session', method: 'GET' as const, headers: { authorization: `Bearer ${enc(s)}z` } })),
  fc.tuple(oddString, fc.constantFrom('audio', 'peaks')).map(([s, what]) => ({
    path: `/media/clips/${enc(`zz${s}`)}/${what}`, method: 'GET' as const, headers: {},
  })),
  fc.constantFrom('bytes=999999-', 'bytes=-0', 'bytes=500000-600000').map((range) => ({
    path: `/media/clips/${server.seeded[0].clipIds[0]}/audio`, method: 'GET' as const, headers: { range },
  })),
  // Researcher routes: bad tokens, bad bodies with a good token, unknown studies.
  oddString.map((s) => ({ path: '/api/studio/studies', method: 'GET' as const, headers: { authorization: `Bearer ${enc(s)}.x` } })),
  fc.oneof(notAString, oddString.filter((s) => !['draft', 'open', 'paused', 'closed'].includes(s))).map((status) => ({
    path: '/api/studio/studies/fuzz/status', method: 'POST' as const, body: json({ status }), headers: jsonHeaders(researcherToken),
  })),
  oddString.map((s) => ({ path: `/api/studio/studies/${enc(`zz-${s}`)}/export`, method: 'GET' as const, headers: bearer(researcherToken) })),
  // Routes that do not exist.
  fc.tuple(oddString, fc.constantFrom('GET', 'POST') as fc.Arbitrary<'GET' | 'POST'>).map(([s, method]) => ({
    path: `/api/${enc(s)}x/nothing`, method, headers: {},
  })),
);

describe('fuzz', () => {
  it('answers 600 malformed requests across every endpoint with a 4xx JSON error and changes nothing', async () => {
    const before = rowCounts();
    let sent = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requests, async (req) => {
        const res = await fetch(`${server.url}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
        const text = await res.text();
        sent++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, `${req.method} ${req.path} ${req.body?.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${req.method} ${req.path} ${req.body?.slice(0, 200)} → ${text}`).toBeLessThan(500);
        const body = JSON.parse(text);
        expect(typeof body.error).toBe('string');
        expect(typeof body.message).toBe('string');
        if (body.error === 'invalid_request') expect(body.field, text).toEqual(expect.any(String));
      }),
      { numRuns: 600, seed: 20_240_601 },
    );
    expect(sent).toBeGreaterThanOrEqual(600);
    expect(rowCounts()).toEqual(before);
    console.log(`fuzz: ${sent} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  });
});

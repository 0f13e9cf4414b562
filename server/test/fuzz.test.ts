import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/server';
import { call, takeScreening, voteFor } from '../testing/client';

/**
 * Hostile input: every request here is malformed in at least one way (each mutation alone
 * makes it invalid), so every answer must be a 4xx JSON error, no row may change and no file
 * under the data directory may appear, change or escape it. Each generator names the route it
 * aims at, and a guard test fails when the app registers a route no generator aims at.
 */
let server: TestServer;
let listenerToken = '';
/** A listener whose headphone check is recorded: every later screening must be refused. */
let screenedToken = '';
let screenedBefore = '';
let revokedToken = '';
let researcherToken = '';
let analystToken = '';
let templateYaml = '';
/** A study folder the studio made (not built): requests on it reach the body and YAML checks. */
const DRAFT = 'fuzz-draft';
/** Every path-like payload carries this marker, so an escaped write is found by name. */
const ESCAPE = 'fz-escape';
const STUDY_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\.(json|csv)$/;

const tableNames = () =>
  (server.app.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
const screeningOf = (token: string) =>
  (server.app.db.prepare('SELECT screening FROM listeners WHERE id = ?').get(server.app.store.sessions.byToken(token)!.id) as { screening: string }).screening;
const validScreening = (attempt: number, kind = 'antiphase') => ({ kind, attempt, answers: [0, 1, 2, 0, 1, 2], userAgent: 'fuzz', audioOutput: {} });
const rowCounts = () =>
  Object.fromEntries(tableNames().map((t) => [t, (server.app.db.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n]));

/** Every file under the data directory but the database, with a hash of its content. */
function dataFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        files[`${relative(server.dataDir, path)}${sep}`] = 'dir';
        walk(path);
      } else if (!/^earmark\.db(-wal|-shm|-journal)?$/.test(entry.name) || dir !== server.dataDir) {
        files[relative(server.dataDir, path)] = createHash('sha1').update(readFileSync(path)).digest('hex');
      }
    }
  };
  walk(server.dataDir);
  return files;
}

/** Entries named after the escape marker in the draft's folders and every folder above them up to the temp dir. */
function escapedFiles(): string[] {
  const found: string[] = [];
  for (let dir = join(server.dataDir, 'studies', DRAFT, 'judges'); ; dir = dirname(dir)) {
    if (existsSync(dir) && statSync(dir).isDirectory()) {
      found.push(...readdirSync(dir).filter((f) => f.includes(ESCAPE)).map((f) => join(dir, f)));
    }
    if (dir === tmpdir() || dir === dirname(dir)) break;
  }
  return found;
}

beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'fuzz' }] });
  listenerToken = (await call(`${server.url}/api/sessions`, { body: { study: 'fuzz' } })).body.token;
  // A participant's session: whatever the fuzz sends, its screening stays as recorded. (A start with the same
  // PROLIFIC_PID and another STUDY_ID is a session of its own, not a malformed request: server/test/lockout.test.ts.)
  screenedToken = (await call(`${server.url}/api/sessions`, { body: { study: 'fuzz', external: { PROLIFIC_PID: 'fz-pid', STUDY_ID: 'fz-study' } } })).body.token;
  const screened = await takeScreening(server.url, screenedToken, 'antiphase', false);
  expect(screened.status, JSON.stringify(screened.body)).toBe(200);
  screenedBefore = screeningOf(screenedToken);
  const revoked = await server.app.store.accessTokens.create('researcher');
  server.app.store.accessTokens.revoke(revoked.id);
  revokedToken = revoked.token;
  researcherToken = (await server.app.store.accessTokens.create('researcher')).token;
  analystToken = (await server.app.store.accessTokens.create('analyst')).token;
  const templates = await call(`${server.url}/api/studio/templates`, { token: researcherToken });
  templateYaml = templates.body.templates.find((t: { id: string }) => t.id === 'metaset-caption-preference').yaml;
  const draft = await call(`${server.url}/api/studio/studies`, { token: researcherToken, body: { name: DRAFT, template: 'metaset-caption-preference' } });
  expect(draft.status, draft.text).toBe(201);
});
afterAll(async () => {
  await server.close();
});

/* ---- Values ---- */

const oddString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('\u0000', '\ud800', '﻿', '‮evil', '../../etc/passwd', '%00', 'NaN', '-Infinity', '1e309', '<script>'),
  fc.integer({ min: 5000, max: 40000 }).map((n) => 'x'.repeat(n)),
);
const notAString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }), fc.object({ maxDepth: 1 }));
const nanLike = fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e309', '-0', '0x10', '', ' 1', null);
/** A study name that is never a study id: traversal-like, odd Unicode, wrong case or length. */
const badStudyName = fc.oneof(
  fc.constantFrom(
    '..', '.', `../${ESCAPE}`, `../../${ESCAPE}`, `..\\${ESCAPE}`, `fuzz/../${ESCAPE}`, `${ESCAPE}\u0000`, '\u0000', 'FUZZ', '-fuzz',
    'fuzz ', 'a'.repeat(65), `%2e%2e%2f${ESCAPE}`, '‮fuzz', 'fuzz\n', 'ｆｕｚｚ', 'fuzz\u200b',
  ),
  oddString.filter((s) => !STUDY_ID.test(s)),
);
/** A name that is a study id but no study's: the request reaches the lookup. */
const unknownStudy = fc.stringMatching(/^zz[a-z0-9-]{0,20}$/);
const badFileName = fc.oneof(
  fc.constantFrom(
    `../${ESCAPE}.json`, `../../${ESCAPE}.json`, `..\\${ESCAPE}.json`, `a/../../${ESCAPE}.json`, `/tmp/${ESCAPE}.json`, `.${ESCAPE}.json`,
    `${ESCAPE}.json\u0000`, `${ESCAPE}\u0000.json`, `%2e%2e%2f${ESCAPE}.json`, `${ESCAPE}.json/..`, `${ESCAPE}.exe`, `${ESCAPE}`,
    `${'x'.repeat(130)}.json`, `${ESCAPE} .json`, `${ESCAPE}.JSON`, '.json', '..json',
  ),
  oddString.filter((s) => !FILE_NAME.test(s)),
);
const notJson = fc.oneof(
  fc.constantFrom('{', '[1,', "{'a':1}", 'NaN', 'undefined', '{"a":1}}', '\ufeff{}', 'system,score\n1,2'),
  oddString,
).filter((s) => {
  try {
    JSON.parse(s);
    return false;
  } catch {
    return true;
  }
});

/**
 * A study.yaml that never passes: YAML syntax errors, documents that are not a mapping, the
 * reference template with an unknown key or a wrong value added, alias bombs, deep nesting.
 */
const badYaml: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'title: [unclosed', 'a: b: c', 'key: "unterminated', '{', ': no key', 'a:\n  - x\n y: z', '---\na: 1\n---\nb: 2', 'a: &x 1\nb: *y',
    '%YAML 9.9\n---\na: 1', 'title: x\ntitle: y', '\ttitle: x', '!!binary ~~~', 'a: !unknown-tag x', '? [a, b]\n: c',
  ),
  fc.constantFrom('', '~', '42', '- a\n- b', '"just a string"', '[]', '.nan', '\ufeff', '\u0000'),
  fc.record({ key: fc.stringMatching(/^zz[a-z_]{0,12}$/), value: oddString }).map(({ key, value }) => () => `${templateYaml}\n${key}: ${JSON.stringify(value)}\n`),
  fc.constantFrom(
    ['targetListeners: 15', 'targetListeners: .nan'], ['targetListeners: 15', 'targetListeners: -.inf'], ['targetListeners: 15', 'targetListeners: -3'],
    ['targetListeners: 15', 'targetListeners: 1e309'], ['targetListeners: 15', 'targetListeners: "15"'], ['count: 100', 'count: -1'],
    ['listening: { mode: whole }', 'listening: { mode: whole, speed: 2 }'], ['design:\n  kind: crossed', 'design:\n  kind: ‮crossed'],
    ['minAttention: 0.75', 'minAttention: .NaN'], ['buckets: 5', 'buckets: 0x7fffffffffffffffff'],
    ['redirectUrl: https://app.prolific.com', 'redirectUrl: javascript:alert(1)//app.prolific.com'],
    ['redirectUrl: https://app.prolific.com', 'redirectUrl: data:text/html,app.prolific.com'],
    ['redirectUrl: https://app.prolific.com', 'redirectUrl: ftp://app.prolific.com'],
  ).map(([from, to]) => () => {
    if (!templateYaml.includes(from)) throw new Error(`the template no longer says ${from}`);
    return templateYaml.replace(from, to);
  }),
  fc.double({ min: 0, max: 1, noNaN: true }).map((share) => () => `${templateYaml.slice(0, Math.floor(share * templateYaml.length))}\nzz_after_cut: 1\n`),
  fc.integer({ min: 10, max: 1000 }).map((n) => () => `${templateYaml}\n${Array.from({ length: n }, (_, i) => `zz${i}: ${i}`).join('\n')}\n`),
  fc.integer({ min: 2, max: 12 }).map((n) => {
    const levels = Array.from({ length: n }, (_, i) => `l${i}: &l${i} [${Array(9).fill(i === 0 ? 'lol' : `*l${i - 1}`).join(', ')}]`);
    return `${levels.join('\n')}\ntitle: *l${n - 1}\n`;
  }),
  fc.integer({ min: 50, max: 2000 }).map((n) => `title: ${'['.repeat(n)}${']'.repeat(n)}\n`),
  fc.integer({ min: 50, max: 2000 }).map((n) => `title: ${'['.repeat(n)}\n`),
  fc.integer({ min: 50, max: 400 }).map((n) => `${Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')} x\n`),
).map((yaml) => (typeof yaml === 'function' ? yaml() : yaml));

/** The record `base` with one to three fields replaced by always-wrong values, some dropped, or an unknown one added. */
function mutated(base: () => Record<string, unknown>, bad: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.keys(bad);
  const present = Object.keys(base());
  return fc
    .record({
      wrong: fc.subarray(fields, { minLength: 0, maxLength: Math.min(3, fields.length) }),
      missing: fc.subarray(present, { minLength: 0, maxLength: Math.min(2, present.length) }),
      extra: fc.option(fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !present.includes(k) && !fields.includes(k) && k !== '__proto__'), { nil: undefined }),
    })
    .filter((m) => m.wrong.length + m.missing.length > 0 || m.extra !== undefined)
    .chain((m) =>
      fc.tuple(...m.wrong.map((f) => bad[f]), oddString).map(([...values]) => {
        const record: Record<string, unknown> = base();
        m.wrong.forEach((f, i) => (record[f] = values[i]));
        for (const f of m.missing) delete record[f];
        if (m.extra !== undefined) record[m.extra] = values.at(-1);
        return record;
      }),
    );
}

// For each vote field, values that are always invalid for it.
const mutatedVote = mutated(() => ({ ...voteFor(0) }), {
  voteId: fc.oneof(notAString, fc.constantFrom('', 'not-a-uuid', '123e4567-e89b-12d3-a456-42661417400'), oddString.filter((s) => !/^[0-9a-f-]{36}$/i.test(s))),
  position: fc.oneof(fc.integer({ max: -1 }), fc.double({ min: 0.1, max: 0.9, noNaN: true }), fc.constantFrom('0', null, true, [], 'NaN')),
  choice: fc.oneof(fc.integer({ min: 3 }), fc.integer({ max: 0 }), fc.constantFrom('1', 1.5, null, '2')),
  playCount: fc.oneof(fc.integer({ max: -1 }), fc.integer({ min: 10_001 }), fc.constantFrom('x', null, 0.5)),
  secondsListened: fc.oneof(fc.double({ max: -0.001, noNaN: true }), fc.constantFrom('NaN', null, 86_401, '3')),
  heardToEnd: fc.constantFrom('true', 1, 0, null, 'yes'),
  hiddenMs: fc.oneof(fc.integer({ max: -1 }), fc.constantFrom(0.5, '5', null)),
  responseMs: fc.oneof(fc.integer({ max: -1 }), fc.constantFrom('fast', 86_400_001, null)),
  clientTs: fc.oneof(notAString, fc.constantFrom('yesterday', '', '2024-13-45T00:00:00Z', '2024-01-01')),
});

/* ---- Requests ---- */

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS';
interface FuzzRequest {
  /** The registered route aimed at ("POST /api/studio/studies/:study/files"), or "unrouted". */
  route: string;
  method: Method;
  /** Sent as it is (node:http, no URL normalisation), so `..` and `%2e%2e` reach the server. */
  path: string;
  body?: string | Buffer;
  headers: Record<string, string>;
}
type Shot = Omit<FuzzRequest, 'route' | 'method'> & { method?: Method };

const methodOf = (route: string): Method => (/^(GET|POST|PUT|DELETE) /.test(route) ? (route.split(' ')[0] as Method) : 'GET');
const json = (value: unknown) => JSON.stringify(value);
// Paths cannot carry lone surrogates; everything else odd goes through percent-encoded.
const enc = (s: string) =>
  encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const jsonHeaders = (token?: string) => ({ 'content-type': 'application/json', ...(token ? bearer(token) : {}) });
/** A path segment from a bad name: mostly percent-encoded, sometimes raw where HTTP allows it. */
const segment = (name: string, raw: boolean) => (raw && /^[\x21-\x7e]+$/.test(name) && !/[?#%]/.test(name) ? name : enc(name));
const badSegment = fc.tuple(badStudyName, fc.boolean()).map(([name, raw]) => segment(name, raw));
const wrongTypes = fc.constantFrom(
  'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=utf-16',
  'application/yaml', 'text/yaml; charset=latin1', 'image/png',
);
/** Content types the server has no parser for (or refuses by charset): refused before any handler runs. */
const refusedTypes = wrongTypes.filter((t) => t !== 'text/plain');
const truncated = (whole: string) => fc.double({ min: 0, max: 0.999, noNaN: true }).map((share) => whole.slice(0, Math.floor(share * whole.length)));
const notAnObject = fc.constantFrom('null', '[]', '"x"', '42', '-0', 'true', '1e999', '[{}]');

type Role = 'researcher' | 'reader';
/** The routes behind an access token, with a path that a valid token would be answered 2xx on. */
const TOKEN_ROUTES: { route: string; path: string; role: Role }[] = [
  { route: 'GET /api/studio/studies', path: '/api/studio/studies', role: 'reader' },
  { route: 'GET /api/studio/session', path: '/api/studio/session', role: 'reader' },
  { route: 'GET /api/studio/templates', path: '/api/studio/templates', role: 'researcher' },
  { route: 'POST /api/studio/studies', path: '/api/studio/studies', role: 'researcher' },
  { route: 'GET /api/studio/studies/:study', path: '/api/studio/studies/fuzz', role: 'researcher' },
  { route: 'GET /api/studio/studies/:study/export', path: '/api/studio/studies/fuzz/export', role: 'reader' },
  { route: 'PUT /api/studio/studies/:study/definition', path: `/api/studio/studies/${DRAFT}/definition`, role: 'researcher' },
  { route: 'POST /api/studio/studies/:study/files', path: `/api/studio/studies/${DRAFT}/files`, role: 'researcher' },
  { route: 'POST /api/studio/studies/:study/sources', path: `/api/studio/studies/${DRAFT}/sources`, role: 'researcher' },
  { route: 'POST /api/studio/studies/:study/audio', path: `/api/studio/studies/${DRAFT}/audio`, role: 'researcher' },
  { route: 'POST /api/studio/studies/:study/validate', path: `/api/studio/studies/${DRAFT}/validate`, role: 'researcher' },
  { route: 'POST /api/studio/studies/:study/build', path: `/api/studio/studies/${DRAFT}/build`, role: 'researcher' },
  { route: 'POST /api/studio/studies/:study/clone', path: `/api/studio/studies/${DRAFT}/clone`, role: 'researcher' },
  { route: 'POST /api/studio/studies/:study/plan', path: `/api/studio/studies/${DRAFT}/plan`, role: 'researcher' },
  { route: 'POST /api/studio/studies/:study/:action', path: '/api/studio/studies/fuzz/pause', role: 'researcher' },
  { route: 'GET /api/studio/studies/:study/preview', path: '/api/studio/studies/fuzz/preview', role: 'researcher' },
  { route: 'GET /api/studio/studies/:study/dashboard', path: '/api/studio/studies/fuzz/dashboard', role: 'reader' },
  { route: 'GET /api/studio/studies/:study/export.zip', path: '/api/studio/studies/fuzz/export.zip', role: 'reader' },
  { route: 'GET /api/studio/studies/:study/paper.zip', path: '/api/studio/studies/fuzz/paper.zip', role: 'reader' },
  { route: 'GET /api/studio/studies/:study/participants', path: '/api/studio/studies/fuzz/participants', role: 'researcher' },
  { route: 'GET /api/studio/studies/:study/approvals.csv', path: '/api/studio/studies/fuzz/approvals.csv', role: 'researcher' },
  { route: 'POST /api/studio/studies/:study/undo', path: `/api/studio/studies/${DRAFT}/undo`, role: 'researcher' },
  { route: 'GET /api/reports/:study', path: '/api/reports/fuzz', role: 'reader' },
  { route: 'POST /api/reports/:study/html-link', path: '/api/reports/fuzz/html-link', role: 'reader' },
  { route: 'GET /api/reports/:study/html', path: '/api/reports/fuzz/html', role: 'reader' },
  { route: 'GET /api/openapi.json', path: '/api/openapi.json', role: 'reader' },
];
/** Authorization headers that never pass: none, junk, other schemes, a listener's session token. */
const badAuth = fc.oneof(
  fc.constant({}),
  oddString.map((s) => ({ authorization: `Bearer ${enc(s)}.x` })),
  fc.constantFrom('Basic YWRtaW46YWRtaW4=', 'Bearer', 'Bearer ', 'bearer x', 'Token abc', `Bearer ${'a'.repeat(600)}`, 'Bearer a b').map((a) => ({ authorization: a })),
  fc.constant(null).map(() => bearer(listenerToken)),
  fc.constant(null).map(() => ({ authorization: `Bearer ${researcherToken.slice(0, -1)}${researcherToken.endsWith('A') ? 'B' : 'A'}` })),
  fc.constant(null).map(() => bearer(revokedToken)),
  // The studio's sign-in cookie carrying what never passes.
  fc.oneof(oddString.map(enc), fc.constant(null).map(() => revokedToken), fc.constant(null).map(() => listenerToken)).map((v) => ({ cookie: `earmark_staff=${v}` })),
);

/** Each entry: the route it aims at and requests for it, each malformed on its own. */
function fuzzTargets(): { route: string; shots: fc.Arbitrary<Shot>; weight?: number }[] {
  const researcher = () => jsonHeaders(researcherToken);
  const studio = (study: string, rest = '') => `/api/studio/studies/${study}${rest}`;
  /** For routes that take a :study: bad names (400) and unknown studies (404), with `extra` after the name. */
  const studyParams = (prefix: string, rest: string, role: Role, body?: () => string) =>
    fc.tuple(fc.oneof(badSegment, unknownStudy), fc.boolean()).map(([s, asAnalyst]) => {
      const token = role === 'reader' && asAnalyst ? analystToken : researcherToken;
      return body ? { path: `${prefix}${s}${rest}`, headers: jsonHeaders(token), body: body() } : { path: `${prefix}${s}${rest}`, headers: bearer(token) };
    });
  let fresh = 0;
  const create = () => ({ name: `zz-new-${++fresh}`, template: 'metaset-caption-preference' });
  const upload = () => ({ kind: 'captions', name: `${ESCAPE}.csv`, content: 'utterance_id,system\n' });
  // Not audio ('RIFF' alone): refused file by file, so nothing of it is ever kept.
  const audioUpload = () => ({ folder: ESCAPE, files: [{ path: `${ESCAPE}/${ESCAPE}.wav`, content: 'UklGRg==' }] });
  const templateBody = () => json({ yaml: templateYaml });
  const bodyEnvelope = (path: string, whole: () => string) =>
    fc.oneof(
      wrongTypes.map((type) => ({ path, body: whole(), headers: { 'content-type': type, ...bearer(researcherToken) } })),
      fc.constant(null).chain(() => truncated(whole())).map((body) => ({ path, body, headers: researcher() })),
      notAnObject.map((body) => ({ path, body, headers: researcher() })),
      fc.constantFrom(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), Buffer.from('{"name":"\xc0\xae\xc0\xae"}', 'latin1')).map((body) => ({ path, body, headers: researcher() })),
    );
  /** Routes without a body schema run their handler on any parsed body, so only unparseable ones go to real studies. */
  const refusedEnvelope = (path: string) =>
    fc.oneof(
      refusedTypes.map((type) => ({ path, body: '{}', headers: { 'content-type': type, ...bearer(researcherToken) } })),
      truncated('{"study":"fuzz","extra":[1,2,3]}').map((body) => ({ path, body, headers: researcher() })),
    );

  return [
    /* Listener */
    { route: 'POST /api/session/votes', shots: fc.oneof(
      mutatedVote.map((v) => ({ path: '/api/session/votes', body: json(v), headers: jsonHeaders(listenerToken) })),
      wrongTypes.map((type) => ({ path: '/api/session/votes', body: json(voteFor(0)), headers: { 'content-type': type, ...bearer(listenerToken) } })),
      fc.constant(null).chain(() => truncated(json(voteFor(0)))).map((body) => ({ path: '/api/session/votes', body, headers: jsonHeaders(listenerToken) })),
      oddString.map((token) => ({ path: '/api/session/votes', body: json(voteFor(0)), headers: jsonHeaders(token.replace(/[^\x21-\x7e]/g, '') + 'x') })),
      fc.integer({ min: 17_000, max: 100_000 }).map((n) => ({ path: '/api/session/votes', body: json({ ...voteFor(0), pad: 'x'.repeat(n) }), headers: jsonHeaders(listenerToken) })),
      notAnObject.map((body) => ({ path: '/api/session/votes', body, headers: jsonHeaders(listenerToken) })),
      fc.constantFrom('{}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}').map((body) => ({ path: '/api/session/votes', body, headers: jsonHeaders(listenerToken) })),
      // Placeholder UUIDs as vote ids, and positions the session does not have, in otherwise good votes.
      fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF')
        .map((voteId) => ({ path: '/api/session/votes', body: json(voteFor(0, 1, { voteId })), headers: jsonHeaders(listenerToken) })),
      fc.integer({ min: 9, max: 1_000_000 }).map((position) => ({ path: '/api/session/votes', body: json(voteFor(position)), headers: jsonHeaders(listenerToken) })),
    ) },
    { route: 'POST /api/sessions', shots: fc.oneof(
      oddString.map((study) => ({ study: `zz-${study}` })),
      notAString.map((study) => ({ study })),
      fc.record({ study: fc.constant('fuzz'), external: fc.oneof(notAString, fc.dictionary(fc.string({ minLength: 65, maxLength: 80 }), fc.string(), { minKeys: 1 })) }),
      fc.record({ study: fc.constant('fuzz'), unexpected: oddString }),
      fc.constant({}),
      nanLike.map((study) => ({ study })),
    ).map((body) => ({ path: '/api/sessions', body: json(body), headers: jsonHeaders() })) },
    // A recorded headphone check cannot be taken again, passed or failed.
    { route: 'POST /api/session/screening', shots: fc.integer({ min: 1, max: 3 }).map((attempt) => ({ path: '/api/session/screening', body: json(validScreening(attempt)), headers: jsonHeaders(screenedToken) })) },
    { route: 'POST /api/session/screening/attempts', shots: fc.constantFrom('antiphase', 'huggins').map((kind) => ({ path: '/api/session/screening/attempts', body: json({ kind, userAgent: 'fuzz', audioOutput: {} }), headers: jsonHeaders(screenedToken) })) },
    { route: 'POST /api/session/screening', shots: fc.record({
      kind: fc.constantFrom('antiphase', 'Huggins', 'none', 1),
      passed: fc.constantFrom('yes', null, 1),
      correct: fc.constantFrom(-1, 0.5, '6'),
      trials: fc.constantFrom(0, -6, 'six'),
      attempts: fc.constantFrom(1),
      userAgent: oddString.map((s) => s + 'x'.repeat(600)),
      audioOutput: fc.constantFrom('speakers', null, 5),
    }).map((body) => ({ path: '/api/session/screening', body: json(body), headers: jsonHeaders(listenerToken) })) },
    { route: 'POST /api/session/problems', shots: fc.record({
      position: fc.constantFrom(-1, 0.5, '0', null),
      problem: fc.constantFrom('vote', 'LOAD_FAILED', 1),
      detail: oddString.map((s) => s + 'x'.repeat(300)),
      clientTs: fc.constantFrom('yesterday', 5),
    }).map((body) => ({ path: '/api/session/problems', body: json(body), headers: jsonHeaders(listenerToken) })) },
    // The fuzz study asks for no comments, and no fuzz session has finished: nothing is ever stored.
    { route: 'POST /api/session/comments', shots: fc.oneof(
      fc.oneof(notAString, fc.constant(''), fc.constant('   '), fc.integer({ min: 2001, max: 2100 }).map((n) => 'x'.repeat(n)))
        .map((text) => ({ path: '/api/session/comments', body: json({ text }), headers: jsonHeaders(listenerToken) })),
      oddString.map((s) => ({ path: '/api/session/comments', body: json({ text: `${s}x` }), headers: jsonHeaders(listenerToken) })),
    ) },
    // The fuzz study asks no questions: every body is refused (400 malformed, 409 not asked) and nothing is stored.
    { route: 'POST /api/session/answers', shots: fc.oneof(
      fc.record({ when: fc.constantFrom('before', 'after', 'during', 1, null), answers: fc.oneof(notAString, fc.constant({ age: 'x'.repeat(3000) }), fc.constant({})) })
        .map((body) => ({ path: '/api/session/answers', body: json(body), headers: jsonHeaders(listenerToken) })),
      oddString.map((s) => ({ path: '/api/session/answers', body: json({ when: 'before', answers: { [`${s}x`.slice(0, 60)]: s } }), headers: jsonHeaders(listenerToken) })),
    ) },
    { route: 'GET /api/studies/:study/intro', shots: fc.oneof(badSegment, unknownStudy, fc.constant(DRAFT)).map((s) => ({ path: `/api/studies/${s}/intro`, headers: {} })) },
    // Only tokens that name no session: a fuzz session that left would take no more of the other shots' votes.
    { route: 'POST /api/session/leave', shots: oddString.map((s) => ({ path: '/api/session/leave', body: '{}', headers: { 'content-type': 'application/json', authorization: `Bearer ${enc(s)}z` } })) },
    { route: 'GET /api/session', shots: oddString.map((s) => ({ path: '/api/session', headers: { authorization: `Bearer ${enc(s)}z` } })) },
    { route: 'GET /api/session/screening/calibration', shots: oddString.map((s) => ({ path: '/api/session/screening/calibration', headers: { authorization: `Bearer ${enc(s)}z` } })) },
    // A round of an attempt that is not open (the screened token's check is recorded), or a malformed one.
    { route: 'GET /api/session/screening/:kind/:attempt/:round', shots: fc.oneof(
      fc.tuple(fc.constantFrom('antiphase', 'huggins', 'both', '..'), fc.constantFrom('1', '0', '-1', '1.5', 'x', '99999999999999999999'), fc.constantFrom('1', '6', '7', '0', '%00'))
        .map(([kind, attempt, round]) => ({ path: `/api/session/screening/${kind}/${attempt}/${round}`, headers: { authorization: `Bearer ${screenedToken}` } })),
      oddString.map((s) => ({ path: '/api/session/screening/antiphase/1/1', headers: { authorization: `Bearer ${enc(s)}z` } })),
    ) },

    /* Media */
    ...(['audio', 'peaks'] as const).map((what) => ({ route: `GET /media/clips/:clipId/${what}`, shots: fc.oneof(
      oddString.map((s) => ({ path: `/media/clips/${enc(`zz${s}`)}/${what}`, headers: {} })),
      fc.constantFrom('..', '%2e%2e', '..%2f..%2fearmark.db', '%2e%2e%2f%2e%2e%2fearmark.db', '%00', 'audio', '..%5c..%5cearmark.db').map((s) => ({ path: `/media/clips/${s}/${what}`, headers: {} })),
      ...(what === 'audio'
        ? [fc.constantFrom('bytes=999999-', 'bytes=-0', 'bytes=500000-600000').map((range) => ({ path: `/media/clips/${server.seeded[0].clipIds[0]}/audio`, headers: { range } }))]
        : []),
    ) })),

    /* Studio sign-in */
    { route: 'POST /api/studio/session', shots: fc.oneof(
      fc.oneof(
        oddString.filter((s) => s.length > 0 && s.length <= 512),
        fc.constant(null).map(() => `${researcherToken.split('.')[0]}.${'x'.repeat(43)}`),
        fc.constant(null).map(() => revokedToken),
        fc.constant(null).map(() => listenerToken),
        fc.stringMatching(/^[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/),
      ).map((token) => ({ path: '/api/studio/session', body: json({ token }), headers: jsonHeaders() })),
      mutated(() => ({ token: researcherToken }), { token: fc.oneof(notAString, fc.constant(''), fc.constant('x'.repeat(513))) })
        .map((body) => ({ path: '/api/studio/session', body: json(body), headers: jsonHeaders() })),
      refusedEnvelope('/api/studio/session'),
    ) },
    { route: 'DELETE /api/studio/session', shots: refusedTypes.map((type) => ({ path: '/api/studio/session', body: '{}', headers: { 'content-type': type } })) },

    /* Studio, older routes */
    { route: 'GET /api/studio/studies', shots: badAuth.map((headers) => ({ path: '/api/studio/studies', headers })) },
    { route: 'GET /api/studio/studies/:study/export', shots: studyParams('/api/studio/studies/', '/export', 'reader') },

    /* Studio: create, edit, upload, validate, build, clone, run */
    { route: 'GET /api/studio/templates', shots: fc.constant(null).map(() => ({ path: '/api/studio/templates', headers: bearer(analystToken) })) },
    { route: 'POST /api/studio/studies', shots: fc.oneof(
      mutated(create, {
        name: fc.oneof(notAString, badStudyName),
        template: fc.oneof(notAString, oddString.filter((s) => !/^[a-z0-9-]{1,64}$/.test(s)), fc.constantFrom('zz-none', 'metaset', '-')),
        yaml: fc.oneof(fc.constant(''), notAString, oddString),
      }).map((body) => ({ path: '/api/studio/studies', body: json(body), headers: researcher() })),
      badYaml.map((yaml) => ({ path: '/api/studio/studies', body: json({ ...create(), template: undefined, yaml }), headers: researcher() })),
      fc.constantFrom('fuzz', DRAFT).map((name) => ({ path: '/api/studio/studies', body: json({ name, template: 'vctk-speaker-style' }), headers: researcher() })),
      fc.constantFrom('zz-none', 'metaset', 'template', '0').map((template) => ({ path: '/api/studio/studies', body: json({ ...create(), template }), headers: researcher() })),
      fc.integer({ min: 1_000_001, max: 1_900_000 }).map((n) => ({ path: '/api/studio/studies', body: json({ name: 'zz-huge', yaml: `title: x\n#${'x'.repeat(n)}` }), headers: researcher() })),
      fc.integer({ min: 2_100_000, max: 2_600_000 }).map((n) => ({ path: '/api/studio/studies', body: json({ name: 'zz-huge', yaml: 'x'.repeat(n) }), headers: researcher() })),
      bodyEnvelope('/api/studio/studies', () => json(create())),
    ) },
    // Refused study.yaml texts get extra weight: the parser is the most intricate input handling.
    { route: 'POST /api/studio/studies', weight: 4, shots: badYaml.map((yaml) => ({ path: '/api/studio/studies', body: json({ name: create().name, yaml }), headers: researcher() })) },
    { route: 'PUT /api/studio/studies/:study/definition', weight: 4, shots: badYaml.map((yaml) => ({ method: 'PUT' as const, path: studio(DRAFT, '/definition'), body: json({ yaml }), headers: researcher() })) },
    { route: 'GET /api/studio/studies/:study', shots: studyParams('/api/studio/studies/', '', 'researcher') },
    { route: 'PUT /api/studio/studies/:study/definition', shots: fc.oneof(
      badYaml.map((yaml) => ({ path: studio(DRAFT, '/definition'), body: json({ yaml }), headers: researcher() })),
      badYaml.map((yaml) => ({ path: studio('fuzz', '/definition'), body: json({ yaml }), headers: researcher() })),
      studyParams('/api/studio/studies/', '/definition', 'researcher', templateBody),
      mutated(() => ({ yaml: templateYaml }), { yaml: fc.oneof(notAString, nanLike.filter((v) => v !== '' && v !== null).map((v) => ({ v }))) })
        .map((body) => ({ path: studio(DRAFT, '/definition'), body: json(body), headers: researcher() })),
      // Over a million characters but under the 2 MB body limit in bytes.
      fc.integer({ min: 1_000_001, max: 1_040_000 }).map((n) => ({ path: studio(DRAFT, '/definition'), body: json({ yaml: `${templateYaml}#${'é'.repeat(n)}` }), headers: researcher() })),
      fc.integer({ min: 2_100_000, max: 2_600_000 }).map((n) => ({ path: studio(DRAFT, '/definition'), body: json({ yaml: 'x'.repeat(n) }), headers: researcher() })),
      bodyEnvelope(studio(DRAFT, '/definition'), templateBody),
    ).map((shot) => ({ ...shot, method: 'PUT' as const })) },
    { route: 'POST /api/studio/studies/:study/files', shots: fc.oneof(
      mutated(upload, {
        kind: fc.oneof(notAString, fc.constantFrom('audio', '../captions', 'Captions', '', 'judges/../..', 'captions\u0000')),
        name: fc.oneof(notAString, badFileName),
        content: fc.oneof(fc.constant(''), notAString),
      }).map((body) => ({ path: studio(DRAFT, '/files'), body: json(body), headers: researcher() })),
      fc.tuple(fc.constantFrom('captions', 'judges'), notJson).map(([kind, content]) => ({
        path: studio(DRAFT, '/files'), body: json({ kind, name: `${ESCAPE}.json`, content }), headers: researcher(),
      })),
      studyParams('/api/studio/studies/', '/files', 'researcher', () => json(upload())),
      fc.constant(null).map(() => ({ path: studio('fuzz', '/files'), body: json(upload()), headers: researcher() })),
      bodyEnvelope(studio(DRAFT, '/files'), () => json(upload())),
    ) },
    { route: 'POST /api/studio/studies/:study/audio', shots: fc.oneof(
      mutated(audioUpload, {
        folder: fc.oneof(notAString, badFileName, fc.constantFrom('..', '../x', '', '.hidden')),
        files: fc.oneof(notAString, fc.constant([]), fc.constant([{ path: 'x.wav' }])),
      }).map((body) => ({ path: studio(DRAFT, '/audio'), body: json(body), headers: researcher() })),
      // Paths that would leave the study's audio folder, and a zip that is none.
      fc.constantFrom(`../../${ESCAPE}.wav`, `/${ESCAPE}.wav`, `a/../../${ESCAPE}.wav`, `..\\..\\${ESCAPE}.wav`, `a/./${ESCAPE}.wav`).map((path) => ({
        path: studio(DRAFT, '/audio'), body: json({ folder: ESCAPE, files: [{ path, content: 'UklGRg==' }] }), headers: researcher(),
      })),
      fc.constantFrom('%%%', Buffer.from('PK\u0003\u0004junk').toString('base64')).map((zip) => ({ path: studio(DRAFT, '/audio'), body: json({ folder: ESCAPE, zip }), headers: researcher() })),
      studyParams('/api/studio/studies/', '/audio', 'researcher', () => json(audioUpload())),
      bodyEnvelope(studio(DRAFT, '/audio'), () => json(audioUpload())),
    ) },
    { route: 'POST /api/studio/studies/:study/sources', shots: fc.oneof(
      mutated(() => ({ audioRoot: 'audio' }), {
        audioRoot: fc.oneof(fc.constant(''), notAString, fc.integer({ min: 4097, max: 12_000 }).map((n) => 'a'.repeat(n))),
      }).map((body) => ({ path: studio(DRAFT, '/sources'), body: json(body), headers: researcher() })),
      studyParams('/api/studio/studies/', '/sources', 'researcher', () => json({ audioRoot: `../../${ESCAPE}` })),
      fc.constant(null).map(() => ({ path: studio(DRAFT, '/sources'), body: json({ audioRoot: 'x'.repeat(20_000) }), headers: researcher() })),
      bodyEnvelope(studio(DRAFT, '/sources'), () => json({ audioRoot: 'audio' })),
    ) },
    ...(['validate', 'build'] as const).map((step) => ({ route: `POST /api/studio/studies/:study/${step}`, shots: fc.oneof(
      studyParams('/api/studio/studies/', `/${step}`, 'researcher'),
      fc.tuple(fc.oneof(badSegment, unknownStudy), wrongTypes, oddString).map(([s, type, body]) => ({
        path: studio(s, `/${step}`), body, headers: { 'content-type': type, ...bearer(researcherToken) },
      })),
      refusedEnvelope(studio(DRAFT, `/${step}`)),
      refusedEnvelope(studio('fuzz', `/${step}`)),
    ) })),
    { route: 'POST /api/studio/studies/:study/clone', shots: fc.oneof(
      mutated(() => ({ name: 'zz-clone' }), { name: fc.oneof(notAString, badStudyName) })
        .map((body) => ({ path: studio(DRAFT, '/clone'), body: json(body), headers: researcher() })),
      fc.tuple(fc.constantFrom('fuzz', DRAFT), fc.constantFrom('fuzz', DRAFT)).map(([from, name]) => ({ path: studio(from, '/clone'), body: json({ name }), headers: researcher() })),
      studyParams('/api/studio/studies/', '/clone', 'researcher', () => json({ name: `zz-clone-${++fresh}` })),
      bodyEnvelope(studio(DRAFT, '/clone'), () => json({ name: 'zz-clone' })),
    ) },
    { route: 'POST /api/studio/studies/:study/plan', shots: fc.oneof(
      mutated(() => ({ pilot: 'fuzz', target: 'bt-ci=0.3' }), {
        pilot: fc.oneof(notAString, badStudyName, unknownStudy),
        target: fc.oneof(notAString, oddString, fc.constantFrom('bt-ci=0', 'bt-ci=-1', 'bt-ci=1e999', 'mos-ci=NaN', 'elo=0.3', 'bt-ci=0.3;x')),
        itemsPerListener: fc.oneof(notAString, fc.constantFrom(0, -1, 1.5, 1001, 1e999)),
      }).map((body) => ({ path: studio(DRAFT, '/plan'), body: json(body), headers: researcher() })),
      fc.tuple(fc.constantFrom('fuzz', DRAFT), fc.constantFrom('bt-ci=0.3', 'mos-ci=0.1', 'bt-ci=5')).map(([pilot, target]) => ({
        path: studio(DRAFT, '/plan'), body: json({ pilot, target }), headers: researcher(),
      })),
      studyParams('/api/studio/studies/', '/plan', 'researcher', () => json({ pilot: 'fuzz', target: 'bt-ci=0.3' })),
      bodyEnvelope(studio(DRAFT, '/plan'), () => json({ pilot: 'fuzz', target: 'bt-ci=0.3' })),
    ) },
    { route: 'POST /api/studio/studies/:study/:action', shots: fc.oneof(
      fc.tuple(
        fc.constantFrom('fuzz', DRAFT),
        fc.oneof(
          fc.constantFrom('reopen', 'OPEN', 'Pause', 'closed', 'delete', '..', '%2e%2e', 'open%00', 'open%20', 'pause%2f..', 'draft', 'paused'),
          oddString.filter((s) => !['open', 'pause', 'close', 'status', 'sources', 'files', 'validate', 'build', 'clone', 'plan', 'definition', 'undo'].includes(s)).map(enc),
        ),
      ).map(([s, action]) => ({ path: studio(s, `/${action}`), headers: bearer(researcherToken) })),
      fc.tuple(fc.oneof(badSegment, unknownStudy, fc.constant(DRAFT)), fc.constantFrom('open', 'pause', 'close')).map(([s, action]) => ({
        path: studio(s, `/${action}`), headers: bearer(researcherToken),
      })),
      fc.constantFrom('open', 'pause', 'close').chain((action) => refusedEnvelope(studio('fuzz', `/${action}`))),
    ) },
    { route: 'GET /api/studio/studies/:study/preview', shots: fc.oneof(
      studyParams('/api/studio/studies/', '/preview', 'researcher'),
      fc.constant({ path: studio(DRAFT, '/preview'), headers: bearer(researcherToken) }),
    ) },

    /* Reports */
    { route: 'GET /api/studio/studies/:study/dashboard', shots: studyParams('/api/studio/studies/', '/dashboard', 'reader') },
    { route: 'GET /api/studio/studies/:study/export.zip', shots: studyParams('/api/studio/studies/', '/export.zip', 'reader') },
    { route: 'GET /api/studio/studies/:study/paper.zip', shots: studyParams('/api/studio/studies/', '/paper.zip', 'reader') },
    { route: 'GET /api/studio/studies/:study/participants', shots: studyParams('/api/studio/studies/', '/participants', 'researcher') },
    { route: 'GET /api/studio/studies/:study/approvals.csv', shots: studyParams('/api/studio/studies/', '/approvals.csv', 'researcher') },
    // Only names that are refused: an Undo that ran would change the draft on purpose.
    { route: 'POST /api/studio/studies/:study/undo', shots: studyParams('/api/studio/studies/', '/undo', 'researcher') },
    { route: 'GET /api/reports/:study', shots: fc.oneof(
      studyParams('/api/reports/', '', 'reader'),
      fc.constant({ path: `/api/reports/${DRAFT}`, headers: bearer(analystToken) }),
    ) },
    { route: 'POST /api/reports/:study/html-link', shots: fc.oneof(
      studyParams('/api/reports/', '/html-link', 'reader'),
      refusedEnvelope('/api/reports/fuzz/html-link'),
    ) },
    { route: 'GET /api/reports/:study/html', shots: fc.oneof(
      fc.oneof(oddString.map(enc), fc.constantFrom('', 'x'.repeat(65), '%00', 'a&ticket=b', '..%2f..')).map((ticket) => ({ path: `/api/reports/fuzz/html?ticket=${ticket}`, headers: {} })),
      fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ minLength: 1, maxLength: 10 })).map(([a, b]) => ({
        path: `/api/reports/fuzz/html?ticket=${enc(a)}&ticket=${enc(b)}`, headers: {},
      })),
      studyParams('/api/reports/', '/html', 'researcher'),
      badSegment.map((s) => ({ path: `/api/reports/${s}/html?ticket=forged`, headers: {} })),
    ) },

    /* Every token-guarded route: tokens that never pass, and the analyst where only a researcher may. */
    ...TOKEN_ROUTES.map(({ route, path, role }) => ({ route, shots: fc.oneof(
      badAuth.map((headers) => ({ path, headers })),
      ...(role === 'researcher' ? [fc.constant(null).map(() => ({ path, headers: bearer(analystToken) }))] : []),
    ).map((shot) => ({ ...shot, method: methodOf(route) })), weight: 1 })),

    /* Paths no route has, and methods a path does not take. */
    { route: 'unrouted', shots: fc.oneof(
      fc.tuple(oddString, fc.constantFrom<Method>('GET', 'POST')).map(([s, method]) => ({ path: `/api/${enc(s)}x/nothing`, method, headers: {} })),
      fc.tuple(
        fc.constantFrom('/api/studio/studies/fuzz', '/api/studio/templates', '/api/session/votes', '/api/reports/fuzz', `/api/studio/studies/${DRAFT}/files`, '/media/clips/x/audio'),
        fc.constantFrom<Method>('DELETE', 'PATCH', 'OPTIONS'),
      ).map(([path, method]) => ({ path, method, headers: bearer(researcherToken) })),
      fc.constantFrom('/api/studio/studies/fuzz/export/extra', '/api/studio', '/api', '/media', `/media/clips/${ESCAPE}`, '/api/reports', '/api/studio/studies/fuzz/files/x.json')
        .map((path) => ({ path, method: 'GET' as const, headers: bearer(researcherToken) })),
    ) },
  ];
}

/** Requests sent once each, whatever the draw gave: bodies too big for fast-check to repeat, and JSON cut off. */
function bigShots(): FuzzRequest[] {
  const files = 'POST /api/studio/studies/:study/files';
  const path = `/api/studio/studies/${DRAFT}/files`;
  return [
    // Within the upload body limit but over the 32 MB file size.
    { route: files, method: 'POST', path, headers: jsonHeaders(researcherToken), body: json({ kind: 'judges', name: `${ESCAPE}.csv`, content: 'x'.repeat(32 * 1024 * 1024 + 1) }) },
    // Over the upload body limit.
    { route: files, method: 'POST', path, headers: jsonHeaders(researcherToken), body: json({ kind: 'judges', name: `${ESCAPE}.csv`, content: 'x'.repeat(41 * 1024 * 1024) }) },
    { route: 'POST /api/sessions', method: 'POST', path: '/api/sessions', headers: jsonHeaders(), body: json({ study: 'fuzz', pad: 'x'.repeat(3 * 1024 * 1024) }) },
    // JSON cut off mid-way, whatever the draw above gave: one listener and one studio body route.
    { route: 'POST /api/sessions', method: 'POST', path: '/api/sessions', headers: jsonHeaders(), body: '{"study":"fu' },
    { route: 'POST /api/studio/studies', method: 'POST', path: '/api/studio/studies', headers: jsonHeaders(researcherToken), body: '{"name":"zz-x","template":' },
  ];
}

/**
 * One raw HTTP request on its own connection (a refused body can leave a kept-alive socket
 * half-closed): the path goes out byte for byte, the body with its true length.
 */
function send(req: FuzzRequest): Promise<{ status: number; text: string; type: string; hsts?: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
    // Forged proxy headers on every request: the server trusts no proxy here, so they change nothing.
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9', ...req.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
    let answered: { status: number; text: string; type: string; hsts?: string } | undefined;
    const outgoing = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve((answered = {
        status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8'), type: String(res.headers['content-type']),
        hsts: res.headers['strict-transport-security'],
      })));
    });
    // A server refusing a huge body may close the socket while the body is still going out.
    outgoing.on('error', (error) => (answered ? resolve(answered) : reject(error)));
    outgoing.end(body);
  });
}

function checkAnswer(req: FuzzRequest, res: { status: number; text: string; type: string; hsts?: string }): string {
  const what = `${req.method} ${req.path.slice(0, 200)} ${String(req.body ?? '').slice(0, 200)} → ${res.status} ${res.text.slice(0, 400)}`;
  expect(res.status, what).toBeGreaterThanOrEqual(400);
  expect(res.status, what).toBeLessThan(500);
  expect(res.type, what).toMatch(/^application\/json/);
  const body = JSON.parse(res.text);
  expect(typeof body.error, what).toBe('string');
  expect(typeof body.message, what).toBe('string');
  if (body.field !== undefined) expect(body.field, what).toEqual(expect.any(String));
  if (body.error === 'invalid_request') expect(body.field, what).toEqual(expect.any(String));
  if (res.status === 403) expect(body.error, what).toBe('forbidden');
  // Plain HTTP, no trusted proxy: a forged X-Forwarded-Proto must not bring HSTS either.
  expect(res.hsts, what).toBeUndefined();
  if (body.error === 'invalid_definition') {
    // A refused study.yaml names each problem's line, column and field (empty only for YAML syntax or a non-mapping document).
    expect(res.status, what).toBe(400);
    expect(body.problems.length, what).toBeGreaterThan(0);
    for (const p of body.problems) {
      expect(p, what).toEqual({ file: expect.any(String), line: expect.any(Number), column: expect.any(Number), field: expect.any(String), message: expect.any(String) });
      expect(p.line, what).toBeGreaterThanOrEqual(1);
      expect(p.column, what).toBeGreaterThanOrEqual(1);
    }
    if (body.problems[0].field) expect(body.field, what).toBe(body.problems[0].field);
  }
  return body.error;
}

/** "METHOD /url" of every route the app registered, from its route tree (HEAD is fastify's copy of each GET). */
function registeredRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const at = line.indexOf('── ');
    if (at < 0) continue;
    const depth = (at + 3) / 4 - 1;
    const [, part, methods] = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(at + 3))!;
    prefixes.length = depth;
    prefixes.push(part);
    const url = prefixes.join('');
    for (const method of methods?.split(', ') ?? []) {
      expect(app.hasRoute({ method, url }), `${method} ${url} parsed from printRoutes`).toBe(true);
      if (method !== 'HEAD') routes.push(`${method} ${url}`);
    }
  }
  return routes;
}

// Most studio requests carry a real token, and checking one is a deliberately slow key derivation (~25 ms).
const RUNS = 850;

describe('fuzz', () => {
  it(`answers ${RUNS}+ malformed requests across every endpoint with a 4xx JSON error and changes nothing`, async () => {
    const rowsBefore = rowCounts();
    const filesBefore = dataFiles();
    expect(Object.keys(filesBefore)).toContain(join('studies', DRAFT, 'study.yaml'));
    const targets = fuzzTargets();
    // Bad-token shots weigh 1 against a route's own 3: every token-guarded route has them.
    const requests = fc.oneof(
      ...targets.map(({ route, shots, weight }) => ({ arbitrary: shots.map((shot): FuzzRequest => ({ method: methodOf(route), ...shot, route })), weight: weight ?? 3 })),
    );
    const statuses = new Map<number, number>();
    const perRoute = new Map<string, number>();
    const codes = new Map<string, number>();
    const fire = async (req: FuzzRequest) => {
      try {
        const res = await send(req);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        perRoute.set(req.route, (perRoute.get(req.route) ?? 0) + 1);
        const code = checkAnswer(req, res);
        codes.set(code, (codes.get(code) ?? 0) + 1);
      } catch (error) {
        throw new Error(`${req.method} ${req.path.slice(0, 200)} [${req.route}] ${String(req.body ?? '').slice(0, 300)}: ${(error as Error).message.slice(0, 1500)}`);
      }
    };
    await fc.assert(fc.asyncProperty(requests, fire), {
      numRuns: RUNS,
      seed: 20_240_601,
      endOnFailure: true,
      // The default report prints the whole counterexample: megabytes for the big bodies.
      reporter: (details) => {
        if (details.failed) throw new Error(`fuzz failed at run ${details.numRuns}: ${(details.errorInstance as Error | undefined)?.message}`);
      },
    });
    for (const req of bigShots()) await fire(req);
    // Every route gets at least five requests of its own, however the weighted draw fell.
    for (const { route, shots } of targets) {
      const missing = 5 - (perRoute.get(route) ?? 0);
      if (missing <= 0) continue;
      const own = shots.map((shot): FuzzRequest => ({ method: methodOf(route), ...shot, route }));
      for (const req of fc.sample(own, { numRuns: missing, seed: 20_240_601 })) await fire(req);
    }

    const sent = [...statuses.values()].reduce((a, b) => a + b, 0);
    expect(sent).toBeGreaterThanOrEqual(RUNS);
    // The requests got past the envelope to each kind of check.
    for (const code of [
      'unauthorized', 'forbidden', 'invalid_session', 'malformed_json', 'unsupported_media_type', 'body_too_large', 'invalid_request',
      'invalid_definition', 'invalid_file', 'unknown_template', 'unknown_study', 'no_study_folder', 'study_exists', 'unknown_clip',
      'not_assigned', 'screening_recorded',
    ]) expect(codes.get(code) ?? 0, `answers with error ${code}`).toBeGreaterThan(0);
    expect(rowCounts()).toEqual(rowsBefore);
    expect(screeningOf(screenedToken)).toBe(screenedBefore);
    expect(dataFiles()).toEqual(filesBefore);
    expect(escapedFiles()).toEqual([]);
    const histogram = Object.fromEntries([...statuses].sort(([a], [b]) => a - b));
    console.log(`fuzz: ${sent} requests over ${perRoute.size} targets, statuses ${JSON.stringify(histogram)}, errors ${JSON.stringify(Object.fromEntries(codes))}`);
    // Every refused token costs a full key derivation (unknown ids included, for even timing).
  }, 300_000);

  it('aims at every /api and /media route the app registers', () => {
    const aimed = new Set(fuzzTargets().map((t) => t.route));
    const registered = registeredRoutes(server.app).filter((r) => /^[A-Z]+ \/(api|media)\//.test(r));
    expect(registered.length).toBeGreaterThanOrEqual(25);
    expect(registered.filter((r) => !aimed.has(r))).toEqual([]);
    // And no generator aims at a route that is gone.
    expect([...aimed].filter((r) => r !== 'unrouted' && !registered.includes(r))).toEqual([]);
  });
});

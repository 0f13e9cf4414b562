import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openApiDocument } from '../openapi';
import { OPENAPI_FILE, openApiText } from '../write-openapi';
import { startTestServer, type TestServer } from '../testing/server';
import { call } from '../testing/client';

let server: TestServer;
let clientDir: string;
let document: { openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
beforeAll(async () => {
  // With the client's pages and static files too: they are left out on purpose, not by accident.
  clientDir = mkdtempSync(join(tmpdir(), 'earmark-openapi-client-'));
  writeFileSync(join(clientDir, 'index.html'), '<!doctype html><html><head></head><body></body></html>');
  server = await startTestServer({ app: { clientDir } });
  document = server.app.openApi() as typeof document;
});
afterAll(async () => {
  await server.close();
  rmSync(clientDir, { recursive: true, force: true });
});

it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
  const validator = new Validator();
  const result = await validator.validate(document);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
});

it('lists the routes of every audience with their schemas from contract/, and no page or static file', () => {
  const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
  for (const route of ['POST /api/sessions', 'POST /api/session/votes', 'GET /api/reports/{study}', 'GET /media/clips/{clipId}/audio', 'GET /healthz', 'GET /readyz', 'GET /metrics', 'GET /api/openapi.json'])
    expect(operations).toContain(route);
  expect(operations.filter((o) => !/^[A-Z]+ \/(api|media)\/|^GET \/(healthz|readyz|metrics)$/.test(o))).toEqual([]);
  const votes = document.paths['/api/session/votes'].post as { requestBody?: { content: Record<string, { schema: { properties?: object } }> } };
  expect(Object.keys(votes.requestBody!.content['application/json'].schema.properties ?? {})).toContain('voteId');
  expect(Object.keys(document.paths['/readyz'].get.responses)).toEqual(['200', '503', 'default']);
});

it('refuses to describe a route without a schema', () => {
  expect(() => openApiDocument([{ method: 'GET', url: '/api/undescribed', handler: async () => ({}) }])).toThrow(/GET \/api\/undescribed: no schema/);
});

it('is served to staff only at /api/openapi.json, and docs/openapi.json is this document (npx tsx server/write-openapi.ts)', async () => {
  expect((await call(`${server.url}/api/openapi.json`)).status).toBe(401);
  const { token } = await server.app.store.accessTokens.create('researcher', 'openapi test');
  const served = await call(`${server.url}/api/openapi.json`, { token });
  expect(served.status).toBe(200);
  expect(served.body).toEqual(document);
  expect(readFileSync(OPENAPI_FILE, 'utf8'), 'docs/openapi.json is out of date: npx tsx server/write-openapi.ts').toBe(openApiText(document));
});

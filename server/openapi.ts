/**
 * The HTTP API as an OpenAPI 3.1 document, generated from the routes' own zod schemas (contract/):
 * params, querystring and headers become parameters, body the request body, each response code its
 * response. OpenAPI 3.1 schemas are JSON Schema 2020-12, which zod converts to directly. Routes with
 * `schema: { hide: true }` (the client's pages and static files) are left out. Served to staff at
 * /api/openapi.json; `npx tsx server/write-openapi.ts` writes docs/openapi.json.
 */
import type { RouteOptions } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../contract/common';

type JsonSchema = Record<string, unknown>;
type Schemas = { params?: unknown; querystring?: unknown; headers?: unknown; body?: unknown; response?: Record<string, unknown>; hide?: boolean };

const isZod = (schema: unknown): schema is z.ZodType => schema instanceof z.ZodType;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
  return rest;
}

const hidden = (route: RouteOptions) => (route.schema as Schemas | undefined)?.hide === true;

function parameters(where: 'path' | 'query' | 'header', schema: unknown) {
  if (!isZod(schema)) return [];
  const object = jsonSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    schema: property,
  }));
}

function response(schema: unknown, code: string) {
  const description = code.startsWith('2') ? 'Success' : code === '503' ? 'Not ready' : 'Refused';
  if (!isZod(schema)) return { description };
  const json = jsonSchema(schema, 'output');
  if (json.type === 'null') return { description: (json.description as string | undefined) ?? description };
  const type = json.type === 'string' ? 'text/plain' : 'application/json';
  return { description: (json.description as string | undefined) ?? description, content: { [type]: { schema: json } } };
}

const ERROR = { description: 'Any refusal: the error code, a message, and the request field at fault', content: { 'application/json': { schema: jsonSchema(ApiError, 'output') } } };

/** `/api/studies/:study` → `/api/studies/{study}` (Fastify's parameters in OpenAPI's notation). */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export function openApiDocument(routes: readonly RouteOptions[]): object {
  const undescribed = routes.filter((r) => !r.schema && !(r.method === 'HEAD' || (Array.isArray(r.method) && r.method.every((m) => m === 'HEAD'))));
  if (undescribed.length)
    throw new Error(`${undescribed.map((r) => `${r.method} ${r.url}`).join(', ')}: no schema; give each its contract/ schemas (or schema: { hide: true } for a page or static file)`);
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    if (hidden(route)) continue;
    const schema = (route.schema ?? {}) as Schemas;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toLowerCase());
    for (const method of methods) {
      // HEAD is the GET Fastify adds for every GET route.
      if (method === 'head') continue;
      const operation: Record<string, unknown> = {
        operationId: `${method} ${route.url}`,
        parameters: [...parameters('path', schema.params), ...parameters('query', schema.querystring), ...parameters('header', schema.headers)],
        responses: {
          ...Object.fromEntries(Object.entries(schema.response ?? { 200: undefined }).map(([code, s]) => [code, response(s, code)])),
          default: ERROR,
        },
      };
      if (isZod(schema.body)) operation.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(schema.body, 'input') } } };
      (paths[openApiPath(route.url)] ??= {})[method] = operation;
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Earmark',
      version: '1',
      description: 'The HTTP API of an Earmark server: listeners (/api/studies, /api/session…), researchers (/api/studio…), analysts (/api/reports…), media and operations. Staff routes take `Authorization: Bearer <token>` (npm run admin -- token create) or the studio’s cookie.',
    },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
  };
}

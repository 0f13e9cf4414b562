import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import fp from 'fastify-plugin';
import helmet, { contentSecurityPolicy } from 'helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { HttpError } from '../errors';

/** Requests per minute; generous for a lab behind one NAT, tight enough to blunt a flood. */
export interface RateLimits {
  sessionsPerIp: number;
  votesPerIp: number;
  votesPerSession: number;
  /** Failed staff authentications per minute, per address and per token id (checked before any key derivation). */
  authFailuresPerIp: number;
  authFailuresPerToken: number;
}
export const defaultRateLimits: RateLimits = {
  sessionsPerIp: 60, votesPerIp: 3000, votesPerSession: 240, authFailuresPerIp: 10, authFailuresPerToken: 10,
};

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook allowing `max` requests a minute per key; `name` keeps limiters apart. */
    limitRate(name: keyof RateLimits, key: (request: FastifyRequest) => string): onRequestAsyncHookHandler;
  }
}

const directives = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  mediaSrc: ["'self'", 'blob:'],
  workerSrc: ["'self'", 'blob:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  // Studies are often run over plain HTTP on a lab network; upgrading would break every asset.
  upgradeInsecureRequests: null,
};
// HSTS is added per request, over HTTPS only: on plain HTTP it means nothing to a browser, and a
// lab server reached once over HTTPS on the same name would be locked to HTTPS for a year.
const secureHeaders = helmet({ contentSecurityPolicy: { directives }, referrerPolicy: { policy: 'no-referrer' }, strictTransportSecurity: false });
const HSTS = 'max-age=31536000; includeSubDomains';

export interface PageNonces {
  script: string;
  style: string;
}
const pageNonces = new WeakMap<ServerResponse, PageNonces>();
const pageCsp = contentSecurityPolicy({
  directives: {
    ...directives,
    scriptSrc: [...directives.scriptSrc, (_req, res) => `'nonce-${pageNonces.get(res as ServerResponse)!.script}'`],
    styleSrc: [...directives.styleSrc, (_req, res) => `'nonce-${pageNonces.get(res as ServerResponse)!.style}'`],
  },
});

/**
 * Fresh CSP nonces for one HTML page, written into this answer's Content-Security-Policy.
 * Style nonces let wavesurfer's shadow-DOM <style> through without 'unsafe-inline'; only the
 * page needs them, so JSON and media answers keep the fixed policy.
 */
export function withPageNonces(reply: FastifyReply): PageNonces {
  const nonces = { script: randomBytes(16).toString('hex'), style: randomBytes(16).toString('hex') };
  pageNonces.set(reply.raw, nonces);
  pageCsp(reply.request.raw, reply.raw, () => undefined);
  return nonces;
}

const STATUS_CODES: Record<number, string> = {
  400: 'bad_request',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  413: 'body_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  431: 'headers_too_large',
};

/** The `{ error, message }` code for a refusal that carries only an HTTP status. */
const errorCode = (status: number): string => STATUS_CODES[status] ?? 'bad_request';

/**
 * Refusals the router makes before any hook runs (a malformed percent-encoding, a path parameter
 * over the length limit): answered in the API's error shape like every other refusal.
 */
export function frameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode ?? 400;
  reply.code(status).send({ error: error.code === 'FST_ERR_BAD_URL' ? 'bad_url' : errorCode(status), message: error.message });
}

/**
 * Requests Node's HTTP parser refuses (headers too large, malformed request lines) never reach
 * Fastify; answer them on the socket in the same `{ error, message }` shape, then close it.
 */
export function clientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'HPE_URI_TOO_LONG' ? 414 : 400;
  const body = JSON.stringify({ error: errorCode(status), message: status === 431 ? 'the request headers are too large' : 'the request could not be parsed' });
  socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

export const securityPlugin = fp<{ rateLimits: RateLimits }>(
  async (app, { rateLimits }) => {
    // One helmet middleware built up front: the headers are the same for every answer, so
    // building them per request (as @fastify/helmet does) would cost every vote.
    app.addHook('onRequest', (request, reply, done) => {
      // protocol is https on a TLS socket, or behind a trusted proxy that says X-Forwarded-Proto: https.
      if (request.protocol === 'https') reply.raw.setHeader('strict-transport-security', HSTS);
      secureHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined));
    });

    await app.register(rateLimit, { global: false });
    app.decorate('limitRate', (name: keyof RateLimits, key: (request: FastifyRequest) => string) => {
      const check = app.createRateLimit({ max: rateLimits[name], timeWindow: 60_000, keyGenerator: (r) => `${name}:${key(r)}` });
      const hook: onRequestAsyncHookHandler = async (request, reply) => {
        const outcome = await check(request);
        if (!outcome.isAllowed && outcome.isExceeded) {
          reply.header('retry-after', outcome.ttlInSeconds);
          throw new HttpError(429, 'rate_limited', `too many requests; try again in ${outcome.ttlInSeconds} s`);
        }
      };
      return hook;
    });

    // Bodies are read as UTF-8; a body declared in another charset would be misread, so refuse it.
    app.addHook('onRequest', async (request) => {
      const charset = /;\s*charset="?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
      if (charset && charset.toLowerCase() !== 'utf-8') {
        throw new HttpError(415, 'unsupported_media_type', `request bodies must be UTF-8, not ${charset.slice(0, 40)}`);
      }
    });

    app.setNotFoundHandler((request, reply) => {
      reply.code(404).send({ error: 'not_found', message: `no such resource: ${request.method} ${request.url.slice(0, 200)}` });
    });

    app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
      if (error instanceof HttpError) {
        return reply.code(error.statusCode).send({ error: error.code, message: error.message, field: error.field });
      }
      if (hasZodFastifySchemaValidationErrors(error)) {
        const first = error.validation[0];
        const keys = (first.params as { keys?: unknown }).keys;
        const path = first.instancePath.split('/').filter(Boolean).join('.');
        const field = Array.isArray(keys) && keys.length > 0 ? String(keys[0]) : path || error.validationContext;
        return reply.code(400).send({
          error: 'invalid_request',
          message: `${field ?? 'request'}: ${first.message}`,
          field,
        });
      }
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const code = error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
          ? 'malformed_json'
          : errorCode(status);
        return reply.code(status).send({ error: code, message: error.message });
      }
      request.log.error({ err: error }, 'request failed');
      return reply.code(500).send({ error: 'internal_error', message: 'the server failed to handle this request' });
    });
  },
  { name: 'security' },
);

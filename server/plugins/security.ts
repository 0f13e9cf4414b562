import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import fp from 'fastify-plugin';
import helmet, { contentSecurityPolicy } from 'helmet';
import type { FastifyError, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
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
    limitRate(name: keyof RateLimits, key: (request: FastifyRequest) => string): onRequestHookHandler;
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
const HSTS = 'max-age=31536000; includeSubDomains';

/** The headers a helmet middleware sets, read once from a stand-in response. */
function headersSetBy(middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => void, res: object = {}): Record<string, string> {
  const headers: Record<string, string> = {};
  const collect = Object.assign(res, {
    setHeader: (name: string, value: string | number) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: () => undefined,
  });
  middleware({} as IncomingMessage, collect as unknown as ServerResponse, () => undefined);
  return headers;
}

/**
 * A document's headers: helmet's, worked out once at start, since they are the same for every
 * page. Handed to the reply as one object, Node writes them with the body (setting them on the raw
 * response one by one, as the middleware does, had each validated twice).
 */
const PAGE_HEADERS = headersSetBy(
  helmet({ contentSecurityPolicy: { directives }, referrerPolicy: { policy: 'no-referrer' }, strictTransportSecurity: false }),
);

/**
 * The API's and the media's answers are JSON for fetch() and audio, never documents: what protects
 * them is a policy that allows nothing should one be opened as a page, no type sniffing, and no reads
 * from other origins (OWASP REST Security Cheat Sheet, "Security headers"). helmet's other headers
 * (opener and agent-cluster policies, frame options, referrer policy, legacy IE/Flash ones) only mean
 * something on a page. Each header is also parsed by every client on every vote.
 */
const API_HEADERS = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
};
const isApiOrMedia = (url: string) => url.startsWith('/api/') || url.startsWith('/media/');

/** Marks an answer under /api/ as a document (the HTML report), with a page's headers and its own `csp`. */
export function asPage(reply: FastifyReply, csp: string): FastifyReply {
  return reply.headers(PAGE_HEADERS).header('content-security-policy', csp);
}

export interface PageNonces {
  script: string;
  style: string;
}
const pageNonces = new WeakMap<object, PageNonces>();
const pageCsp = contentSecurityPolicy({
  directives: {
    ...directives,
    scriptSrc: [...directives.scriptSrc, (_req, res) => `'nonce-${pageNonces.get(res)!.script}'`],
    styleSrc: [...directives.styleSrc, (_req, res) => `'nonce-${pageNonces.get(res)!.style}'`],
  },
});

/**
 * Fresh CSP nonces for one HTML page, written into this answer's Content-Security-Policy.
 * Style nonces let wavesurfer's shadow-DOM <style> through without 'unsafe-inline'; only the
 * page needs them, so JSON and media answers keep the fixed policy.
 */
export function withPageNonces(reply: FastifyReply): PageNonces {
  const nonces = { script: randomBytes(16).toString('hex'), style: randomBytes(16).toString('hex') };
  const res = {};
  pageNonces.set(res, nonces);
  reply.headers(headersSetBy(pageCsp, res));
  return nonces;
}

/**
 * Requests per key in fixed one-minute windows. A window is counted in a Map entry, re-inserted
 * when it restarts, so the Map stays in order of window start: a flood of new keys (made-up
 * tokens) drops the oldest windows first, which forgets counts but never refuses anyone wrongly.
 */
export class RateWindows {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly maxKeys = 20_000) {}

  /** Counts one request for `key`; the seconds until its window restarts when it is over `max`, else 0. */
  hit(key: string, max: number, now = Date.now()): number {
    const window = this.windows.get(key);
    if (window && window.resetAt > now) {
      window.count += 1;
      return window.count > max ? Math.ceil((window.resetAt - now) / 1000) : 0;
    }
    if (window) this.windows.delete(key);
    for (const [oldest, w] of this.windows) {
      if (w.resetAt > now && this.windows.size < this.maxKeys) break;
      this.windows.delete(oldest);
    }
    this.windows.set(key, { count: 1, resetAt: now + 60_000 });
    return max < 1 ? 60 : 0;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The researcher's and analyst's API (studio, reports): what a cross-site request must not reach. */
const STAFF_API = /^\/api\/(?:studio|reports)\//;
/** The header the studio sends with every request it makes; no HTML form can send one. */
const STAFF_REQUEST_HEADER = 'x-earmark-request';

/** Why a state-changing staff request may have come from another origin's page, or null. */
function crossSiteRefusal(request: FastifyRequest): string | null {
  const { origin } = request.headers;
  const site = request.headers['sec-fetch-site'];
  let originHost: string | null = null;
  try {
    originHost = origin === undefined ? request.host : new URL(origin).host;
  } catch {
    // 'null' (a sandboxed or privacy-sensitive context) or garbage: not this origin.
  }
  // The host and port, not the scheme: behind a proxy the server may see http while the page is https.
  if (originHost !== request.host || (site !== undefined && site !== 'same-origin' && site !== 'none')) {
    return 'the studio API takes changes only from the studio\'s own pages (this request came from another origin)';
  }
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json' || request.headers[STAFF_REQUEST_HEADER] !== undefined || request.headers.authorization !== undefined) return null;
  return `the studio API takes JSON (Content-Type: application/json), or a request with the ${STAFF_REQUEST_HEADER} header`;
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
    app.addHook('onRequest', (request, reply, done) => {
      reply.headers(isApiOrMedia(request.url) ? API_HEADERS : PAGE_HEADERS);
      // protocol is https on a TLS socket, or behind a trusted proxy that says X-Forwarded-Proto: https.
      if (request.protocol === 'https') reply.header('strict-transport-security', HSTS);
      done();
    });

    // One counter per limit, checked in a plain (callback) hook: every vote passes two of them.
    app.decorate('limitRate', (name: keyof RateLimits, key: (request: FastifyRequest) => string) => {
      const windows = new RateWindows();
      const max = rateLimits[name];
      const hook: onRequestHookHandler = (request, reply, done) => {
        const wait = windows.hit(key(request), max);
        if (wait === 0) return done();
        reply.header('retry-after', wait);
        done(new HttpError(429, 'rate_limited', `too many requests; try again in ${wait} s`));
      };
      return hook;
    });

    // Cross-site requests: a page on another origin of the same site (another port of this host, a
    // sibling subdomain) is "same-site", so the browser sends the SameSite=Strict sign-in cookie
    // with a form it posts here. Every state-changing staff request must therefore come from this
    // origin (Origin and Sec-Fetch-Site, when the browser sends them) and be something a form
    // cannot send: JSON, or a request carrying the X-Earmark-Request header or a bearer token.
    app.addHook('onRequest', (request, _reply, done) => {
      if (SAFE_METHODS.has(request.method) || !STAFF_API.test(request.url)) return done();
      const refusal = crossSiteRefusal(request);
      done(refusal ? new HttpError(403, 'forbidden', refusal) : undefined);
    });

    // Bodies are read as UTF-8; a body declared in another charset would be misread, so refuse it.
    app.addHook('onRequest', (request, _reply, done) => {
      const charset = /;\s*charset="?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
      if (charset && charset.toLowerCase() !== 'utf-8') {
        return done(new HttpError(415, 'unsupported_media_type', `request bodies must be UTF-8, not ${charset.slice(0, 40)}`));
      }
      done();
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

import { statSync } from 'node:fs';
import fp from 'fastify-plugin';
import type { FastifyRequest, RouteOptions } from 'fastify';
import { STAFF_ROLES } from '../../contract/constants';
import { Health, MetricsText, OpenApiDocument, Readiness } from '../../contract/ops';
import { gauge, type ServerMetrics } from '../metrics';
import { openApiDocument } from '../openapi';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counters and histograms served by /metrics; `app.metrics.liveReports.time(…)` counts a live report. */
    metrics: ServerMetrics;
    /** This server's routes as an OpenAPI 3.1 document (server/openapi.ts); served at /api/openapi.json, written to docs/openapi.json. */
    openApi(): object;
  }
}

export interface OpsPluginOptions {
  metrics: ServerMetrics;
  /** The database file: its WAL's size is a metric. */
  file: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * A scrape from this machine (Prometheus, curl on the server) and not through a proxy: a request
 * that Caddy forwards carries X-Forwarded-For, so /metrics behind it needs a staff token.
 */
const fromLoopback = (request: FastifyRequest) =>
  LOOPBACK.has(request.socket.remoteAddress ?? '') && request.headers['x-forwarded-for'] === undefined && request.headers.forwarded === undefined;

const fileSize = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

/**
 * Operations: /healthz (the process is up), /readyz (votes can be recorded: the database takes the
 * write lock and the vote writer thread is alive and committing), /metrics (Prometheus; staff or
 * loopback only) and /api/openapi.json (staff), plus request latency by route for /metrics.
 * Registered before the routes, so it sees each of them (onRoute) for the API description.
 */
export const opsPlugin = fp<OpsPluginOptions>(
  async (app, { metrics, file }) => {
    app.decorate('metrics', metrics);
    const routes: RouteOptions[] = [];
    app.addHook('onRoute', (route) => void routes.push(route));
    // Every request passes here: a plain (callback) hook, and each method, route and status's series
    // found by a plain string key (their label text, the histogram's own key, is escaped).
    const observers = new Map<string, (seconds: number) => void>();
    app.addHook('onResponse', (request, reply, done) => {
      const { method } = request;
      const route = request.routeOptions.url ?? '(no route)';
      const status = reply.statusCode;
      const key = `${method} ${status} ${route}`;
      let observe = observers.get(key);
      if (!observe) observers.set(key, (observe = metrics.requestSeconds.observer({ method, route, status: String(status) })));
      observe(reply.elapsedTime / 1000);
      done();
    });
    app.addHook('onClose', async () => metrics.close());

    app.get('/healthz', { schema: { response: { 200: Health } } }, async () => ({ status: 'ok' as const }));

    app.get('/readyz', { schema: { response: { 200: Readiness, 503: Readiness } } }, async (_request, reply) => {
      const writer = await app.voteWriter.health();
      const problems = writer.ok ? [] : [writer.problem!];
      return reply.code(problems.length ? 503 : 200).header('cache-control', 'no-store').send({ status: problems.length ? 'unready' : 'ready', problems });
    });

    const staff = app.requireRole(...STAFF_ROLES);
    app.get(
      '/metrics',
      {
        onRequest: async function (request, reply) {
          if (!fromLoopback(request)) await staff.call(this, request, reply);
        },
        schema: { response: { 200: MetricsText } },
      },
      async (_request, reply) => {
        const text = metrics.render([
          gauge('earmark_wal_bytes', 'Size of the database write-ahead log (earmark.db-wal).', [[{}, fileSize(`${file}-wal`)]]),
          gauge('earmark_database_bytes', 'Size of the database file (earmark.db).', [[{}, fileSize(file)]]),
          gauge('earmark_vote_writer_up', '1 while the vote writer thread runs.', [[{}, app.voteWriter.running ? 1 : 0]]),
        ]);
        return reply.type('text/plain; version=0.0.4; charset=utf-8').header('cache-control', 'no-store').send(text);
      },
    );

    let document: object | undefined;
    app.decorate('openApi', () => (document ??= openApiDocument(routes)));
    app.get('/api/openapi.json', { onRequest: staff, schema: { response: { 200: OpenApiDocument } } }, async () => app.openApi());
  },
  { name: 'ops', dependencies: ['db', 'auth'] },
);

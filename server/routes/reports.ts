import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Dashboard, ReportLink } from '../../contract/reports';
import { StudyId } from '../../contract/common';
import { HttpError, notFound } from '../errors';
import { asPage } from '../plugins/security';
import { dashboard, liveReport } from '../live-report';
import { renderReportHtml } from '../../analysis/html';

const StudyParams = z.object({ study: StudyId });
const TICKET_MS = 60_000;
// The report page is inline CSS and SVG only: nothing else may load or run in it.
const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Live figures and the analysis report of a study, for researchers and analysts, computed from
 * the database on each request. The HTML report opens in a browser tab, which cannot send the
 * bearer token, so a signed-in page first asks for a one-minute link (a single-use ticket).
 */
export const reportRoutes: FastifyPluginAsyncZod = async (app) => {
  const readers = app.requireRole('researcher', 'analyst');
  const tickets = new Map<string, { study: string; expires: number }>();
  const studyOr404 = (id: string) => {
    const study = app.store.studies.get(id);
    if (!study) throw notFound('unknown_study', 'no such study');
    return study;
  };

  app.get(
    '/api/studio/studies/:study/dashboard',
    { onRequest: readers, schema: { params: StudyParams, response: { 200: Dashboard } } },
    async (request) => app.metrics.liveReports.time(() => dashboard(app.db, request.params.study, studyOr404(request.params.study).status)),
  );

  app.get(
    '/api/reports/:study',
    { onRequest: readers, schema: { params: StudyParams, response: { 200: z.record(z.string(), z.unknown()) } } },
    async (request) => {
      studyOr404(request.params.study);
      return app.metrics.liveReports.time(() => liveReport(app.db, request.params.study)).report as unknown as Record<string, unknown>;
    },
  );

  app.post(
    '/api/reports/:study/html-link',
    { onRequest: readers, schema: { params: StudyParams, response: { 200: ReportLink } } },
    async (request) => {
      const study = studyOr404(request.params.study);
      const now = Date.now();
      for (const [t, v] of tickets) if (v.expires < now) tickets.delete(t);
      const ticket = randomBytes(24).toString('base64url');
      tickets.set(ticket, { study: study.id, expires: now + TICKET_MS });
      return { url: `/api/reports/${study.id}/html?ticket=${ticket}`, expiresAt: new Date(now + TICKET_MS).toISOString() };
    },
  );

  // A ticket (from html-link) or a bearer token; the ticket is spent on first use.
  const ticketOrToken = async (request: FastifyRequest, reply: FastifyReply) => {
    const { ticket } = request.query as { ticket?: string };
    const { study } = request.params as { study: string };
    if (ticket === undefined) return readers.call(app, request, reply);
    const held = tickets.get(ticket);
    tickets.delete(ticket);
    if (!held || held.study !== study || held.expires < Date.now()) {
      throw new HttpError(401, 'unauthorized', 'this report link has expired or was already used; open the report again from the studio');
    }
  };

  app.get(
    '/api/reports/:study/html',
    { onRequest: ticketOrToken, schema: { params: StudyParams, querystring: z.object({ ticket: z.string().max(64).optional() }) } },
    async (request, reply) => {
      const study = studyOr404(request.params.study);
      const html = renderReportHtml(app.metrics.liveReports.time(() => liveReport(app.db, study.id)).report);
      return asPage(reply, REPORT_CSP)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(html);
    },
  );
};

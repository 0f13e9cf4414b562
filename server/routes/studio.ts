import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { ExportBundle, StaffSession, StaffSignInBody, StudioStudy, StudioStudyList, StudyId, StudyStatusBody } from '../contract';
import { bundleFiles } from '../bundle';
import { HttpError, conflict, notFound } from '../errors';
import { STAFF_COOKIE } from '../plugins/auth';
import { setStudyStatus } from '../../studies/build';

const StudyParams = z.object({ study: StudyId });
/** A studio sign-in lasts a working day. */
const SIGN_IN_SECONDS = 12 * 3600;

/** Researcher (and, where said, analyst) routes; every one checks the access token first. */
export const studioRoutes: FastifyPluginAsyncZod = async (app) => {
  const unknownStudy = () => notFound('unknown_study', 'no such study');

  // Sign-in: the token goes into an HttpOnly, SameSite=Strict cookie, out of reach of any script
  // on this origin (listener pages included); the API keeps taking it as a bearer header too.
  const cookie = (request: FastifyRequest, value: string, maxAge: number) =>
    `${STAFF_COOKIE}=${value}; Path=/api; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${request.protocol === 'https' ? '; Secure' : ''}`;

  app.post(
    '/api/studio/session',
    { schema: { body: StaffSignInBody, response: { 200: StaffSession } } },
    async (request, reply) => {
      const token = request.body.token.trim();
      if (!/^[A-Za-z0-9._~+/=-]+$/.test(token)) throw new HttpError(401, 'unauthorized', 'that is not an access token');
      const role = await app.authenticateStaff(request, reply, token);
      reply.header('set-cookie', cookie(request, token, SIGN_IN_SECONDS)).header('cache-control', 'no-store');
      return { role };
    },
  );

  app.get(
    '/api/studio/session',
    { onRequest: app.requireRole('researcher', 'analyst'), schema: { response: { 200: StaffSession } } },
    async (request) => ({ role: request.staffRole! }),
  );

  app.delete('/api/studio/session', async (request, reply) => reply.header('set-cookie', cookie(request, '', 0)).code(204).send());

  app.get(
    '/api/studio/studies',
    { onRequest: app.requireRole('researcher', 'analyst'), schema: { response: { 200: StudioStudyList } } },
    async () => ({ studies: app.store.studies.list() }),
  );

  app.post(
    '/api/studio/studies/:study/status',
    {
      onRequest: app.requireRole('researcher'),
      schema: { params: StudyParams, body: StudyStatusBody, response: { 200: StudioStudy } },
    },
    async (request) => {
      if (!app.store.studies.get(request.params.study)) throw unknownStudy();
      try {
        setStudyStatus(app.db, request.params.study, request.body.status);
      } catch (error) {
        throw conflict('status_refused', (error as Error).message, 'status');
      }
      return app.store.studies.list().find((s) => s.id === request.params.study)!;
    },
  );

  app.get(
    '/api/studio/studies/:study/export',
    {
      onRequest: app.requireRole('researcher', 'analyst'),
      schema: { params: StudyParams, response: { 200: ExportBundle } },
    },
    async (request) => {
      if (!app.store.studies.get(request.params.study)) throw unknownStudy();
      return bundleFiles(app.store.exports.rows(request.params.study));
    },
  );
};

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ExportBundle, ParticipantTable } from '../../contract/reports';
import { SignedOut, StaffSession, StaffSignInBody, StudioStudy, StudioStudyList } from '../../contract/studio';
import { StudyId } from '../../contract/common';
import { studyFolders } from '../store/study-folders';
import { HttpError, conflict, notFound } from '../errors';
import { STAFF_COOKIE } from '../plugins/auth';
import { setStudyStatus } from '../../studies/build';
import { corpusRoots } from '../../studies/roots';
import { json } from './reports';

const StudyParams = z.object({ study: StudyId });
/** A studio sign-in lasts a working day. */
const SIGN_IN_SECONDS = 12 * 3600;

/** A download: saved under `fileName` (a study id and a fixed suffix, so nothing to escape), never cached. */
const attachment = (reply: FastifyReply, type: string, fileName: string) =>
  reply.type(type).header('content-disposition', `attachment; filename="${fileName}"`).header('cache-control', 'no-store');

/** Researcher (and, where said, analyst) routes; every one checks the access token first. */
export const studioRoutes: FastifyPluginAsyncZod<{ dataDir: string; corpora?: readonly string[] }> = async (app, { dataDir, corpora = [] }) => {
  // What the studio lists as where sources may be read from, as the builds confine them.
  const roots = corpusRoots({ dataDir, corpora });
  const unknownStudy = () => notFound('unknown_study', 'no such study');
  const folders = studyFolders(dataDir);
  const built = () => app.store.studies.list().map((s) => ({ ...s, built: true }));

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
      const { role } = await app.authenticateStaff(request, reply, token);
      reply.header('set-cookie', cookie(request, token, SIGN_IN_SECONDS)).header('cache-control', 'no-store');
      return { role };
    },
  );

  app.get(
    '/api/studio/session',
    { onRequest: app.requireRole('researcher', 'analyst'), schema: { response: { 200: StaffSession } } },
    async (request) => ({ role: request.staffRole! }),
  );

  app.delete('/api/studio/session', { schema: { response: { 204: SignedOut } } }, async (request, reply) => reply.header('set-cookie', cookie(request, '', 0)).code(204).send(null));

  app.get(
    '/api/studio/studies',
    { onRequest: app.requireRole('researcher', 'analyst'), schema: { response: { 200: StudioStudyList } } },
    // Built studies, and the study folders of the data directory not built yet: one list, however made.
    async (request) => {
      const studies = built().filter((s) => app.mayReachStudy(request, s.id));
      const known = new Set(studies.map((s) => s.id));
      const drafts = folders
        .list()
        .filter((name) => !known.has(name) && app.mayReachStudy(request, name))
        .map((id) => ({ id, title: folders.title(id), status: 'draft' as const, items: 0, listeners: 0, completed: 0, votes: 0, built: false }));
      return { studies: [...studies, ...drafts], roots };
    },
  );

  // The export as the role may see it (docs/security.md, "Roles"), streamed from the live figures thread.
  app.get(
    '/api/studio/studies/:study/export',
    {
      onRequest: app.requireRole('researcher', 'analyst'),
      schema: { params: StudyParams, response: { 200: ExportBundle } },
    },
    async (request, reply) => {
      if (!app.store.studies.get(request.params.study)) throw unknownStudy();
      return json(reply, app.liveFigures.bundle(request.params.study, request.staffRole!, 'json'));
    },
  );

  // The same files as /export, zipped in one folder: what `npm run analyze` takes as is.
  app.get(
    '/api/studio/studies/:study/export.zip',
    { onRequest: app.requireRole('researcher', 'analyst'), schema: { params: StudyParams } },
    async (request, reply) => {
      const { study } = request.params;
      if (!app.store.studies.get(study)) throw unknownStudy();
      return attachment(reply, 'application/zip', `${study}-bundle.zip`).send(app.liveFigures.bundle(study, request.staffRole!, 'zip'));
    },
  );

  // The paper bundle of the study's data as it stands (analysis/paper): what `npm run analyze -- <export> --format paper` writes.
  app.get(
    '/api/studio/studies/:study/paper.zip',
    { onRequest: app.requireRole('researcher', 'analyst'), schema: { params: StudyParams } },
    async (request, reply) => {
      const { study } = request.params;
      if (!app.store.studies.get(study)) throw unknownStudy();
      return attachment(reply, 'application/zip', `${study}-paper.zip`).send(app.liveFigures.bundle(study, request.staffRole!, 'paper'));
    },
  );

  // Who took part and how each fared: the recruiting platform's ids are the researcher's to see.
  app.get(
    '/api/studio/studies/:study/participants',
    { onRequest: app.requireRole('researcher'), schema: { params: StudyParams, response: { 200: ParticipantTable } } },
    async (request, reply) => {
      if (!app.store.studies.get(request.params.study)) throw unknownStudy();
      return json(reply, await app.liveFigures.figure('participants', request.params.study));
    },
  );

  app.get(
    '/api/studio/studies/:study/approvals.csv',
    { onRequest: app.requireRole('researcher'), schema: { params: StudyParams } },
    async (request, reply) => {
      const { study } = request.params;
      if (!app.store.studies.get(study)) throw unknownStudy();
      return attachment(reply, 'text/csv; charset=utf-8', `${study}-approvals.csv`).send(await app.liveFigures.figure('approvals', study));
    },
  );
};

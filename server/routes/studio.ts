import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ExportBundle, StudioStudy, StudioStudyList, StudyId, StudyStatusBody } from '../contract';
import { bundleFiles } from '../bundle';
import { conflict, notFound } from '../errors';
import { setStudyStatus } from '../../studies/build';

const StudyParams = z.object({ study: StudyId });

/** Researcher (and, where said, analyst) routes; every one checks the access token first. */
export const studioRoutes: FastifyPluginAsyncZod = async (app) => {
  const unknownStudy = () => notFound('unknown_study', 'no such study');

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

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CommentsAck, CommentsBody, ProblemBody, ScreeningBody, SessionState, StartSessionBody, StartSessionReply, StudyId, StudyIntro, VoteAck, VoteBody,
} from '../contract';
import { HttpError, conflict, notFound } from '../errors';
import { StudyFullError } from '../../studies/design';
import { ParticipantMismatchError, hashSessionToken } from '../store/sessions';

const unknownStudy = () => notFound('unknown_study', 'no such study');

/** The listener API: study intro, session start, state, votes, skipped clips, the headphone screening and end-of-study comments. */
export const listenerRoutes: FastifyPluginAsyncZod = async (app) => {
  // Session routes are limited per client address and per session token.
  const perIp = (r: { ip: string }) => r.ip;
  const perSession = (r: { headers: { authorization?: string }; ip: string }) =>
    r.headers.authorization ? hashSessionToken(r.headers.authorization) : r.ip;

  app.get(
    '/api/studies/:study/intro',
    { schema: { params: z.object({ study: StudyId }), response: { 200: StudyIntro } } },
    async (request) => {
      const study = app.store.studies.get(request.params.study);
      if (!study || study.status === 'draft') throw unknownStudy();
      return app.store.studies.intro(study);
    },
  );

  app.post(
    '/api/sessions',
    {
      onRequest: app.limitRate('sessionsPerIp', perIp),
      schema: { body: StartSessionBody, response: { 200: StartSessionReply, 201: StartSessionReply } },
    },
    async (request, reply) => {
      const study = app.store.studies.get(request.body.study);
      if (!study || study.status === 'draft') throw unknownStudy();
      if (study.status !== 'open') throw conflict('study_not_open', `this study is ${study.status}`, 'study');
      let started: { token: string; resumed: boolean };
      try {
        started = app.store.sessions.create(study, request.body.external, request.headers['user-agent'] ?? null, request.ip);
      } catch (error) {
        if (error instanceof StudyFullError) throw conflict('study_full', 'this study has all the ratings it needs', 'study');
        if (error instanceof ParticipantMismatchError) {
          throw conflict('participant_has_session', 'this participant already has a session in this study; continue it from the link you were given', 'external');
        }
        throw error;
      }
      const listener = app.store.sessions.byToken(started.token)!;
      // 200: the participant's existing session, resumed in this browser; 201: a new one.
      return reply.code(started.resumed ? 200 : 201).send({ token: started.token, state: app.store.sessions.state(listener, study) });
    },
  );

  app.get(
    '/api/session',
    { onRequest: app.requireSession, schema: { response: { 200: SessionState } } },
    async (request) => {
      const { listener, study } = request.session!;
      return app.store.sessions.state(listener, study);
    },
  );

  app.post(
    '/api/session/votes',
    {
      onRequest: [app.limitRate('votesPerIp', perIp), app.limitRate('votesPerSession', perSession), app.requireSessionListener],
      schema: { body: VoteBody, response: { 200: VoteAck } },
    },
    // The study's status, its screening rule and the listener's screening are checked by the vote
    // writer inside the vote's transaction (server/store/votes.ts), so a pause refuses the next vote.
    async (request) => app.voteCommits.submit({ listener: request.sessionListener!, vote: request.body }),
  );

  app.post(
    '/api/session/problems',
    {
      onRequest: [app.limitRate('votesPerSession', perSession), app.requireSession],
      schema: { body: ProblemBody, response: { 200: SessionState } },
    },
    async (request) => {
      const { listener, study } = request.session!;
      app.store.trialProblems.report(listener, request.body, study.definition.completion.code);
      return app.store.sessions.state(listener, study);
    },
  );

  app.post(
    '/api/session/comments',
    {
      onRequest: [app.limitRate('votesPerSession', perSession), app.requireSession],
      schema: { body: CommentsBody, response: { 200: CommentsAck } },
    },
    async (request) => {
      const { listener, study } = request.session!;
      if (!study.definition.comments) throw conflict('comments_not_asked', 'this study does not ask for comments');
      app.store.sessions.saveComments(listener, request.body.text);
      return { saved: true as const };
    },
  );

  app.post(
    '/api/session/screening',
    { onRequest: app.requireSession, schema: { body: ScreeningBody, response: { 200: SessionState } } },
    async (request) => {
      const { listener, study } = request.session!;
      const asked = study.definition.screening.kind;
      if (asked !== 'both' && asked !== request.body.kind) {
        throw new HttpError(409, 'screening_not_asked', `this study does not use the ${request.body.kind} check`, 'kind');
      }
      app.store.sessions.recordScreening(listener.id, request.body);
      return app.store.sessions.state({ ...listener, screened: true }, study);
    },
  );
};

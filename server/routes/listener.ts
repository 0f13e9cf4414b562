import { z } from 'zod';
import { validatorCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AnswersAck, AnswersBody, CommentsAck, CommentsBody, ProblemBody, ScreeningAttempt, ScreeningBody, ScreeningReply, ScreeningStartBody, SessionState,
  StartSessionBody, StartSessionReply, StudyIntro, VoteAck, VoteBody,
} from '../../contract/listener';
import { HEADPHONE_CHECKS, MAX_STIMULI } from '../../contract/constants';
import { answerFields } from '../../contract/trials';
import { StudyId } from '../../contract/common';
import { checkAnswers } from '../../contract/questionnaire';
import { HttpError, conflict, notFound } from '../errors';
import { StudyCompleteError, StudyFullError } from '../../studies/design';
import { hashSessionToken } from '../store/sessions';
import { clientNetwork } from '../network';

const unknownStudy = () => notFound('unknown_study', 'no such study');

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
// Days 29-31 are left to zod, which knows the length of each month.
const CLIENT_TS = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const CORE_KEYS = ['voteId', 'position', 'playCount', 'secondsListened', 'heardToEnd', 'hiddenMs', 'responseMs', 'clientTs'];
const ANSWER_KEYS = Object.keys(answerFields) as (keyof typeof answerFields)[];
const LISTENING_KEYS = ['plays', 'secondsHeard', 'heardToEnd'];
const count = (x: unknown, max: number) => Number.isSafeInteger(x) && (x as number) >= 0 && (x as number) <= max;
const seconds = (x: unknown) => typeof x === 'number' && x >= 0 && x <= 86_400;

/** A kind's answer value that its own field schema takes as it is (a primitive: an enum, literal or integer). */
const plainAnswer = (key: keyof typeof answerFields, value: unknown) => {
  if (value === null || typeof value === 'object') return false;
  const parsed = answerFields[key].safeParse(value);
  return parsed.success && parsed.data === value;
};
const plainListening = (x: unknown) =>
  Array.isArray(x) && x.length >= 1 && x.length <= MAX_STIMULI &&
  x.every((l: unknown) => {
    if (typeof l !== 'object' || l === null || Array.isArray(l) || Object.keys(l).length !== LISTENING_KEYS.length) return false;
    const e = l as Record<string, unknown>;
    return LISTENING_KEYS.every((key) => Object.hasOwn(e, key)) && count(e.plays, 10_000) && seconds(e.secondsHeard) && typeof e.heardToEnd === 'boolean';
  });

/**
 * A vote body as the listener page sends it, checked without zod but for its one answer field
 * (the kind's own schema of that field, which every kind declares in its contract.ts): every value
 * this accepts, VoteBody accepts as it is (server/test/vote-body.test.ts checks that with
 * fast-check, for every kind's answer and with and without a listening record). The UUID pattern
 * leaves out the nil and max UUIDs (their version digit is 0 or f). Anything else goes to
 * VoteBody, which accepts it or says what is wrong.
 */
export function isPlainVote(body: unknown): body is VoteBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const v = body as Record<string, unknown>;
  const keys = Object.keys(v).length;
  const listening = Object.hasOwn(v, 'listening');
  if (keys !== CORE_KEYS.length + 1 + (listening ? 1 : 0)) return false;
  const answers = ANSWER_KEYS.filter((key) => Object.hasOwn(v, key));
  return (
    answers.length === 1 && plainAnswer(answers[0], v[answers[0]]) &&
    CORE_KEYS.every((key) => Object.hasOwn(v, key)) &&
    typeof v.voteId === 'string' && UUID.test(v.voteId) &&
    count(v.position, Number.MAX_SAFE_INTEGER) &&
    count(v.playCount, 10_000) &&
    seconds(v.secondsListened) &&
    typeof v.heardToEnd === 'boolean' &&
    count(v.hiddenMs, 86_400_000) &&
    count(v.responseMs, 86_400_000) &&
    typeof v.clientTs === 'string' && CLIENT_TS.test(v.clientTs) &&
    (!listening || plainListening(v.listening))
  );
}

/**
 * A vote's acknowledgement as JSON, written key by key: exactly VoteAck's keys, as the zod
 * serializer would keep them, without checking the writer's own object again on every vote.
 */
const voteAckJson = (ack: VoteAck): string =>
  JSON.stringify({
    voteId: ack.voteId,
    position: ack.position,
    serverTs: ack.serverTs,
    feedback: ack.feedback && { correct: ack.feedback.correct, score: ack.feedback.score },
  });

/** The listener API: study intro, session start, state, votes, skipped clips, the headphone screening, the study's questions and end-of-study comments. */
export const listenerRoutes: FastifyPluginAsyncZod = async (app) => {
  // Session routes are limited per client network (an IPv4 address or an IPv6 /64) and per session token.
  const perIp = (r: { ip: string }) => clientNetwork(r.ip);
  // A real session's header (`Bearer ` and 43 characters) is its own key; anything longer is
  // hashed, so made-up headers cannot make the counters hold large strings.
  const perSession = (r: { headers: { authorization?: string }; ip: string }) => {
    const header = r.headers.authorization;
    return header ? (header.length <= 64 ? header : hashSessionToken(header)) : r.ip;
  };

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
        if (error instanceof StudyCompleteError) throw conflict('study_complete', 'this study has all the answers it needs and takes no more listeners', 'study');
        if (error instanceof StudyFullError) throw conflict('study_full', 'this study has all the ratings it needs', 'study');
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
      serializerCompiler: () => voteAckJson,
      // Called for the body only (the route has no other schema).
      validatorCompiler: (route) => {
        const full = validatorCompiler({ ...route, schema: VoteBody });
        return (data) => (isPlainVote(data) ? { value: data } : full(data));
      },
    },
    // The study's status, its screening rule and the listener's screening are checked by the vote
    // writer inside the vote's transaction (server/store/votes.ts), so a pause refuses the next vote.
    async (request) => app.voteCommits.submit({ listener: request.sessionListener!, vote: request.body }),
  );

  app.post(
    '/api/session/leave',
    {
      onRequest: [app.limitRate('votesPerSession', perSession), app.requireSession],
      schema: { summary: 'The listener leaves the study part-way: no more trials, their unanswered ones go to others at once', response: { 200: SessionState } },
    },
    async (request) => {
      const { listener, study } = request.session!;
      return app.store.sessions.state(app.store.sessions.leave(listener), study);
    },
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

  // Headphone checks (server/store/screening.ts): the server draws each attempt's rounds, serves
  // each round as a sound and scores the answers; the browser never holds the targets.
  const askedFor = (asked: string, kind: string) => {
    if (asked !== 'both' && asked !== kind) throw new HttpError(409, 'screening_not_asked', `this study does not use the ${kind} check`, 'kind');
  };
  app.post(
    '/api/session/screening/attempts',
    { onRequest: app.requireSession, schema: { body: ScreeningStartBody, response: { 200: ScreeningAttempt } } },
    async (request) => {
      askedFor(request.session!.study.definition.screening.kind, request.body.kind);
      const attempt = app.store.screening.begin(request.session!.listener.id, request.body);
      if ('usedUp' in attempt) throw conflict('screening_recorded', `every attempt at the ${request.body.kind} check was begun; it counts as not passed`, 'kind');
      return attempt;
    },
  );

  app.get(
    '/api/session/screening/:kind/:attempt/:round',
    {
      onRequest: app.requireSession,
      schema: { params: z.object({ kind: z.enum(HEADPHONE_CHECKS), attempt: z.coerce.number().int().positive(), round: z.coerce.number().int().positive() }) },
    },
    async (request, reply) => {
      const { kind, attempt, round } = request.params;
      const wav = app.store.screening.roundSound(request.session!.listener.id, kind, attempt, round);
      if (!wav) throw notFound('unknown_round', 'no such round in an open attempt of yours');
      return reply.headers({ 'content-type': 'audio/wav', 'cache-control': 'no-store' }).send(Buffer.from(wav));
    },
  );

  const calibration = Buffer.from(app.store.screening.calibration());
  app.get('/api/session/screening/calibration', { onRequest: app.requireSession, schema: { summary: 'The headphone check’s calibration tone (audio/wav)' } }, async (_request, reply) =>
    reply.headers({ 'content-type': 'audio/wav', 'cache-control': 'private, max-age=86400' }).send(calibration),
  );

  app.post(
    '/api/session/answers',
    {
      onRequest: [app.limitRate('votesPerSession', perSession), app.requireSession],
      schema: { body: AnswersBody, response: { 200: AnswersAck } },
    },
    async (request) => {
      const { listener, study } = request.session!;
      const { questions } = study.definition;
      if (!questions.some((q) => q.when === request.body.when)) throw conflict('questions_not_asked', `this study asks no questions ${request.body.when} the trials`, 'when');
      const checked = checkAnswers(questions, request.body);
      if (!checked.ok) throw new HttpError(400, 'invalid_answer', checked.message, checked.field);
      app.store.sessions.saveAnswers(listener, questions, request.body.when, checked.answers);
      return { saved: true as const };
    },
  );

  app.post(
    '/api/session/screening',
    { onRequest: app.requireSession, schema: { body: ScreeningBody, response: { 200: ScreeningReply } } },
    async (request) => {
      const { listener, study } = request.session!;
      askedFor(study.definition.screening.kind, request.body.kind);
      const outcome = app.store.screening.answer(listener.id, request.body);
      return { outcome, state: app.store.sessions.state(listener, study) };
    },
  );
};

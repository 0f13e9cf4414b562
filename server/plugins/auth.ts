import fp from 'fastify-plugin';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { HttpError } from '../errors';
import type { Role } from '../store/access-tokens';
import type { ListenerRow } from '../store/sessions';
import type { StudyRow } from '../store/studies';

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook: a valid researcher/analyst token of one of `roles`, else 401/403. */
    requireRole(...roles: Role[]): onRequestAsyncHookHandler;
    /** onRequest hook: a valid listener session token; sets request.session. */
    requireSession: onRequestAsyncHookHandler;
  }
  interface FastifyRequest {
    session: { listener: ListenerRow; study: StudyRow } | null;
  }
}

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9._~+/=-]{1,512})$/.exec(header) : null;
  return match ? match[1] : null;
}

export const authPlugin = fp(
  async (app) => {
    app.decorateRequest('session', null);

    app.decorate('requireRole', (...roles: Role[]): onRequestAsyncHookHandler => async (request) => {
      const token = bearer(request);
      const role = token ? await app.store.accessTokens.verify(token) : null;
      if (!role) throw new HttpError(401, 'unauthorized', 'a valid researcher or analyst token is required');
      if (!roles.includes(role)) throw new HttpError(403, 'forbidden', `this needs the ${roles.join(' or ')} role`);
    });

    app.decorate('requireSession', async (request: FastifyRequest) => {
      const token = bearer(request);
      const listener = token ? app.store.sessions.byToken(token) : undefined;
      const study = listener && app.store.studies.get(listener.studyId);
      if (!listener || !study) throw new HttpError(401, 'invalid_session', 'no session for this token; start one from the study link');
      request.session = { listener, study };
    });
  },
  { name: 'auth', dependencies: ['db'] },
);

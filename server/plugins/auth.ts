import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { HttpError, notFound } from '../errors';
import { DerivationsBusyError, tokenId, type Role, type StaffGrant } from '../store/access-tokens';
import { clientNetwork } from '../network';
import type { ListenerRow, SessionListener } from '../store/sessions';
import type { StudyRow } from '../store/studies';
import type { RateLimits } from './security';

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook: a valid researcher/analyst token of one of `roles`, else 401/403 (429 after repeated failures). */
    requireRole(...roles: Role[]): onRequestAsyncHookHandler;
    /** onRequest hook: a valid listener session token; sets request.session. */
    requireSession: onRequestAsyncHookHandler;
    /**
     * onRequest hook of the vote route: a valid listener session token; sets request.sessionListener
     * only (no database read once the token is known). The vote writer reads the rest inside the vote's transaction.
     */
    requireSessionListener: onRequestHookHandler;
    /** What `token` grants, counted against the failure limits like every staff authentication. */
    authenticateStaff(request: FastifyRequest, reply: FastifyReply, token: string): Promise<StaffGrant>;
    /** Whether the token that passed requireRole may reach `study` (tokens limited to named studies). */
    mayReachStudy(request: FastifyRequest, study: string): boolean;
  }
  interface FastifyRequest {
    session: { listener: ListenerRow; study: StudyRow } | null;
    sessionListener: SessionListener | null;
    /** The role of the access token that passed requireRole. */
    staffRole: Role | null;
    /** The studies that token may reach, or null for every study (docs/security.md, "Per-study access"). */
    staffStudies: string[] | null;
  }
}

/** The studio's sign-in cookie: HttpOnly, so no script on this origin (the listener pages included) can read the token. */
export const STAFF_COOKIE = 'earmark_staff';
const TOKEN_CHARS = '[A-Za-z0-9._~+/=-]{1,512}';
const BEARER = new RegExp(`^Bearer (${TOKEN_CHARS})$`);
const COOKIE = new RegExp(`(?:^|;\\s*)${STAFF_COOKIE}=(${TOKEN_CHARS})(?:;|$)`);

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  return typeof header === 'string' ? (BEARER.exec(header)?.[1] ?? null) : null;
}

/** A staff credential: the Authorization header (CLI, scripts, tests) or the studio's cookie. */
function staffCredential(request: FastifyRequest): string | null {
  const cookie = request.headers.cookie;
  return bearer(request) ?? (typeof cookie === 'string' ? (COOKIE.exec(cookie)?.[1] ?? null) : null);
}

/**
 * Failed staff authentications per key in fixed one-minute windows. Checked before any key
 * derivation, so a flood of wrong tokens costs a map lookup each, not a scrypt run.
 */
class FailureCounter {
  private readonly windows = new Map<string, { failures: number; resetAt: number }>();

  /** Seconds until `key` may try again, or 0. */
  waitFor(key: string, max: number, now = Date.now()): number {
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now) return 0;
    return window.failures >= max ? Math.ceil((window.resetAt - now) / 1000) : 0;
  }

  fail(key: string, now = Date.now()): void {
    const window = this.windows.get(key);
    if (window && window.resetAt > now) window.failures += 1;
    else this.windows.set(key, { failures: 1, resetAt: now + 60_000 });
    if (this.windows.size > 10_000) for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }

  /** Takes back one failure counted for an attempt that succeeded (or was never made). */
  forgive(key: string, now = Date.now()): void {
    const window = this.windows.get(key);
    if (window && window.resetAt > now && window.failures > 0) window.failures -= 1;
  }
}

const invalidSession = () => new HttpError(401, 'invalid_session', 'no session for this token; start one from the study link');

export const authPlugin = fp<{ rateLimits: RateLimits }>(
  async (app, { rateLimits }) => {
    app.decorateRequest('session', null);
    app.decorateRequest('sessionListener', null);
    app.decorateRequest('staffRole', null);
    app.decorateRequest('staffStudies', null);
    const failures = new FailureCounter();

    app.decorate('authenticateStaff', async (request: FastifyRequest, reply: FastifyReply, token: string): Promise<StaffGrant> => {
      const tokens = app.store.accessTokens;
      // A token verified before is let through at once: failures from its address or against its
      // id are someone else's, and must not lock it out.
      const known = tokens.remembered(token);
      if (known) return known;
      // A well-formed token's id is looked up before any penalty: failures against an active id
      // are limited per id (so they cannot block that token's address for other tokens, nor the
      // token from its own address), everything else per network (an IPv6 /64).
      const id = tokenId(token);
      const key = id && tokens.isActiveId(id) ? `id:${id}` : `net:${clientNetwork(request.ip)}`;
      const wait = failures.waitFor(key, key.startsWith('id:') ? rateLimits.authFailuresPerToken : rateLimits.authFailuresPerIp);
      if (wait > 0) {
        reply.header('retry-after', wait);
        throw new HttpError(429, 'rate_limited', `too many failed sign-ins; try again in ${wait} s`);
      }
      // Counted as a failure until it succeeds: sign-ins arriving together cannot all pass the
      // check above while the first ones are still being derived.
      failures.fail(key);
      let grant: StaffGrant | null;
      try {
        grant = await tokens.verify(token);
      } catch (error) {
        failures.forgive(key);
        if (!(error instanceof DerivationsBusyError)) throw error;
        reply.header('retry-after', 1);
        throw new HttpError(429, 'rate_limited', 'too many sign-ins at once; try again in 1 s');
      }
      if (!grant) throw new HttpError(401, 'unauthorized', 'a valid researcher or analyst token is required');
      failures.forgive(key);
      return grant;
    });

    app.decorate('requireRole', (...roles: Role[]): onRequestAsyncHookHandler => async (request, reply) => {
      const token = staffCredential(request);
      if (!token) throw new HttpError(401, 'unauthorized', 'a valid researcher or analyst token is required');
      const { role, studies } = await app.authenticateStaff(request, reply, token);
      if (!roles.includes(role)) throw new HttpError(403, 'forbidden', `this needs the ${roles.join(' or ')} role`);
      request.staffRole = role;
      request.staffStudies = studies;
      // Every staff route naming a study in its path is checked here, before its handler runs: a
      // study out of the token's reach is answered as one that does not exist.
      const { study } = (request.params ?? {}) as { study?: unknown };
      if (typeof study === 'string' && !app.mayReachStudy(request, study)) throw notFound('unknown_study', 'no such study');
    });

    app.decorate('mayReachStudy', (request: FastifyRequest, study: string) => request.staffStudies === null || request.staffStudies.includes(study));

    app.decorate('requireSession', async (request: FastifyRequest) => {
      const token = bearer(request);
      const listener = token ? app.store.sessions.byToken(token) : undefined;
      const study = listener && app.store.studies.get(listener.studyId);
      if (!listener || !study) throw invalidSession();
      request.session = { listener, study };
    });

    // A plain (callback) hook, as the vote route's others: an async one costs a promise per vote.
    const requireSessionListener: onRequestHookHandler = (request, _reply, done) => {
      const token = bearer(request);
      const listener = token ? app.store.sessions.sessionListener(token) : undefined;
      if (!listener) return done(invalidSession());
      request.sessionListener = listener;
      done();
    };
    app.decorate('requireSessionListener', requireSessionListener);
  },
  { name: 'auth', dependencies: ['db'] },
);

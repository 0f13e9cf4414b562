/**
 * Typed calls to the listener API. Types come from contract/ as `import type` only, so
 * zod stays out of the listener bundle: the server validates every request, and the client trusts
 * the shapes the same contract promises for replies.
 */
import type { ApiError } from '../../contract/common';
import type {
  AnswersBody, CommentsBody, ProblemBody, ScreeningAttempt, ScreeningBody, ScreeningReply, ScreeningStartBody, SessionState, StartSessionReply, StudyIntro,
  VoteAck, VoteBody,
} from '../../contract/listener';

/** A reply with a 4xx/5xx status; `body` is the server's `{ error, message, field? }` when it sent one. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiError | null,
  ) {
    super(body ? `${status} ${body.error}: ${body.message}` : `HTTP ${status}`);
  }
}

export interface RequestOptions {
  token?: string;
  signal?: AbortSignal;
  /** Extra request headers (the studio's X-Earmark-Request). */
  headers?: Record<string, string>;
}

/** One JSON request; the studio uses it with an access token. */
export async function call<T>(method: string, url: string, body: unknown, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: options.signal,
    cache: 'no-store',
  });
  if (!res.ok) {
    let parsed: ApiError | null = null;
    try {
      parsed = (await res.json()) as ApiError;
    } catch {
      // A proxy or a dropped connection may answer without JSON; the status alone must do.
    }
    throw new HttpError(res.status, parsed);
  }
  return (await res.json()) as T;
}

export const api = {
  intro: (study: string, o?: RequestOptions) =>
    call<StudyIntro>('GET', `/api/studies/${encodeURIComponent(study)}/intro`, undefined, o),
  start: (study: string, external: Record<string, string>, o?: RequestOptions) =>
    call<StartSessionReply>('POST', '/api/sessions', { study, external }, o),
  session: (token: string, o?: RequestOptions) => call<SessionState>('GET', '/api/session', undefined, { ...o, token }),
  vote: (token: string, body: VoteBody, o?: RequestOptions) =>
    call<VoteAck>('POST', '/api/session/votes', body, { ...o, token }),
  problem: (token: string, body: ProblemBody, o?: RequestOptions) =>
    call<SessionState>('POST', '/api/session/problems', body, { ...o, token }),
  leave: (token: string, o?: RequestOptions) => call<SessionState>('POST', '/api/session/leave', {}, { ...o, token }),
  comments: (token: string, body: CommentsBody, o?: RequestOptions) =>
    call<unknown>('POST', '/api/session/comments', body, { ...o, token }),
  answers: (token: string, body: AnswersBody, o?: RequestOptions) =>
    call<unknown>('POST', '/api/session/answers', body, { ...o, token }),
  screeningAttempt: (token: string, body: ScreeningStartBody, o?: RequestOptions) =>
    call<ScreeningAttempt>('POST', '/api/session/screening/attempts', body, { ...o, token }),
  screening: (token: string, body: ScreeningBody, o?: RequestOptions) =>
    call<ScreeningReply>('POST', '/api/session/screening', body, { ...o, token }),
  /** A headphone-check round's sound (WAV bytes), which only this session may fetch. */
  async screeningSound(token: string, url: string): Promise<ArrayBuffer> {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, cache: 'no-store' });
    if (!res.ok) throw new HttpError(res.status, null);
    return res.arrayBuffer();
  },
};

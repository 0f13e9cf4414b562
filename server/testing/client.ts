import { randomUUID } from 'node:crypto';
import type { VoteBody } from '../../contract/listener';

/** A JSON request against a test server; returns status, parsed body and headers. */
export async function call(
  url: string,
  init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers; text: string }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: response.status, body, headers: response.headers, text };
}

/** A well-formed vote for `position`; override any field. */
export function voteFor(position: number, choice: 1 | 2 = 1, extra: Partial<VoteBody> = {}): VoteBody {
  return {
    voteId: randomUUID(),
    position,
    choice,
    playCount: 1,
    secondsListened: 0.5,
    heardToEnd: true,
    hiddenMs: 0,
    responseMs: 1200,
    clientTs: new Date().toISOString(),
    ...extra,
  };
}

/** A well-formed rating vote for `position`; override any field. */
export function ratingFor(position: number, score: number, extra: Partial<VoteBody> = {}): VoteBody {
  const { choice: _pair, ...vote } = voteFor(position);
  return { ...vote, score, ...extra };
}

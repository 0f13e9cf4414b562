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

/**
 * The interval (0-based) a headphone-check round's sound makes the target, read from the WAV the
 * server sent: antiphase, the quietest of the three tones; Huggins, the interval whose two ears
 * differ. That a script can do this is what docs/security.md says a browser check cannot rule out.
 */
export function targetOfRound(kind: 'antiphase' | 'huggins', wav: Uint8Array): number {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  const rate = view.getUint32(24, true);
  const frames = (wav.byteLength - 44) / 4;
  const left = (i: number) => view.getInt16(44 + 4 * i, true);
  const right = (i: number) => view.getInt16(46 + 4 * i, true);
  const interval = Math.round(rate * 1.5); // 1 s of sound and 0.5 s of gap, in both checks
  const measure = Array.from({ length: 3 }, (_, k) => {
    let sum = 0;
    for (let i = k * interval; i < Math.min(frames, k * interval + rate); i++) sum += kind === 'antiphase' ? left(i) ** 2 : (left(i) - right(i)) ** 2;
    return sum;
  });
  return kind === 'antiphase' ? measure.indexOf(Math.min(...measure)) : measure.indexOf(Math.max(...measure));
}

/**
 * Takes a headphone check the way the listener page does: begins attempts, fetches every round's
 * sound, answers (rightly when `pass`, else always one interval off) until the server records an
 * outcome. Returns the last reply (its outcome and session state).
 */
export async function takeScreening(url: string, token: string, kind: 'antiphase' | 'huggins', pass: boolean): Promise<{ status: number; body: any }> {
  const device = { userAgent: 'test', audioOutput: { sampleRate: 48000, channelCount: 2 } };
  for (;;) {
    const attempt = await call(`${url}/api/session/screening/attempts`, { token, body: { kind, ...device } });
    if (attempt.status !== 200) return attempt;
    const answers: number[] = [];
    for (const round of attempt.body.rounds as { audioUrl: string }[]) {
      const sound = await fetch(`${url}${round.audioUrl}`, { headers: { authorization: `Bearer ${token}` } });
      const target = targetOfRound(kind, new Uint8Array(await sound.arrayBuffer()));
      answers.push(pass ? target : (target + 1) % 3);
    }
    const reply = await call(`${url}/api/session/screening`, { token, body: { kind, attempt: attempt.body.attempt, answers, ...device } });
    if (reply.status !== 200 || reply.body.outcome !== 'retry') return reply;
  }
}

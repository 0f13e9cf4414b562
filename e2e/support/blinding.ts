import { expect, type Page } from '@playwright/test';
import type { E2eServer } from './server';

export interface Received {
  url: string;
  type: string;
  headers: string;
  body: string;
}

/** Records every response the page receives: URL, headers and body (audio as latin1 bytes). */
export function captureResponses(page: Page): { received: Received[]; settled(): Promise<void> } {
  const received: Received[] = [];
  const pending: Promise<void>[] = [];
  page.on('response', (response) => {
    pending.push(
      (async () => {
        const type = response.headers()['content-type'] ?? '';
        let body = '';
        try {
          body = (await response.body()).toString(type.startsWith('audio/') ? 'latin1' : 'utf8');
        } catch {
          // A media request the element cancelled has no body; its URL and headers still count.
        }
        received.push({ url: response.url(), type, headers: JSON.stringify(await response.allHeaders()), body });
      })(),
    );
  });
  return { received, settled: async () => void (await Promise.all(pending)) };
}

/** Every key a listener-facing JSON reply may contain (contract/listener.ts), peaks included. */
const ALLOWED_KEYS = new Set([
  'study', 'title', 'status', 'consentMarkdown', 'instructionsMarkdown', 'questionMarkdown', 'listening', 'mode', 'seconds',
  'screening', 'kind', 'required', 'linkParameters', 'language', 'estimate', 'trials', 'breakEvery', 'comments',
  'token', 'state', 'progress', 'done', 'total', 'trial', 'upcoming', 'completion', 'left', 'stopped', 'code', 'redirectUrl', 'position', 'clip',
  'id', 'audioUrl', 'peaksUrl', 'duration', 'captions', 'voteId', 'serverTs', 'feedback', 'correct',
  // A rating study: the intro's trial settings (scale, caption) and a rating trial's fields; a practice rating's feedback score.
  'scale', 'points', 'labels', 'anchors', 'low', 'high', 'caption', 'practice', 'score',
  'resolution', 'data',
  // An A/B study: the intro's `tie` setting and a trial's two opaque stimuli (trials/ab/contract.ts).
  'tie', 'stimuli',
  // The headphone check: the session's standing, an attempt (where each round sounds) and the server's score.
  'usedUp', 'failed', 'attempt', 'attempts', 'rounds', 'outcome',
  'error', 'message', 'field',
  // The study's questionnaire (contract/questionnaire.ts): the researcher's questions and options, and which part is due.
  'questions', 'trialComments', 'questionsDue', 'before', 'after', 'when', 'text', 'options', 'min', 'max', 'integer', 'maxLength',
]);

function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  return out;
}

/**
 * Fails if anything received — HTML, JS, CSS, JSON, peaks, audio bytes, URLs, headers — holds a
 * system id, item or utterance id, clip file name or path, corpus label or judge score; if a JSON
 * reply has a key outside the contract; or if media is addressed by anything but a clip id.
 */
export function expectBlinded(received: Received[], server: Pick<E2eServer, 'secrets' | 'clipIds'>): void {
  const kinds = received.map((r) => r.type);
  for (const needed of ['text/html', 'application/json', 'javascript', 'text/css', 'audio/'])
    expect(kinds.some((k) => k.includes(needed)), `received some ${needed}`).toBe(true);
  expect(received.some((r) => /\/media\/clips\/[^/]+\/peaks$/.test(r.url))).toBe(true);

  const secrets = server.secrets.filter((s) => s.length >= 3);
  expect(secrets.length).toBeGreaterThan(10);
  const numeric = secrets.filter((s) => /^-?\d+(\.\d+)?$/.test(s));
  const words = secrets.filter((s) => !numeric.includes(s));
  const scores = numeric.map((s) => ({ s, pattern: new RegExp(`(?<![\\d.])${s.replace(/[.-]/g, '\\$&')}(?!\\d)`) }));
  // Leaks are gathered and asserted once: an expect per secret and response costs minutes on a study with many of both.
  const leaks: string[] = [];
  for (const r of received) {
    const everything = `${r.url}\n${r.headers}\n${r.body}`;
    for (const s of words) if (everything.includes(s)) leaks.push(`"${s}" in ${r.url}`);
    // Scores are checked in data replies only: a minified library may hold any short number.
    if (r.type.startsWith('application/json') || r.type.startsWith('text/html'))
      for (const { s, pattern } of scores) if (pattern.test(`${r.headers}\n${r.body}`)) leaks.push(`${s} in ${r.url}`);
  }
  expect(leaks, 'secrets in what the listener received').toEqual([]);

  const api = received.filter((r) => r.type.startsWith('application/json'));
  for (const r of api) expect([...keysOf(JSON.parse(r.body))].filter((k) => !ALLOWED_KEYS.has(k)), r.url).toEqual([]);
  // Attention checks travel as plain pair (or rating, or A/B) trials; no other kind may show up.
  const trialKinds = new Set(api.flatMap((r) => [...r.body.matchAll(/"kind":"(\w+)"/g)].map((m) => m[1])));
  expect([...trialKinds].filter((k) => !['pair', 'practice', 'rating', 'ab', 'none', 'antiphase', 'huggins', 'both', 'single', 'multiple', 'number', 'text', 'likert'].includes(k))).toEqual([]);
  const served = new Set(server.clipIds);
  const media = received.filter((x) => new URL(x.url).pathname.startsWith('/media/'));
  const unknown = media.filter((r) => !served.has(decodeURIComponent(/^\/media\/clips\/([^/]+)\/(audio|peaks)$/.exec(new URL(r.url).pathname)?.[1] ?? '')));
  expect(unknown.map((r) => r.url), 'media addressed by anything but a served clip id').toEqual([]);
}

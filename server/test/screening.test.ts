/**
 * Headphone checks issued and scored by the server (issue 20 item 9), and screening enforced on
 * every vote of a participant whose check failed, in any browser and any of their sessions
 * (issue 21 item 2). A real server on loopback; the answers are found the way a listener (or a
 * script) would find them, from the sounds the server sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSessionToken } from '../store/sessions';
import { startTestServer, type TestServer } from '../testing/server';
import { call, takeScreening, targetOfRound, voteFor } from '../testing/client';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    studies: [
      { study: 'required', screeningRequired: true, linkParameters: ['PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID'] },
      { study: 'hidden-tone', screening: 'huggins', screeningRequired: true },
      { study: 'both-required', screening: 'both', screeningRequired: true },
    ],
  });
});
afterAll(() => server.close());

const device = { userAgent: 'test', audioOutput: {} };
const start = async (study: string, external: Record<string, string> = {}) => {
  const reply = await call(`${server.url}/api/sessions`, { body: { study, external } });
  expect([200, 201], reply.text).toContain(reply.status);
  return reply.body as { token: string; state: any };
};
const stored = (token: string) => {
  const row = server.app.db
    .prepare('SELECT screening FROM listeners WHERE id = COALESCE((SELECT listener_id FROM session_tokens WHERE token_hash = ?), (SELECT id FROM listeners WHERE token_hash = ?))')
    .get(hashSessionToken(token), hashSessionToken(token)) as { screening: string | null };
  return row.screening === null ? null : JSON.parse(row.screening);
};
const issuedTargets = (token: string, kind: string) =>
  (server.app.db
    .prepare('SELECT rounds FROM screening_attempts WHERE listener_id = (SELECT id FROM listeners WHERE token_hash = ?) AND kind = ? ORDER BY attempt')
    .pluck()
    .all(hashSessionToken(token), kind) as string[]).map((r) => (JSON.parse(r) as { target: number }[]).map((x) => x.target));
const sound = async (token: string, url: string) => {
  const reply = await fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: reply.status, type: reply.headers.get('content-type'), bytes: new Uint8Array(await reply.arrayBuffer()) };
};

describe('the server issues each check and scores it', () => {
  it('refuses a bare "passed: true": the browser cannot declare its own result', async () => {
    const { token } = await start('required');
    const bare = await call(`${server.url}/api/session/screening`, {
      token,
      body: { kind: 'antiphase', passed: true, correct: 6, trials: 6, attempts: 1, ...device },
    });
    expect(bare.status).toBe(400);
    expect(stored(token)).toBeNull();
    // Nor answers to an attempt the server never issued.
    const unissued = await call(`${server.url}/api/session/screening`, { token, body: { kind: 'antiphase', attempt: 1, answers: [0, 0, 0, 0, 0, 0], ...device } });
    expect(unissued.body).toMatchObject({ error: 'screening_attempt_closed' });
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) })).body.error).toBe('screening_required');
  });

  it('sends where each round sounds, never which interval is the target; scores the answers against the rounds it drew', async () => {
    const a = await start('required');
    const b = await start('required');
    const first = await call(`${server.url}/api/session/screening/attempts`, { token: a.token, body: { kind: 'antiphase', ...device } });
    const second = await call(`${server.url}/api/session/screening/attempts`, { token: b.token, body: { kind: 'antiphase', ...device } });
    expect(first.status).toBe(200);
    // Two listeners get the same reply word for word, whatever their rounds are: it carries no sequence.
    expect(first.text).toBe(second.text);
    expect(first.body).toEqual({
      kind: 'antiphase', attempt: 1, attempts: 1,
      rounds: [1, 2, 3, 4, 5, 6].map((r) => ({ audioUrl: `/api/session/screening/antiphase/1/${r}` })),
    });
    const [targets] = issuedTargets(a.token, 'antiphase');
    expect(targets).toHaveLength(6);

    // Each round is a stereo WAV that only this session may fetch; its target is in the sound alone.
    const heard: number[] = [];
    for (const { audioUrl } of first.body.rounds) {
      const wav = await sound(a.token, audioUrl);
      expect(wav).toMatchObject({ status: 200, type: 'audio/wav' });
      heard.push(targetOfRound('antiphase', wav.bytes));
      expect((await sound(b.token + 'x', audioUrl)).status).toBe(401);
    }
    expect(heard).toEqual(targets);

    // Four right of six: below the antiphase pass mark (5), so failed, as the server counted.
    const answers = targets.map((t, i) => (i < 4 ? t : (t + 1) % 3));
    const scored = await call(`${server.url}/api/session/screening`, { token: a.token, body: { kind: 'antiphase', attempt: 1, answers, ...device } });
    expect(scored.body).toMatchObject({ outcome: 'failed', state: { screening: { done: ['antiphase'], failed: true } } });
    expect(stored(a.token)).toMatchObject({ kind: 'antiphase', passed: false, correct: 4, trials: 6, attempts: 1 });
    // An answered attempt is closed: not answered again, its sounds not served again.
    expect((await call(`${server.url}/api/session/screening`, { token: a.token, body: { kind: 'antiphase', attempt: 1, answers: targets, ...device } })).body.error).toBe('screening_recorded');
    expect((await sound(a.token, first.body.rounds[0].audioUrl)).status).toBe(404);

    // Five right of six passes.
    const [other] = issuedTargets(b.token, 'antiphase');
    const passed = await call(`${server.url}/api/session/screening`, { token: b.token, body: { kind: 'antiphase', attempt: 1, answers: other.map((t, i) => (i === 0 ? (t + 2) % 3 : t)), ...device } });
    expect(passed.body.outcome).toBe('passed');
    expect(stored(b.token)).toMatchObject({ kind: 'antiphase', passed: true, correct: 5 });
    expect((await call(`${server.url}/api/session/votes`, { token: b.token, body: voteFor(0) })).status).toBe(200);
  });

  it('gives the Huggins check a second attempt with new rounds, and counts an attempt left by a reload', async () => {
    const { token } = await start('hidden-tone');
    const wrong = await call(`${server.url}/api/session/screening/attempts`, { token, body: { kind: 'huggins', ...device } });
    const [firstTargets] = issuedTargets(token, 'huggins');
    const retry = await call(`${server.url}/api/session/screening`, { token, body: { kind: 'huggins', attempt: 1, answers: firstTargets.map((t) => (t + 1) % 3), ...device } });
    expect(retry.body.outcome).toBe('retry');
    expect(stored(token)).toBeNull();
    const passed = await takeScreening(server.url, token, 'huggins', true);
    expect(passed.body.outcome).toBe('passed');
    expect(stored(token)).toMatchObject({ kind: 'huggins', passed: true, correct: 6, attempts: 2 });
    expect(wrong.body.attempt).toBe(1);

    // Two attempts begun and left unanswered (reloads): the check is used up, and beginning again records it as not passed.
    const reloader = (await start('hidden-tone')).token;
    for (const attempt of [1, 2]) {
      expect((await call(`${server.url}/api/session/screening/attempts`, { token: reloader, body: { kind: 'huggins', ...device } })).body.attempt).toBe(attempt);
    }
    expect((await call(`${server.url}/api/session`, { token: reloader })).body.screening).toEqual({ done: [], usedUp: ['huggins'], failed: false });
    const used = await call(`${server.url}/api/session/screening/attempts`, { token: reloader, body: { kind: 'huggins', ...device } });
    expect(used.body).toMatchObject({ error: 'screening_recorded' });
    expect(stored(reloader)).toMatchObject({ kind: 'huggins', passed: false, correct: 0, attempts: 2 });
    expect((await call(`${server.url}/api/session/votes`, { token: reloader, body: voteFor(0) })).body.error).toBe('screened_out');
  });
});

describe('a study that requires the check takes no votes from a participant whose check failed', () => {
  const link = { PROLIFIC_PID: 'pid-screened-out', STUDY_ID: 'S1', SESSION_ID: 'sess-1' };

  it('in the same browser, in a fresh browser with the same link, and in another session of the same participant', async () => {
    const first = await start('required', link);
    expect(first.state.screening).toEqual({ done: [], usedUp: [], failed: false });
    expect((await takeScreening(server.url, first.token, 'antiphase', false)).body.outcome).toBe('failed');
    expect((await call(`${server.url}/api/session/votes`, { token: first.token, body: voteFor(0) })).body).toMatchObject({ error: 'screened_out' });

    // A fresh browser: the same link resumes the session, which says the check failed; a second check is refused.
    const fresh = await start('required', link);
    expect(fresh.state.screening).toEqual({ done: ['antiphase'], usedUp: [], failed: true });
    expect((await takeScreening(server.url, fresh.token, 'antiphase', true)).body).toMatchObject({ error: 'screening_recorded' });
    expect((await call(`${server.url}/api/session/votes`, { token: fresh.token, body: voteFor(0) })).body).toMatchObject({ error: 'screened_out' });

    // Another session of the same participant (as a platform's retake makes one): it cannot pass a check and vote either.
    const retake = await start('required', { ...link, PROLIFIC_PID: 'pid-retake-placeholder', SESSION_ID: 'sess-2' });
    server.app.db.prepare("UPDATE listeners SET participant = ?, external = json_set(external, '$.PROLIFIC_PID', ?) WHERE participant = 'pid-retake-placeholder'").run(link.PROLIFIC_PID, link.PROLIFIC_PID);
    expect((await call(`${server.url}/api/session`, { token: retake.token })).body.screening).toEqual({ done: [], usedUp: [], failed: true });
    expect((await takeScreening(server.url, retake.token, 'antiphase', true)).body).toMatchObject({ error: 'screening_recorded' });
    expect((await call(`${server.url}/api/session/votes`, { token: retake.token, body: voteFor(0) })).body).toMatchObject({ error: 'screened_out' });
    expect(server.app.db.prepare("SELECT count(*) FROM votes v JOIN listeners l ON l.id = v.listener_id WHERE l.participant = 'pid-screened-out'").pluck().get()).toBe(0);
  });

  it('a study asking for both checks takes votes only once both are recorded and passed', async () => {
    const { token } = await start('both-required');
    expect((await takeScreening(server.url, token, 'antiphase', true)).body.outcome).toBe('passed');
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) })).body.error).toBe('screening_required');
    expect((await takeScreening(server.url, token, 'huggins', true)).body.outcome).toBe('passed');
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) })).status).toBe(200);
  });
});

/**
 * End-of-study comments (study.yaml `comments: true`): only a listener who answered every trial may
 * send them, only in a study that asks, and they reach listeners.csv — neutralised like every
 * exported text — beside that listener's link parameters.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, voteFor } from '../testing/client';
import { startTestServer, type TestServer } from '../testing/server';

let server: TestServer;
let researcher: string;
beforeAll(async () => {
  server = await startTestServer({ studies: [{ study: 'asks', comments: true }, { study: 'silent' }] });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
});
afterAll(() => server.close());

const start = async (study: string, pid: string) => {
  const res = await call(`${server.url}/api/sessions`, { body: { study, external: { PROLIFIC_PID: pid } } });
  expect(res.status).toBe(201);
  return res.body as { token: string; state: { progress: { total: number } } };
};
const comment = (token: string, text: unknown) => call(`${server.url}/api/session/comments`, { token, body: { text } });
const finish = async (token: string, total: number) => {
  for (let position = 0; position < total; position++) {
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(position) })).status).toBe(200);
  }
};

it('the intro says whether the study asks for comments', async () => {
  expect((await call(`${server.url}/api/studies/asks/intro`)).body).toMatchObject({ comments: true });
  expect((await call(`${server.url}/api/studies/silent/intro`)).body).toMatchObject({ comments: false });
});

it('takes comments once every trial is answered, replaces them when sent again, and exports them', async () => {
  const { token, state } = await start('asks', 'p-talks');
  const early = await comment(token, 'too soon');
  expect(early.status).toBe(409);
  expect(early.body).toMatchObject({ error: 'not_finished' });
  await finish(token, state.progress.total);
  expect((await comment(token, 'first thoughts')).status).toBe(200);
  const saved = await comment(token, '=clips 3 and 5 were quiet, "odd"');
  expect(saved.status).toBe(200);
  expect(saved.body).toEqual({ saved: true });

  const quiet = await start('asks', 'p-quiet');
  const files = (await call(`${server.url}/api/studio/studies/asks/export`, { token: researcher })).body as Record<string, string>;
  const [header, ...rows] = files['listeners.csv'].trim().split('\r\n');
  expect(header).toBe('listener_id,started_at,completed_at,screening,PROLIFIC_PID,STUDY_ID,completion_code,comments');
  expect(rows.find((r) => r.includes('p-talks'))).toMatch(/,p-talks,,C0MPL3TE,"'=clips 3 and 5 were quiet, ""odd"""$/);
  expect(rows.find((r) => r.includes('p-quiet'))).toMatch(/,p-quiet,,,$/);
  expect(quiet.token).not.toBe(token);
});

it('refuses comments a study does not ask for, and empty or over-long ones', async () => {
  const { token, state } = await start('silent', 'p-silent');
  await finish(token, state.progress.total);
  const refused = await comment(token, 'hello');
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ error: 'comments_not_asked' });
  const files = (await call(`${server.url}/api/studio/studies/silent/export`, { token: researcher })).body as Record<string, string>;
  expect(files['listeners.csv'].split('\r\n')[0]).not.toContain('comments');

  const asks = await start('asks', 'p-long');
  await finish(asks.token, asks.state.progress.total);
  for (const text of ['', '   ', 'x'.repeat(2001), 42]) {
    const res = await comment(asks.token, text);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', field: 'text' });
  }
  expect((await comment('not-a-token', 'hi')).status).toBe(401);
});

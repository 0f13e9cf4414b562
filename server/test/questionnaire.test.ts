/**
 * Questionnaires (study.yaml `questions:`) and per-trial comments (`trialComments: true`): the intro
 * serves the questions, the server checks every answer against them and stores it, the session says
 * which part is still due, and the export writes each question as a listeners.csv column named by its
 * id and each comment as votes.csv's last column `comment` — only in a study that has the box.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudyDefinition } from '../../contract/study-definition';
import { Questions } from '../../contract/questionnaire';
import { call, voteFor } from '../testing/client';
import { startTestServer, type TestServer } from '../testing/server';

const QUESTIONS = [
  { id: 'age', kind: 'number', text: 'How old are you?', min: 18, max: 99, integer: true, required: true },
  { id: 'headphones', kind: 'single', text: 'What are you listening with?', options: ['Headphones', 'Earbuds', 'Speakers'], required: true },
  { id: 'languages', kind: 'multiple', text: 'Languages you speak', options: ['English', 'French', 'Hindi'] },
  { id: 'native', kind: 'text', text: 'Your first language', maxLength: 40 },
  { id: 'effort', kind: 'likert', when: 'after', text: 'The task was easy', points: 5, anchors: { low: 'Strongly disagree', high: 'Strongly agree' }, required: true },
] as const;

let server: TestServer;
let researcher: string;
beforeAll(async () => {
  server = await startTestServer({
    studies: [
      { study: 'asks', questions: QUESTIONS.map((q) => ({ ...q })) as never, trialComments: true },
      { study: 'plain' },
    ],
  });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
});
afterAll(() => server.close());

const start = async (study: string, pid: string) => {
  const res = await call(`${server.url}/api/sessions`, { body: { study, external: { PROLIFIC_PID: pid } } });
  expect(res.status, res.text).toBe(201);
  return res.body as { token: string; state: { progress: { total: number }; questionsDue: { before: boolean; after: boolean } } };
};
const answer = (token: string, when: string, answers: unknown) => call(`${server.url}/api/session/answers`, { token, body: { when, answers } });
const exported = async (study: string) => (await call(`${server.url}/api/studio/studies/${study}/export`, { token: researcher })).body as Record<string, string>;
const csv = (text: string) => text.trim().split('\r\n');

describe('the questionnaire in study.yaml', () => {
  it('takes the five kinds, with a clear error for a repeated id, a column listeners.csv has, or a wrong kind', () => {
    expect(Questions.parse(QUESTIONS)).toHaveLength(5);
    expect(Questions.parse([{ id: 'q', kind: 'text', text: 'Hi' }])[0]).toMatchObject({ when: 'before', required: false, maxLength: 200 });
    const twice = Questions.safeParse([QUESTIONS[0], QUESTIONS[0]]);
    expect(twice.error?.issues[0]).toMatchObject({ path: [1, 'id'], message: expect.stringContaining('used twice') });
    expect(Questions.safeParse([{ id: 'q', kind: 'single', text: 'Hi', options: ['only'] }]).error?.issues[0].message).toMatch(/at least two options/);
    expect(Questions.safeParse([{ id: 'q', kind: 'slider', text: 'Hi' }]).success).toBe(false);
    expect(Questions.safeParse([{ id: '2x', kind: 'text', text: 'Hi' }]).error?.issues[0].message).toMatch(/column name/);
    const base = { title: 'T', consent: 'C', instructions: 'I', question: 'Q', targetListeners: 1, completion: { code: 'X' }, items: { mode: 'explicit', list: [{ utterance: 'u', systemA: 'a', systemB: 'b' }] }, design: { kind: 'crossed' } };
    const clash = StudyDefinition.safeParse({ ...base, questions: [{ id: 'PROLIFIC_PID', kind: 'text', text: 'id?' }] });
    expect(clash.error?.issues.find((i) => i.path.join('.') === 'questions.0.id')?.message).toMatch(/is a column of listeners.csv already/);
    expect(StudyDefinition.parse(base)).toMatchObject({ questions: [], trialComments: false });
  });
});

describe('answers and comments over the API', () => {
  it('serves the questions in the intro and says which part is due', async () => {
    const intro = (await call(`${server.url}/api/studies/asks/intro`)).body;
    expect(intro.questions.map((q: { id: string }) => q.id)).toEqual(['age', 'headphones', 'languages', 'native', 'effort']);
    expect(intro.trialComments).toBe(true);
    expect((await call(`${server.url}/api/studies/plain/intro`)).body).toMatchObject({ questions: [], trialComments: false });
    const { state } = await start('asks', 'p-due');
    expect(state.questionsDue).toEqual({ before: true, after: true });
    expect((await start('plain', 'p-plain')).state.questionsDue).toEqual({ before: false, after: false });
  });

  it('checks each answer against its question, naming it', async () => {
    const { token } = await start('asks', 'p-wrong');
    const cases: [unknown, string, RegExp][] = [
      [{ headphones: 'Headphones' }, 'age', /must be answered/],
      [{ age: 17, headphones: 'Headphones' }, 'age', /at least 18/],
      [{ age: 30.5, headphones: 'Headphones' }, 'age', /whole number/],
      [{ age: 30, headphones: 'Radio' }, 'headphones', /one of: Headphones, Earbuds, Speakers/],
      [{ age: 30, headphones: 'Headphones', languages: ['English', 'Klingon'] }, 'languages', /one of/],
      [{ age: 30, headphones: 'Headphones', native: 'x'.repeat(41) }, 'native', /at most 40/],
      [{ age: 30, headphones: 'Headphones', shoe: 9 }, 'shoe', /asks no question "shoe"/],
      [{ age: 30, headphones: 'Headphones', effort: 3 }, 'effort', /asks no question "effort" before/],
    ];
    for (const [answers, field, message] of cases) {
      const res = await answer(token, 'before', answers);
      expect(res.status, JSON.stringify(answers)).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_answer', field });
      expect(res.body.message).toMatch(message);
    }
    expect((await answer(token, 'after', { effort: 4 })).body).toMatchObject({ error: 'not_finished' });
    expect((await call(`${server.url}/api/session/answers`, { token, body: { when: 'during', answers: {} } })).status).toBe(400);
    const { token: plain } = await start('plain', 'p-plain-2');
    expect((await answer(plain, 'before', {})).body).toMatchObject({ error: 'questions_not_asked' });
  });

  it('stores answers and trial comments durably and exports them as the study names them', async () => {
    const { token, state } = await start('asks', 'p-answers');
    expect((await answer(token, 'before', { age: 41, headphones: 'Earbuds', languages: ['French', 'English'], native: '=French' })).status).toBe(200);
    // Sent again, a part replaces what it had: the text answer is gone.
    expect((await answer(token, 'before', { age: 42, headphones: 'Earbuds', languages: ['French', 'English'] })).body).toEqual({ saved: true });
    expect((await call(`${server.url}/api/session`, { token })).body.questionsDue).toEqual({ before: false, after: true });
    for (let position = 0; position < state.progress.total; position++) {
      // The last trial: the first may be a practice trial, which the export leaves out.
      const comment = position === state.progress.total - 1 ? 'clip 1 crackled, "badly"' : undefined;
      const res = await call(`${server.url}/api/session/votes`, { token, body: voteFor(position, 1, comment ? { comment } : {}) });
      expect(res.status, res.text).toBe(200);
    }
    expect((await answer(token, 'after', { effort: 4 })).status).toBe(200);
    expect((await call(`${server.url}/api/session`, { token })).body.questionsDue).toEqual({ before: false, after: false });
    // Stored, not held in memory: the database file has them.
    expect(server.app.db.prepare("SELECT count(*) FROM questionnaire_answers a JOIN listeners l ON l.id = a.listener_id WHERE l.external LIKE '%p-answers%'").pluck().get()).toBe(4);

    await start('asks', 'p-none');
    const files = await exported('asks');
    const [header, ...rows] = csv(files['listeners.csv']);
    expect(header).toBe('listener_id,started_at,completed_at,screening,PROLIFIC_PID,STUDY_ID,completion_code,age,headphones,languages,native,effort');
    expect(rows.find((r) => r.includes('p-answers'))).toMatch(/,p-answers,,C0MPL3TE,42,Earbuds,French; English,,4$/);
    expect(rows.find((r) => r.includes('p-none'))).toMatch(/,p-none,,,,,,,$/);
    const [votesHeader, ...votes] = csv(files['votes.csv']);
    // The existing columns in their order, then `comment`.
    expect(votesHeader).toBe('item_id,listener_id,first,chosen,position,play_count,seconds_listened,heard_to_end,hidden_ms,response_ms,client_ts,server_ts,vote_id,assigned_at,comment');
    expect(votes.filter((v) => v.endsWith(',"clip 1 crackled, ""badly"""'))).toHaveLength(1);
  });

  it('keeps a study without them exactly as before, and refuses a comment it has no box for', async () => {
    const { token } = await start('plain', 'p-no-box');
    const refused = await call(`${server.url}/api/session/votes`, { token, body: voteFor(0, 1, { comment: 'hi' }) });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'comments_not_asked', field: 'comment' });
    expect((await call(`${server.url}/api/session/votes`, { token, body: voteFor(0) })).status).toBe(200);
    const files = await exported('plain');
    expect(csv(files['votes.csv'])[0]).toBe('item_id,listener_id,first,chosen,position,play_count,seconds_listened,heard_to_end,hidden_ms,response_ms,client_ts,server_ts,vote_id,assigned_at');
    expect(csv(files['listeners.csv'])[0]).toBe('listener_id,started_at,completed_at,screening,PROLIFIC_PID,STUDY_ID,completion_code');
    const long = await call(`${server.url}/api/session/votes`, { token, body: voteFor(1, 1, { comment: 'x'.repeat(1001) }) });
    expect(long.status).toBe(400);
  });
});

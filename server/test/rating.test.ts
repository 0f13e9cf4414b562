/**
 * Rating trials (MOS / ACR) through the real listener and studio APIs on a real server and
 * SQLite file: trials served, scores stored and checked against the study's scale, retries
 * replayed, practice answered with the intended score, attention counted for the participants
 * table, and every trial previewed with its system and required score.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_SYSTEMS } from '../testing/seed';
import { startTestServer, type TestServer } from '../testing/server';
import { call, ratingFor, takeScreening, voteFor } from '../testing/client';

let server: TestServer;
let researcher: string;

beforeAll(async () => {
  server = await startTestServer({
    studies: [
      { study: 'mos', pairs: 6, attention: 2, practice: 1, rating: { caption: true } },
      { study: 'mos7', pairs: 3, attention: 1, practice: 0, rating: { scale: { points: 7 }, caption: false } },
      { study: 'pairs', pairs: 2, attention: 0, practice: 0 },
      { study: 'mos3', pairs: 15, attention: 0, practice: 0, rating: { caption: false, minListenerCorrelation: 0.25 } },
    ],
  });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
});
afterAll(() => server.close());

async function start(study: string, pid: string) {
  const started = await call(`${server.url}/api/sessions`, { body: { study, external: { PROLIFIC_PID: pid } } });
  expect(started.status, started.text).toBe(201);
  return { token: started.body.token as string, state: started.body.state, listener: server.app.store.sessions.byToken(started.body.token)!.id };
}
const vote = (token: string, body: object) => call(`${server.url}/api/session/votes`, { token, body });
const itemAt = (listener: string, position: number) =>
  server.app.db
    .prepare('SELECT i.kind, i.system_a, i.expected FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? AND a.position = ?')
    .get(listener, position) as { kind: string; system_a: string; expected: string | null };

describe('rating trials', () => {
  it('serve one clip with the caption to rate (or none), practice flagged, and the scale in the intro', async () => {
    const intro = await call(`${server.url}/api/studies/mos/intro`);
    expect(intro.body.trial).toEqual({ kind: 'rating', scale: { points: 5 }, caption: true });
    expect(intro.body.estimate.trials).toBe(9);

    const { state } = await start('mos', 'P-serve');
    expect(state.progress).toEqual({ done: 0, total: 9 });
    expect(state.trial).toEqual({
      position: 0, kind: 'rating', practice: true, caption: expect.stringMatching(/^Caption 0A/),
      clip: { id: expect.any(String), audioUrl: expect.stringMatching(/^\/media\/clips\//), peaksUrl: expect.stringMatching(/\/peaks$/), duration: expect.any(Number) },
    });
    for (const t of state.upcoming) expect(t).toMatchObject({ kind: 'rating', practice: false, caption: expect.any(String) });

    const audioOnly = await start('mos7', 'P-serve');
    expect((await call(`${server.url}/api/studies/mos7/intro`)).body.trial).toEqual({ kind: 'rating', scale: { points: 7 }, caption: false });
    for (const t of [audioOnly.state.trial, ...audioOnly.state.upcoming]) expect(t).toMatchObject({ kind: 'rating', practice: false, caption: null });
  });

  it('store the score; another kind of answer, or a score off the study’s scale, is refused naming the field', async () => {
    const { token, listener } = await start('mos', 'P-votes');
    const refused = async (body: object, field: string, message: RegExp) => {
      const r = await vote(token, body);
      expect(r.status, r.text).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_request', field });
      expect(r.body.message).toMatch(message);
    };
    await refused(voteFor(0, 1), 'score', /rating: send score \(a whole number from 1 to 5\), not choice/);
    await refused(ratingFor(0, 6), 'score', /6 is not on this study's scale: send a whole number from 1 to 5/);
    await refused(ratingFor(0, 0), 'score', /score/);
    await refused(ratingFor(0, 2.5), 'score', /score/);
    await refused({ ...ratingFor(0, 3), choice: 1 }, 'score', /one answer: choice .* or score .*, not choice and score/);
    expect(server.app.db.prepare('SELECT count(*) FROM votes WHERE listener_id = ?').pluck().get(listener)).toBe(0);

    const ok = await vote(token, ratingFor(0, 5));
    expect(ok.status, ok.text).toBe(200);
    const stored = server.app.db.prepare('SELECT first, chosen, score FROM votes WHERE listener_id = ?').all(listener);
    expect(stored).toEqual([{ first: null, chosen: null, score: 5 }]);
    expect(server.app.db.prepare('SELECT first FROM assignments WHERE listener_id = ?').pluck().all(listener)).toEqual(Array(9).fill(null));

    // A 7-point study takes 7; a pair study takes no score.
    const seven = await start('mos7', 'P-votes');
    expect((await vote(seven.token, ratingFor(0, 7))).status).toBe(200);
    const pair = await start('pairs', 'P-votes');
    const onPair = await vote(pair.token, ratingFor(0, 2));
    expect(onPair.status).toBe(400);
    expect(onPair.body).toMatchObject({ error: 'invalid_request', field: 'choice', message: 'choice: this trial is a caption pair: send choice (1 or 2), not score' });
    expect((await vote(pair.token, voteFor(0, 2))).status).toBe(200);
  });

  it('practice is answered with the intended score; ordinary and attention ratings say nothing', async () => {
    const right = await start('mos', 'P-practice-right');
    expect((await vote(right.token, ratingFor(0, 5))).body.feedback).toEqual({ correct: true, score: 5 });
    const wrong = await start('mos', 'P-practice-wrong');
    const first = ratingFor(0, 2);
    const ack = await vote(wrong.token, first);
    expect(ack.body.feedback).toEqual({ correct: false, score: 5 });
    // A retry gets the same acknowledgement, feedback included.
    expect((await vote(wrong.token, first)).body).toEqual(ack.body);
    for (let position = 1; position < 9; position++) {
      const r = await vote(wrong.token, ratingFor(position, 1));
      expect(r.status).toBe(200);
      expect(r.body.feedback).toBeNull();
    }
    const done = (await call(`${server.url}/api/session`, { token: wrong.token })).body;
    expect(done.completion).toEqual({ code: 'C0MPL3TE', redirectUrl: expect.any(String) });
  });

  it('a retried vote id is replayed; the same id with another score is refused', async () => {
    const { token, listener } = await start('mos', 'P-replay');
    const first = ratingFor(0, 4);
    const ack = await vote(token, first);
    expect(ack.status).toBe(200);
    const again = await vote(token, first);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(ack.body);
    const reused = await vote(token, { ...first, score: 3 });
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({ error: 'vote_id_reused', field: 'voteId' });
    expect(server.app.db.prepare('SELECT score FROM votes WHERE listener_id = ?').pluck().all(listener)).toEqual([4]);
    // The trial is answered: another vote id on it is a conflict, not a second rating.
    expect((await vote(token, ratingFor(0, 4))).body).toMatchObject({ error: 'already_answered', field: 'position' });
  });

  it('the participants table counts attention ratings right when the score is the required one', async () => {
    const careful = await start('mos', 'P-careful');
    const careless = await start('mos', 'P-careless');
    for (const l of [careful, careless]) {
      for (let position = 0; position < 9; position++) {
        const item = itemAt(l.listener, position);
        const score = item.kind === 'attention' ? (l === careful ? Number(item.expected) : 4) : item.kind === 'practice' ? 5 : 3;
        expect((await vote(l.token, ratingFor(position, score))).status).toBe(200);
      }
    }
    const table = await call(`${server.url}/api/studio/studies/mos/participants`, { token: researcher });
    expect(table.status, table.text).toBe(200);
    const row = (pid: string) => table.body.participants.find((p: { participant: string }) => p.participant === pid);
    expect(row('P-careful')).toMatchObject({ attention: { correct: 2, answered: 2 }, decision: 'APPROVE' });
    expect(row('P-careless')).toMatchObject({ attention: { correct: 0, answered: 2 }, decision: 'REJECT', excludedFor: ['attention'] });
    expect(row('P-careless').reason).toMatch(/attention checks 0\/2 right/);
  });

  it('one failed attention check of two excludes from the analysis but is not a rejection', async () => {
    const l = await start('mos', 'P-one-slip');
    let slipped = false;
    for (let position = 0; position < 9; position++) {
      const item = itemAt(l.listener, position);
      const score = item.kind === 'attention' ? (slipped ? Number(item.expected) : ((slipped = true), 4)) : item.kind === 'practice' ? 5 : 3;
      expect((await vote(l.token, ratingFor(position, score))).status).toBe(200);
    }
    const table = await call(`${server.url}/api/studio/studies/mos/participants`, { token: researcher });
    const row = table.body.participants.find((p: { participant: string }) => p.participant === 'P-one-slip');
    expect(row).toMatchObject({ attention: { correct: 1, answered: 2 }, excludedFor: ['attention'], inAnalysis: false, decision: 'APPROVE', rejectionCategory: null });
    expect(row.reason).toBe(
      'completed 9 of 9 trials; excluded from analysis: attention checks 1/2 right (needs ≥ 75% right) (fewer than 2 failed checks: not grounds for rejection)');
  });

  it('a three-listener MOS panel with a scale-reverser: the careful two are approved, the reverser approved but excluded, r measured against the threshold', async () => {
    // Item seq i has quality 1 + i % 5; careful listener k is one point up on every fourth item, the reverser answers 6 − quality.
    const seqAt = server.app.db.prepare('SELECT i.seq FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? AND a.position = ?').pluck();
    const panel = [{ pid: 'P-reverser', k: 0 }, { pid: 'P-careful-1', k: 1 }, { pid: 'P-careful-2', k: 2 }];
    for (const { pid, k } of panel) {
      const l = await start('mos3', pid);
      for (let position = 0; position < 15; position++) {
        const q = 1 + ((seqAt.get(l.listener, position) as number) % 5);
        const score = k === 0 ? 6 - q : (position + k) % 4 === 0 ? Math.min(5, q + 1) : q;
        expect((await vote(l.token, ratingFor(position, score))).status).toBe(200);
      }
    }
    const res = await fetch(`${server.url}/api/studio/studies/mos3/approvals.csv`, { headers: { authorization: `Bearer ${researcher}` } });
    expect(res.status).toBe(200);
    const lines = (await res.text()).trim().split('\r\n').map((line) => line.split(','));
    const by = new Map(lines.slice(1).map((f) => [f[0], f]));
    for (const pid of ['P-careful-1', 'P-careful-2']) {
      expect(by.get(pid)!.slice(1, 4), pid).toEqual(['APPROVE', 'completed 15 of 15 trials', '']);
    }
    // Rating out of step with the panel is not grounds for rejection unless the study says so (approvals.rejectFor).
    expect(by.get('P-reverser')![1]).toBe('APPROVE');
    expect(by.get('P-reverser')![2]).toMatch(/^completed 15 of 15 trials; excluded from analysis: r = -0\.\d\d < 0\.25 over 15 items \(not grounds for rejection in this study\)$/);
    const report = (await call(`${server.url}/api/reports/mos3`, { token: researcher })).body;
    expect(report.listeners.excluded.map((e: { reason: string }) => e.reason)).toEqual(['listener_correlation']);
  });

  it('the dashboard counts practice apart and a listener the headphone check sent away as screened out, not in progress', async () => {
    const sent = await start('mos', 'P-sent-away');
    expect((await takeScreening(server.url, sent.token, 'antiphase', false)).status).toBe(200);
    const analyst = (await server.app.store.accessTokens.create('analyst')).token;
    const d = (await call(`${server.url}/api/studio/studies/mos/dashboard`, { token: analyst })).body;
    const one = (sql: string) => server.app.db.prepare(sql).pluck().get('mos') as number;
    const practice = one("SELECT count(*) FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ? AND i.kind = 'practice'");
    expect(practice).toBeGreaterThan(0);
    expect(d.votes.practice).toBe(practice);
    expect(d.votes.total).toBe(one("SELECT count(*) FROM votes v JOIN items i ON i.id = v.item_id WHERE i.study_id = ? AND i.kind != 'practice'"));
    expect(d.listeners.screenedOut).toBe(1);
    expect(d.listeners.inProgress).toBe(d.listeners.started - d.listeners.completed - 1);
  });

  it('the studio previews every trial as listeners get it, with its rated system and required score', async () => {
    const preview = await call(`${server.url}/api/studio/studies/mos/preview`, { token: researcher });
    expect(preview.status, preview.text).toBe(200);
    const rows = preview.body.trials as { seq: number; kind: string; systems: string[]; expected: string | null; trial: Record<string, unknown> }[];
    expect(rows.map((r) => r.kind)).toEqual(['practice', ...Array(6).fill('rating'), 'attention', 'attention']);
    rows.forEach((r) => {
      expect(r.systems).toEqual([SEED_SYSTEMS[r.seq % 3]]);
      expect(r.trial).toMatchObject({ position: r.seq, kind: 'rating', practice: r.kind === 'practice', caption: expect.any(String) });
    });
    expect(rows.map((r) => r.expected)).toEqual(['5', ...Array(6).fill(null), '1', '1']);
    const detail = await call(`${server.url}/api/studio/studies/mos`, { token: researcher });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.itemsByKind).toEqual({ pair: 0, rating: 6, ab: 0, abx: 0, ccr: 0, tags: 0, mushra: 0, describe: 0, attention: 2, practice: 1 });
    const pairs = await call(`${server.url}/api/studio/studies/pairs/preview`, { token: researcher });
    expect(pairs.body.trials.map((r: { systems: string[] }) => r.systems.length)).toEqual([2, 2]);
  });
});

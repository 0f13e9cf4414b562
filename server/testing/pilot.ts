/**
 * Pilot listeners for the planner's tests: each answers a seeded pair study (server/testing/seed.ts)
 * to the end over the listener API — attention checks right, pairs by Bradley–Terry with the given
 * log-strengths of SEED_SYSTEMS — except every tenth, who is careless (coin flips throughout).
 */
import { seededRandom } from '../../analysis/random';
import { call, voteFor } from './client';
import type { TestServer } from './server';

export async function answerPilot(server: TestServer, study: string, listeners: number, theta: readonly number[]): Promise<void> {
  const item = server.app.db.prepare(
    'SELECT a.first, i.kind, i.expected, i.seq FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? AND a.position = ?',
  );
  for (let l = 0; l < listeners; l++) {
    const random = seededRandom(100 + l);
    const careless = l % 10 === 9;
    const start = await call(`${server.url}/api/sessions`, { body: { study, external: { PROLIFIC_PID: `P-${l}` } } });
    if (start.status !== 201) throw new Error(`POST /api/sessions: ${start.status} ${start.text}`);
    const token = start.body.token as string;
    const listener = server.app.store.sessions.byToken(token)!;
    for (;;) {
      const state = (await call(`${server.url}/api/session`, { token })).body;
      if (!state.trial) break;
      const { position } = state.trial;
      const { first, kind, expected, seq } = item.get(listener.id, position) as { first: 'a' | 'b'; kind: string; expected: 'a' | 'b' | null; seq: number };
      // The seed pairs system seq mod 3 (caption a) with system seq+1 mod 3 (caption b).
      const pA = 1 / (1 + Math.exp(-(theta[seq % 3] - theta[(seq + 1) % 3])));
      const wantA = careless ? random() < 0.5 : kind === 'attention' ? expected === 'a' : random() < pA;
      const vote = await call(`${server.url}/api/session/votes`, { token, body: voteFor(position, (first === 'a') === wantA ? 1 : 2, { responseMs: 2500 }) });
      if (vote.status !== 200) throw new Error(`POST /api/session/votes: ${vote.status} ${vote.text}`);
    }
  }
}

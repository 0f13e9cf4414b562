/**
 * The planner in the studio (issue 25, item 3: "also in the studio before opening"): a pilot study's
 * votes, cast by listeners through the real listener API on a real server and SQLite file, planned
 * by POST /api/studio/studies/:study/plan, must give the plan `npm run plan` gives on that pilot's
 * downloaded export; and the wrong target, pilot or role is refused with the reason.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../../analysis/cli.test-support';
import { call } from '../testing/client';
import { answerPilot } from '../testing/pilot';
import { SEED_SYSTEMS } from '../testing/seed';
import { startTestServer, type TestServer } from '../testing/server';

const PILOT = 'pilot-run';
const PLANNED = 'main-run';
const LISTENERS = 30;
/** The pilot's truth: log-strengths of the seeded systems, in SEED_SYSTEMS order. */
const THETA = [0.8, 0, -0.8];

let server: TestServer;
let researcher: string;
let analyst: string;
let dir: string;
const plan = (body: unknown, token = researcher, study = PLANNED) =>
  call(`${server.url}/api/studio/studies/${study}/plan`, { token, body, headers: { 'x-earmark-request': '1' } });

beforeAll(async () => {
  server = await startTestServer({
    studies: [
      { study: PILOT, pairs: 9, attention: 3, practice: 0, status: 'open' },
      { study: PLANNED, pairs: 9, attention: 3, practice: 0, status: 'draft' },
    ],
  });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
  analyst = (await server.app.store.accessTokens.create('analyst')).token;
  await answerPilot(server, PILOT, LISTENERS, THETA);
  dir = mkdtempSync(join(tmpdir(), 'earmark-plan-'));
}, 120_000);
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the planner in the studio', () => {
  it('plans from a pilot study on the server exactly as npm run plan does on its export', async () => {
    const reply = await plan({ pilot: PILOT, target: 'bt-ci=0.3' });
    expect(reply.status, reply.text).toBe(200);
    const p = reply.body;
    expect(p).toMatchObject({ study: PLANNED, pilot: PILOT, target: { statistic: 'bt-ci', width: 0.3 }, itemsPerListener: 9, checksPerListener: 3 });
    expect(p.model.systems).toBe(SEED_SYSTEMS.length);
    expect(p.interval).toMatch(/bradley_terry/);
    expect(p.predictedWidth).toBeLessThanOrEqual(0.3);
    expect(p.votes).toBe(p.listeners * 9);

    const zip = await fetch(`${server.url}/api/studio/studies/${PILOT}/export.zip`, { headers: { authorization: `Bearer ${researcher}` } });
    expect(zip.status).toBe(200);
    const file = join(dir, `${PILOT}-bundle.zip`);
    writeFileSync(file, Buffer.from(await zip.arrayBuffer()));
    const offline = await cli('plan-cli.ts', [file, '--target', 'bt-ci=0.3', '--json']);
    expect(offline.code, offline.stderr).toBe(0);
    const o = JSON.parse(offline.stdout);
    expect({ listeners: p.listeners, votes: p.votes, predictedWidth: p.predictedWidth, widthSpread: p.widthSpread, careless: p.model.careless, positionBias: p.model.positionBias })
      .toEqual({ listeners: o.listeners, votes: o.votes, predictedWidth: o.predictedWidth, widthSpread: o.widthSpread, careless: o.model.careless, positionBias: o.model.positionBias });

    // More items per listener: fewer listeners for the same target.
    const longer = await plan({ pilot: PILOT, target: 'bt-ci=0.3', itemsPerListener: 36 });
    expect(longer.status, longer.text).toBe(200);
    expect(longer.body.itemsPerListener).toBe(36);
    expect(longer.body.listeners).toBeLessThan(p.listeners);
  }, 60_000);

  it('keeps a plan while the pilot is unchanged', async () => {
    const first = await plan({ pilot: PILOT, target: 'bt-ci=0.4' });
    const computed = server.app.liveFigures.computations();
    const again = await plan({ pilot: PILOT, target: ' bt-ci = 0.4 ' });
    expect(again.body).toEqual(first.body);
    expect(server.app.liveFigures.computations()).toBe(computed);
  });

  it('refuses a target of the wrong kind, a target it cannot read, and a pilot that is not there', async () => {
    const wrongKind = await plan({ pilot: PILOT, target: 'mos-ci=0.1' });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body).toMatchObject({ error: 'plan_refused', field: 'pilot' });
    expect(wrongKind.body.message).toBe(`pilot ${PILOT}: mos-ci is a rating-study target; this pilot is a pair / A/B study: use bt-ci`);

    const unreadable = await plan({ pilot: PILOT, target: 'bt-ci' });
    expect(unreadable.status).toBe(400);
    expect(unreadable.text).toContain('bt-ci=<half-width>');

    const noVotes = await plan({ pilot: PLANNED, target: 'bt-ci=0.3' });
    expect(noVotes.status).toBe(400);
    expect(noVotes.body.message).toMatch(new RegExp(`^pilot ${PLANNED}: `));

    const missing = await plan({ pilot: 'no-such-pilot', target: 'bt-ci=0.3' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'unknown_study', field: 'pilot' });

    const unknownStudy = await plan({ pilot: PILOT, target: 'bt-ci=0.3' }, researcher, 'no-such-study');
    expect(unknownStudy.status).toBe(404);
  });

  it('is the researcher’s, as the rest of the studio', async () => {
    expect((await plan({ pilot: PILOT, target: 'bt-ci=0.3' }, analyst)).status).toBe(403);
    expect((await plan({ pilot: PILOT, target: 'bt-ci=0.3' }, '')).status).toBe(401);
  });
});

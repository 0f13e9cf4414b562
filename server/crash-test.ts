/**
 * npm run test:crash — durability under SIGKILL.
 *
 * Many simulated listeners vote concurrently over loopback against a server child process
 * that is killed with SIGKILL at random moments and restarted. A listener whose vote got no
 * answer retries it with the same vote id, as the real client does. After every kill the
 * database is checked directly: every acknowledged vote is there with the choice made, none
 * twice, PRAGMA integrity_check is ok; after every restart every session resumes. Listeners
 * alternate between a caption-pair study and an A/B study (the demo-ab template on the demo's
 * renditions), each answering as its kind's seeded simulated respondent does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { buildApp } from './app';
import type { VoteBody } from '../contract/listener';
import { databaseFile, openDatabase } from '../db/open';
import { hashSessionToken } from './store/sessions';
import { chosenCaption } from '../trials/pair/server';
import { abRespondent, chosenSide, type AbAnswer } from '../trials/ab/simulate';
import { seededRandom } from '../analysis/random';
import { loadStudyDir } from '../studies/load';
import { setStudyStatus } from '../studies/build';
import { seedStudy } from './testing/seed';

const KILLS = Number(process.env.CRASH_KILLS ?? 22);
const LISTENERS = Number(process.env.CRASH_LISTENERS ?? 24);
const STUDY = 'crash';
const AB_STUDY = 'crash-ab';
const DEMO = fileURLToPath(new URL('../studies/demo/', import.meta.url));
const AB_TEMPLATE = fileURLToPath(new URL('../studies/templates/demo-ab.yaml', import.meta.url));

if (process.argv[2] === '--child') {
  const app = await buildApp(
    { dataDir: process.argv[3], synchronous: 'FULL', logLevel: 'silent' },
    { rateLimits: { sessionsPerIp: 1e6, votesPerIp: 1e6, votesPerSession: 1e6 } },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  console.log(`PORT ${typeof address === 'object' && address ? address.port : 0}`);
} else {
  process.exitCode = await run();
}

/** An acknowledged vote and its answer in screen terms: a caption choice (1/2) or an A/B preference. */
interface Ack {
  token: string;
  voteId: string;
  position: number;
  answer: { choice: 1 | 2 } | { preference: AbAnswer };
}

async function run(): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-crash-'));
  const file = databaseFile({ dataDir });
  const seedDb = openDatabase(file);
  seedStudy(seedDb, join(dataDir, 'audio'), { study: STUDY, pairs: 40, attention: 4, practice: 0 });
  seedDb.close();
  // The A/B template as a researcher copies it, its sources pointing at the demo's files.
  const abDir = join(dataDir, 'studies', AB_STUDY);
  mkdirSync(abDir, { recursive: true });
  writeFileSync(join(abDir, 'study.yaml'), readFileSync(AB_TEMPLATE, 'utf8').replaceAll('../demo/', DEMO));
  const abDb = openDatabase(file);
  try {
    const { studyId } = await loadStudyDir(abDb, abDir, { dataDir });
    setStudyStatus(abDb, studyId, 'open');
    if (studyId !== AB_STUDY) throw new Error(`the A/B study loaded as ${studyId}`);
  } finally {
    abDb.close();
  }

  const acks: Ack[] = [];
  const acksPerToken = new Map<string, number>();
  const inProgress = new Set<string>();
  let base: string | null = null;
  let stopping = false;
  let replayed = 0;
  let refused = 0;
  const problems: string[] = [];

  const post = async (path: string, body: unknown, token?: string) => {
    if (!base) throw new Error('server down');
    const res = await fetch(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  // One simulated listener after another, each voting through its whole session; worker w
  // alternates between the two studies and answers A/B trials as a blind seeded respondent.
  const listener = async (_: unknown, w: number) => {
    const random = seededRandom(1000 + w);
    for (let session = 0; !stopping; session++) {
      const study = (w + session) % 2 === 0 ? STUDY : AB_STUDY;
      const respond = abRespondent(random);
      let token: string | null = null;
      while (!token && !stopping) {
        try {
          const res = await post('/api/sessions', { study });
          if (res.status === 201) token = res.body.token;
        } catch {
          await sleep(50);
        }
      }
      if (!token) return;
      acksPerToken.set(token, 0);
      inProgress.add(token);
      let pending: VoteBody | null = null;
      let retried = false;
      while (!stopping) {
        try {
          if (!pending) {
            const state = await post('/api/session', undefined, token);
            if (state.status !== 200) throw new Error(`state ${state.status}`);
            if (!state.body.trial) {
              inProgress.delete(token);
              break; // finished: the next listener starts
            }
            const trial = state.body.trial;
            const heard = { playCount: 1, secondsListened: 1.5, heardToEnd: true };
            const answer = trial.kind === 'ab'
              ? { preference: respond({ tie: trial.tie }) }
              : { choice: (random() < 0.5 ? 1 : 2) as 1 | 2 };
            pending = {
              voteId: randomUUID(), position: trial.position, ...answer,
              ...(trial.kind === 'ab'
                // Both versions heard to the end: one entry per stimulus, totals theirs.
                ? { playCount: 2, secondsListened: 3, heardToEnd: true, listening: [0, 1].map(() => ({ plays: 1, secondsHeard: 1.5, heardToEnd: true })) }
                : heard),
              hiddenMs: 0, responseMs: 900, clientTs: new Date().toISOString(),
            };
            retried = false;
          }
          const res = await post('/api/session/votes', pending, token);
          if (res.status === 200) {
            if (res.body.voteId !== pending.voteId || res.body.position !== pending.position) {
              problems.push(`ack does not match vote ${pending.voteId}`);
            }
            acks.push({
              token, voteId: pending.voteId, position: pending.position,
              answer: pending.preference ? { preference: pending.preference } : { choice: pending.choice! },
            });
            acksPerToken.set(token, acksPerToken.get(token)! + 1);
            if (retried) replayed++;
            pending = null;
          } else {
            refused++;
            problems.push(`vote refused: ${res.status} ${JSON.stringify(res.body)}`);
            pending = null;
          }
          await sleep(5 + Math.random() * 25); // a listener is not a tight loop
        } catch {
          // No answer (server killed): the same vote goes again once it is back.
          if (pending) retried = true;
          await sleep(50);
        }
      }
    }
  };

  let child: ChildProcess | null = null;
  const startServer = async () => {
    child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', dataDir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! });
    for await (const line of lines) {
      const port = /^PORT (\d+)$/.exec(line)?.[1];
      if (port) {
        base = `http://127.0.0.1:${port}`;
        return;
      }
    }
    throw new Error('server child exited before listening');
  };
  const kill = async () => {
    const dying = child!;
    base = null;
    const exited = new Promise((resolve) => dying.once('exit', resolve));
    dying.kill('SIGKILL');
    await exited;
  };

  let totals = { acknowledged: 0, found: 0, lost: 0, duplicated: 0 };
  const checkDatabase = () => {
    const db = new Database(file); // opening replays the WAL, as a restarted server would
    try {
      const integrity = db.pragma('integrity_check', { simple: true });
      if (integrity !== 'ok') problems.push(`integrity_check: ${integrity}`);
      const byId = db.prepare<[string], { listener_id: string; position: number; answer: string }>(
        'SELECT listener_id, position, answer FROM votes WHERE id = ?',
      );
      // The stored answer document ({first, chosen} for both kinds) must be the answer acknowledged.
      const stored = (ack: Ack, answer: string) => {
        const { first, chosen } = JSON.parse(answer) as { first: 'a' | 'b'; chosen: string };
        return 'choice' in ack.answer ? chosen === chosenCaption(first, ack.answer.choice) : chosen === chosenSide(ack.answer.preference, first);
      };
      const listenerOf = db.prepare<[string], { id: string }>('SELECT id FROM listeners WHERE token_hash = ?');
      let found = 0;
      let lost = 0;
      for (const ack of acks) {
        const row = byId.get(ack.voteId);
        const listenerId = listenerOf.get(hashSessionToken(ack.token))?.id;
        if (row && row.listener_id === listenerId && row.position === ack.position && stored(ack, row.answer)) found++;
        else lost++;
      }
      const duplicated = (db.prepare(
        'SELECT coalesce(sum(n - 1), 0) AS d FROM (SELECT count(*) AS n FROM votes GROUP BY listener_id, position HAVING n > 1)',
      ).get() as { d: number }).d;
      totals = { acknowledged: acks.length, found, lost, duplicated };
    } finally {
      db.close();
    }
  };
  const checkResume = async () => {
    // Every session in progress, and a sample of finished ones (which must show their completion).
    const all = [...acksPerToken.keys()];
    const sample = [...inProgress, ...Array.from({ length: 24 }, () => all[Math.floor(Math.random() * all.length)])];
    await Promise.all(
      sample.map(async (token) => {
        const mine = acksPerToken.get(token)!;
        const res = await post('/api/session', undefined, token);
        if (res.status !== 200 || res.body.progress.done < mine || (res.body.trial === null) !== (res.body.completion !== null)) {
          problems.push(`session did not resume: ${res.status} done=${res.body?.progress?.done} acknowledged=${mine}`);
        }
      }),
    );
  };

  const started = Date.now();
  await startServer();
  const workers = Array.from({ length: LISTENERS }, listener);
  for (let k = 1; k <= KILLS; k++) {
    await sleep(300 + Math.random() * 1500);
    await kill();
    checkDatabase();
    await startServer();
    await checkResume();
    console.log(`kill ${String(k).padStart(2)}/${KILLS}: acknowledged ${totals.acknowledged}, found ${totals.found}, lost ${totals.lost}, duplicated ${totals.duplicated}`);
  }
  await sleep(500);
  stopping = true;
  await Promise.all(workers);
  await kill();
  checkDatabase();
  rmSync(dataDir, { recursive: true, force: true });

  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const abAcks = acks.filter((a) => 'preference' in a.answer).length;
  if (abAcks === 0 || abAcks === acks.length) problems.push(`both kinds must be voted on: ${abAcks} of ${acks.length} acknowledged votes were A/B`);

  console.log(
    `\ncrash test: ${KILLS} SIGKILLs in ${seconds} s, ${acksPerToken.size} listeners (caption pair and A/B); acknowledged ${totals.acknowledged} ` +
      `(${abAcks} A/B), ` +
      `found ${totals.found}, lost ${totals.lost}, duplicated ${totals.duplicated}; ` +
      `${replayed} votes retried after a kill were acknowledged, ${refused} refused`,
  );
  for (const p of problems.slice(0, 20)) console.error(`problem: ${p}`);
  const ok = totals.lost === 0 && totals.duplicated === 0 && totals.found === totals.acknowledged && problems.length === 0 && totals.acknowledged > 0;
  console.log(ok ? 'PASS' : 'FAIL');
  return ok ? 0 : 1;
}

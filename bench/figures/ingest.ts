/**
 * Vote ingest: autocannon over loopback against the real vote endpoint (body validation, session
 * token, rate-limit hooks, group commit with synchronous=FULL) and, in the same server process
 * and build, a bare Fastify route answering {ok:true}. Every vote request is a distinct, valid
 * vote: a bench study of 100 items is built through the study loader and the audio manifest, and
 * each measured run gets fresh listeners started through POST /api/sessions. A/B votes (the demo-ab
 * template on the demo's renditions, each vote with its per-stimulus listening record, answered by
 * the A/B kind's seeded respondent) go through the same server, against the caption pair's rate.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { sine, wavBytes } from '../../audio-manifest/test/audio';
import { StartSessionReply, type VoteBody } from '../../contract/listener';
import { databaseFile, openDatabase } from '../../db/open';
import { setStudyStatus } from '../../studies/build';
import { loadStudyDir } from '../../studies/load';
import { startBenchServer } from '../lib/child';
import { tempDir } from '../lib/corpus';
import { judge, median, type Figure } from '../lib/figure';
import { load, rate, type Result } from '../lib/load';
import type { BenchOptions } from './options';
import { abRespondent } from '../../trials/ab/simulate';

const STUDY = 'bench-votes';
const AB_STUDY = 'bench-ab';
const DEMO = fileURLToPath(new URL('../../studies/demo/', import.meta.url));
const AB_TEMPLATE = fileURLToPath(new URL('../../studies/templates/demo-ab.yaml', import.meta.url));
const SYSTEMS = ['sys-a', 'sys-b', 'sys-c', 'sys-d', 'sys-e'];
const UTTERANCES = 10;
const CONNECTIONS = 100;
/** A demo-ab session: 12 items, 2 attention checks and 1 practice trial. */
const AB_TRIALS = 15;

/** A MetaSet-format study folder: 10 clips × 5 systems, every system pair on every clip = 100 items. */
export function writeBenchStudy(dir: string): string {
  const studyDir = join(dir, STUDY);
  mkdirSync(join(studyDir, 'audio'), { recursive: true });
  mkdirSync(join(studyDir, 'captions'), { recursive: true });
  const names = Array.from({ length: UTTERANCES }, (_, u) => `u${String(u).padStart(2, '0')}.wav`);
  names.forEach((name, u) =>
    writeFileSync(join(studyDir, 'audio', name), wavBytes({ sampleRate: 16_000, channels: [sine(0.6, 16_000, 180 + 20 * u, 0.4)] })),
  );
  for (const system of SYSTEMS) {
    const records = names.map((name, u) => ({
      wav_path: `/bench/${name}`,
      generated_captions: { holistic_creative_synthesis: { generated_caption: `${system} hears voice ${u} speak at a steady pace.` } },
      metadata: { source: 'bench', relative_audio_path: name, transcription: 'The bench is here.' },
    }));
    writeFileSync(join(studyDir, 'captions', `${system}.json`), JSON.stringify(records));
  }
  const pairs = SYSTEMS.flatMap((a, i) => SYSTEMS.slice(i + 1).map((b) => [a, b]));
  const items = names.flatMap((name) =>
    pairs.map(([a, b]) => `    - { utterance: "metaset:bench/${name}", systemA: ${a}, systemB: ${b} }`),
  );
  writeFileSync(
    join(studyDir, 'study.yaml'),
    [
      'title: Vote ingest bench',
      'consent: Bench.',
      'instructions: Bench.',
      'question: Which caption fits?',
      'sources:',
      ...SYSTEMS.map((s) => `  - { kind: metaset, file: captions/${s}.json, system: ${s}, audioRoot: audio }`),
      'items:',
      '  mode: explicit',
      '  list:',
      ...items,
      'design: { kind: crossed }',
      'targetListeners: 100000',
      'completion: { code: BENCH }',
      '',
    ].join('\n'),
  );
  return studyDir;
}

/** The A/B template as a researcher copies it (sources pointing at the demo), under the bench's name. */
export function writeAbBenchStudy(dir: string): string {
  const studyDir = join(dir, AB_STUDY);
  mkdirSync(studyDir, { recursive: true });
  writeFileSync(join(studyDir, 'study.yaml'), readFileSync(AB_TEMPLATE, 'utf8').replaceAll('../demo/', DEMO));
  return studyDir;
}

interface Slots {
  tokens: string[];
  perListener: number;
}

/** Starts `listeners` sessions through the real API (not timed). */
export async function startListeners(base: string, listeners: number, study = STUDY): Promise<Slots> {
  const tokens: string[] = [];
  let perListener = 0;
  const one = async () => {
    const response = await fetch(`${base}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ study }),
    });
    if (response.status !== 201) throw new Error(`POST /api/sessions: ${response.status} ${await response.text()}`);
    const reply = StartSessionReply.parse(await response.json());
    tokens.push(reply.token);
    perListener = reply.state.progress.total;
  };
  for (let i = 0; i < listeners; i += 8) await Promise.all(Array.from({ length: Math.min(8, listeners - i) }, one));
  return { tokens, perListener };
}

/** The answer fields of the k-th vote: a caption choice, or an A/B preference with both versions' listening. */
type Answer = (k: number) => Partial<VoteBody>;
const captionChoice: Answer = (k) => ({ choice: k % 2 === 0 ? 1 : 2, playCount: 1, secondsListened: 0.6, heardToEnd: true });
function abPreference(): Answer {
  const respond = abRespondent(2026);
  return () => ({
    preference: respond({ tie: false }), playCount: 2, secondsListened: 5, heardToEnd: true,
    listening: [0, 1].map(() => ({ plays: 1, secondsHeard: 2.5, heardToEnd: true })),
  });
}

/**
 * The k-th request votes for listener k mod L at position ⌊k / L⌋: consecutive requests go to
 * different listeners, and each listener answers its trials in order, as real sessions do.
 */
export function voteRequests(slots: Slots, path = '/api/session/votes', answer: Answer = captionChoice) {
  let k = 0;
  const clientTs = new Date().toISOString();
  return [
    {
      method: 'POST',
      path,
      setupRequest: (request: { headers?: Record<string, string>; body?: string | Buffer }) => {
        const listener = k % slots.tokens.length;
        const position = Math.floor(k / slots.tokens.length);
        k++;
        const vote = { voteId: randomUUID(), position, ...answer(k), hiddenMs: 0, responseMs: 1800, clientTs } as VoteBody;
        request.headers = { 'content-type': 'application/json', authorization: `Bearer ${slots.tokens[listener]}` };
        request.body = JSON.stringify(vote);
        return request;
      },
    },
  ];
}

export async function benchIngest(options: BenchOptions): Promise<Figure[]> {
  const dir = tempDir('ingest');
  const dataDir = join(dir, 'data');
  const db = openDatabase(databaseFile({ dataDir }));
  try {
    await loadStudyDir(db, writeBenchStudy(join(dir, 'studies')));
    setStudyStatus(db, STUDY, 'open');
    await loadStudyDir(db, writeAbBenchStudy(join(dir, 'studies')), { dataDir });
    setStudyStatus(db, AB_STUDY, 'open');
  } finally {
    db.close();
  }
  const reader = new Database(databaseFile({ dataDir }), { readonly: true });
  const countVotes = () => (reader.prepare('SELECT count(*) AS n FROM votes').get() as { n: number }).n;
  const server = await startBenchServer({ data: dataDir });
  const seconds = 10;
  const voteRun = async (votes: number, ab = false) => {
    const slots = ab ? await startListeners(server.real, Math.ceil(votes / AB_TRIALS), AB_STUDY) : await startListeners(server.real, Math.ceil(votes / 100));
    if (slots.perListener * slots.tokens.length < votes) throw new Error('bench study has fewer trials than planned');
    const before = countVotes();
    // A fixed amount, so every vote sent is answered before the run ends and acks can be counted exactly.
    const requests = ab ? voteRequests(slots, undefined, abPreference()) : voteRequests(slots);
    const result = await load({ url: server.real, connections: CONNECTIONS, amount: votes, requests });
    return { result, stored: countVotes() - before };
  };

  try {
    // Warm-up (not counted): JIT, page cache, and an estimate of the vote rate to size the runs.
    let estimate = rate((await voteRun(6_000)).result);
    // The bare route gets the same request stream (bodies, tokens), so the client's work is the same.
    const bareSlots = await startListeners(server.real, 10);
    const bare = () => load({ url: server.bare, connections: CONNECTIONS, duration: seconds, requests: voteRequests(bareSlots, '/bare') });
    const bareRuns: Result[] = [];
    const voteRuns: { result: Result; stored: number }[] = [];
    const abRuns: { result: Result; stored: number }[] = [];
    while (voteRuns.length < options.runs) {
      bareRuns.push(await bare());
      // Sized for the run time at the last rate seen (plus 15%); a run that still ends early is redone.
      let v = await voteRun(Math.ceil(estimate * seconds * 1.15));
      for (let retry = 0; v.result.duration < seconds && retry < 3; retry++) {
        estimate = rate(v.result);
        v = await voteRun(Math.ceil(estimate * seconds * 1.15));
      }
      voteRuns.push(v);
      estimate = rate(v.result);
      // A/B votes, sized from the caption pair's rate (a shorter run is still every vote acknowledged and counted).
      abRuns.push(await voteRun(Math.ceil(estimate * seconds * 1.15), true));
    }

    const status = (r: Result) => Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));
    const details = {
      connections: CONNECTIONS,
      runs: voteRuns.map(({ result, stored }, i) => ({
        seconds: result.duration, votesSent: result.requests.total, acknowledged: result['2xx'], stored,
        status: status(result), errors: result.errors, timeouts: result.timeouts,
        voteP50ms: result.latency.p50, bareSeconds: bareRuns[i].duration, bareP99ms: bareRuns[i].latency.p99,
      })),
    };
    const voteRates = voteRuns.map((v) => rate(v.result));
    const bareRates = bareRuns.map(rate);
    const p99 = voteRuns.map((v) => v.result.latency.p99);
    const mismatch = [...voteRuns, ...abRuns].map((v) => Math.abs(v.stored - v.result['2xx']) + v.result.non2xx + v.result.errors);
    const abRates = abRuns.map((v) => rate(v.result));
    return [
      judge({
        id: 'ingest.rate',
        subject: { label: 'vote endpoint req/s (FULL, 100 conns)', unit: 'req/s', runs: voteRates },
        baseline: { label: 'bare route', unit: 'req/s', runs: bareRates },
        budget: { on: 'ratio', op: '>=', limit: 0.5 },
        missReason: `the vote route takes ${(1000 / median(voteRates)).toFixed(3)} ms of server time per request against ${(1000 / median(bareRates)).toFixed(3)} ms for the bare route, which does no I/O: each vote is validated and rate-limited on the event loop and crosses to the vote writer thread, which reads its trial through the listener's index entries and inserts it in a group-commit batch committed durably (synchronous=FULL); autocannon, the event loop and the writer share the two cores, and waking the writer for each batch costs the event loop its core while the writer runs (bench/README.md, "Round 3"; per-thread CPU: npx tsx bench/thread-cpu.ts)`,
        details,
      }),
      judge({
        id: 'ingest.p99',
        subject: { label: 'vote p99 latency', unit: 'ms', runs: p99 },
        baseline: { label: 'bare route p99', unit: 'ms', runs: bareRuns.map((r) => r.latency.p99) },
        budget: { on: 'value', op: '<=', limit: 25 },
        missReason: `latency follows throughput (Little's law: ${CONNECTIONS} connections / ${Math.round(median(voteRates))} req/s = ${(CONNECTIONS * 1000 / median(voteRates)).toFixed(0)} ms mean); every vote of a group-commit batch waits for the whole batch`,
      }),
      judge({
        id: 'ingest.ab',
        subject: { label: 'A/B vote req/s (two stimuli, listening record)', unit: 'req/s', runs: abRates },
        baseline: { label: 'caption-pair votes', unit: 'req/s', runs: voteRates },
        budget: { on: 'ratio', op: '>=', limit: 0.9 },
        missReason: `an A/B vote costs more than a caption-pair vote on the kind-agnostic path: its body carries a per-stimulus listening record, checked against the trial's stimuli and stored as JSON (A/B p99 ${median(abRuns.map((v) => v.result.latency.p99))} ms)`,
      }),
      judge({
        id: 'ingest.durable',
        subject: { label: '|votes in DB − 2xx acks| + refusals/errors', unit: '', runs: mismatch },
        budget: { on: 'value', op: '<=', limit: 0 },
        missReason: `per run (stored vs acknowledged, non-2xx, errors): ${JSON.stringify(details.runs.map((r) => [r.stored, r.acknowledged, r.status, r.errors]))}`,
      }),
    ];
  } finally {
    reader.close();
    await server.stop();
  }
}

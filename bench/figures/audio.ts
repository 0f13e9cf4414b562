/**
 * Audio serving: Range requests for clips through the real route (/media/clips/:id/audio: served
 * copy lookup by opaque id, stat, ETag, Range, security headers) against @fastify/static serving
 * the very same copies from the same process. Both get the identical request mix.
 */
import { join } from 'node:path';
import { importRavdess } from '../../audio-manifest';
import { prepareStudyAudio, recordStudyAudio } from '../../audio-manifest/served';
import { writeStudy } from '../../studies/build';
import { StudyDefinition, type StudyDefinitionInput } from '../../contract/study-definition';
import { databaseFile, openDatabase } from '../../db/open';
import { startBenchServer } from '../lib/child';
import { tempDir, writeRavdessCorpus } from '../lib/corpus';
import { judge, median, type Figure } from '../lib/figure';
import { load, rate, type Result } from '../lib/load';
import type { BenchOptions } from './options';

const CONNECTIONS = 50;
const SECONDS = 5;
/** What a browser asks for: the start of the file, then seeks into it, and the tail. */
const RANGES = ['bytes=0-', 'bytes=0-65535', 'bytes=131072-196607', 'bytes=-32768'];

function rangeRequests(paths: string[]) {
  let k = 0;
  return [
    {
      method: 'GET',
      setupRequest: (request: { path?: string; headers?: Record<string, string> }) => {
        request.path = paths[k % paths.length];
        request.headers = { range: RANGES[Math.floor(k / paths.length) % RANGES.length] };
        k++;
        return request;
      },
    },
  ];
}

export async function benchAudio(options: BenchOptions): Promise<Figure[]> {
  const dir = tempDir('audio');
  const corpus = join(dir, 'corpus');
  writeRavdessCorpus(corpus, { actors: 2, perActor: 12 });
  const dataDir = join(dir, 'data');
  const db = openDatabase(databaseFile({ dataDir }));
  let clips: { id: string; file: string }[];
  try {
    const report = await importRavdess(db, corpus);
    if (report.imported !== 24) throw new Error(`audio bench: import said ${report.summary()}`);
    // Listeners get a study's copies: a study with no items holds the copies of all 24 clips.
    const definition = StudyDefinition.parse({
      title: 'Audio bench', consent: 'Bench.', instructions: 'Bench.', question: 'Bench?', targetListeners: 1,
      completion: { code: 'BENCH' }, design: { kind: 'crossed' },
      items: { mode: 'explicit', list: [{ utterance: 'ravdess:bench', systemA: 'a', systemB: 'b' }] },
    } satisfies StudyDefinitionInput);
    writeStudy(db, 'bench-audio', definition, { items: [], sampler: null, judgeScores: [] });
    const audio = await prepareStudyAudio(db, 'bench-audio', definition.loudness, db.prepare('SELECT id FROM clips ORDER BY path').pluck().all() as string[]);
    db.transaction(() => recordStudyAudio(db, audio))();
    clips = audio.rows.map((r) => ({ id: r.id, file: r.file }));
  } finally {
    db.close();
  }

  // The baseline serves the very same copies as plain files.
  const server = await startBenchServer({ data: dataDir, static: join(dataDir, 'served-audio') });
  const real = () =>
    load({ url: server.real, connections: CONNECTIONS, duration: SECONDS, requests: rangeRequests(clips.map((c) => `/media/clips/${c.id}/audio`)) });
  const files = () =>
    load({ url: server.static!, connections: CONNECTIONS, duration: SECONDS, requests: rangeRequests(clips.map((c) => `/static/${c.file}`)) });
  try {
    await real();
    await files();
    const realRuns: Result[] = [];
    const staticRuns: Result[] = [];
    for (let run = 0; run < options.runs; run++) {
      realRuns.push(await real());
      staticRuns.push(await files());
    }
    const bad = [...realRuns, ...staticRuns].filter((r) => r.statusCodeStats['206']?.count !== r.requests.total || r.errors > 0);
    if (bad.length) throw new Error(`audio bench: not every response was 206: ${JSON.stringify(bad.map((r) => r.statusCodeStats))}`);
    const mb = (r: Result) => r.throughput.average / 1e6;
    const realRates = realRuns.map(rate);
    const staticRates = staticRuns.map(rate);
    return [
      judge({
        id: 'audio.range',
        subject: { label: 'clip Range requests/s (real route)', unit: 'req/s', runs: realRates },
        baseline: { label: '@fastify/static', unit: 'req/s', runs: staticRates },
        budget: { on: 'ratio', op: '>=', limit: 0.9 },
        missReason: `the real route answers ${(median(realRates) / median(staticRates)).toFixed(2)} as many Range requests; per request it also looks the clip up in SQLite and adds the security headers`,
        details: {
          connections: CONNECTIONS, seconds: SECONDS, clips: clips.length, ranges: RANGES,
          realMBps: realRuns.map(mb), staticMBps: staticRuns.map(mb),
          realP99ms: realRuns.map((r) => r.latency.p99), staticP99ms: staticRuns.map((r) => r.latency.p99),
        },
      }),
    ];
  } finally {
    await server.stop();
  }
}

/**
 * The server side of the bench, run in its own process so the load generator never shares its
 * event loop: the real app (buildApp, synchronous=FULL) over a prepared data directory, and in
 * the same process and build the baselines — a bare Fastify route answering {ok:true} and
 * @fastify/static over the audio folder the real clips come from.
 *
 *   tsx bench/server.ts --data <dir> [--client <dist dir>] [--static <audio root>]
 *
 * Prints one JSON line {real, bare, static?} with the three base URLs, then serves until SIGTERM.
 */
import { parseArgs } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { buildApp } from '../server/app';

const { values } = parseArgs({ options: { data: { type: 'string' }, client: { type: 'string' }, static: { type: 'string' } } });
if (!values.data) throw new Error('--data <dir> is required');

// Limits high enough that one loopback address can carry the whole load; the limiter hooks still run.
const unlimited = 1_000_000_000;
const real = await buildApp(
  { dataDir: values.data, synchronous: 'FULL', logLevel: 'silent' },
  { clientDir: values.client, rateLimits: { sessionsPerIp: unlimited, votesPerIp: unlimited, votesPerSession: unlimited } },
);

const bare = Fastify();
const ok = async () => ({ ok: true });
bare.get('/bare', ok);
bare.post('/bare', ok);

let files: FastifyInstance | undefined;
if (values.static) {
  files = Fastify();
  await files.register(fastifyStatic, { root: values.static, prefix: '/static/' });
}

const listen = async (app: FastifyInstance) => {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
};

console.log(JSON.stringify({ real: await listen(real), bare: await listen(bare), static: files ? await listen(files) : undefined }));

const stop = () => {
  Promise.all([real.close(), bare.close(), files?.close()]).finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

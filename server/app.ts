import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { databaseFile } from '../db/open';
import { lockDataDir } from './data-lock';
import type { Config } from './config';
import { audioPlugin } from './plugins/audio';
import { authPlugin } from './plugins/auth';
import { connectionsPlugin, defaultConnectionLimits, serverTimeouts, type ConnectionLimits } from './plugins/connections';
import { dbPlugin } from './plugins/db';
import { liveFiguresPlugin } from './plugins/live-figures';
import { opsPlugin } from './plugins/ops';
import { ServerMetrics } from './metrics';
import type { SupervisorOptions } from './writer-supervisor';
import { clientError, defaultRateLimits, frameworkError, securityPlugin, type RateLimits } from './plugins/security';
import { clientRoutes } from './routes/client';
import { listenerRoutes } from './routes/listener';
import { mediaRoutes } from './routes/media';
import { studioRoutes } from './routes/studio';
import { studioStudyRoutes } from './routes/studio-studies';
import { reportRoutes } from './routes/reports';

export interface AppOptions {
  /** Built client to serve (dist/client); omitted: API and media only. */
  clientDir?: string;
  rateLimits?: Partial<RateLimits>;
  connectionLimits?: Partial<ConnectionLimits>;
  /** Where log lines go (default stdout); tests read them here. */
  logStream?: { write(line: string): void };
  /** Restarts of a dying vote writer thread (server/writer-supervisor.ts). */
  voteWriter?: Pick<SupervisorOptions, 'maxRestarts' | 'restartDelayMs'>;
  /** The vote writer keeps dying: main.ts exits so that the service manager restarts the process; by default only logged. */
  onFatal?: (error: Error) => void;
}

/** Query parameters that are credentials: never written to a log line. */
const SECRET_QUERY = /([?&](?:ticket|token)=)[^&#]*/gi;

/** A request as a log line shows it: no headers (they carry tokens), secrets in the URL blanked. */
const requestForLog = (request: FastifyRequest) => ({
  method: request.method,
  url: request.url.replace(SECRET_QUERY, '$1[redacted]'),
  remoteAddress: request.ip,
});

type AppConfig = Pick<Config, 'dataDir' | 'synchronous' | 'logLevel'> & Partial<Pick<Config, 'corpora' | 'requestLog' | 'trustProxy'>>;

/**
 * The whole server as a Fastify instance (not listening yet); main.ts, tests and bench build it
 * here. It holds the data directory's lock from here until it is closed (server/data-lock.ts): a
 * second server on the same data directory is refused with a DataDirLockedError.
 */
export async function buildApp(config: AppConfig, options: AppOptions = {}): Promise<FastifyInstance> {
  const release = lockDataDir(config.dataDir);
  try {
    return await assemble(config, options, release);
  } catch (error) {
    release();
    throw error;
  }
}

async function assemble(config: AppConfig, options: AppOptions, release: () => void): Promise<FastifyInstance> {
  const connectionLimits = { ...defaultConnectionLimits, ...options.connectionLimits };
  const trustProxy = config.trustProxy ?? false;
  const app = Fastify({
    logger: { level: config.logLevel, serializers: { req: requestForLog }, ...(options.logStream ? { stream: options.logStream } : {}) },
    logController: new LogController({ disableRequestLogging: !config.requestLog }),
    trustProxy,
    ...serverTimeouts(connectionLimits),
    // Votes and session starts are a few hundred bytes; nothing the API takes is bigger.
    bodyLimit: 16 * 1024,
    forceCloseConnections: 'idle',
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  }).withTypeProvider<ZodTypeProvider>();
  app.addHook('onClose', async () => release());
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(connectionsPlugin, { limits: connectionLimits, behindProxy: trustProxy !== false });
  const rateLimits = { ...defaultRateLimits, ...options.rateLimits };
  await app.register(securityPlugin, { rateLimits });
  const metrics = new ServerMetrics();
  const file = databaseFile(config);
  const onFatal = options.onFatal ?? ((error: Error) => app.log.fatal({ err: error }, 'the vote writer is down for good'));
  await app.register(dbPlugin, { file, synchronous: config.synchronous, metrics, onFatal, voteWriter: options.voteWriter });
  await app.register(liveFiguresPlugin, { file, metrics });
  await app.register(authPlugin, { rateLimits });
  await app.register(opsPlugin, { metrics, file });
  await app.register(audioPlugin);

  await app.register(listenerRoutes);
  await app.register(studioRoutes, { dataDir: config.dataDir, corpora: config.corpora });
  await app.register(studioStudyRoutes, { dataDir: config.dataDir, corpora: config.corpora });
  await app.register(reportRoutes);
  await app.register(mediaRoutes);
  if (options.clientDir) await app.register(clientRoutes, { root: options.clientDir });
  return app;
}

import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { databaseFile, type Config } from './config';
import { audioPlugin } from './plugins/audio';
import { authPlugin } from './plugins/auth';
import { dbPlugin } from './plugins/db';
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
  /** Config.trustProxy: the reverse proxy whose forwarded headers are believed. */
  trustProxy?: string;
}

/** The whole server as a Fastify instance (not listening yet); main.ts, tests and bench build it here. */
export async function buildApp(
  config: Pick<Config, 'dataDir' | 'synchronous' | 'logLevel'> & Partial<Pick<Config, 'corpora'>>,
  options: AppOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel },
    // Votes and session starts are a few hundred bytes; nothing the API takes is bigger.
    bodyLimit: 16 * 1024,
    forceCloseConnections: 'idle',
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    trustProxy: options.trustProxy ?? false,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(securityPlugin, { rateLimits: { ...defaultRateLimits, ...options.rateLimits } });
  await app.register(dbPlugin, { file: databaseFile(config), synchronous: config.synchronous });
  await app.register(authPlugin);
  await app.register(audioPlugin);

  await app.register(listenerRoutes);
  await app.register(studioRoutes, { dataDir: config.dataDir });
  await app.register(studioStudyRoutes, { dataDir: config.dataDir, corpora: config.corpora });
  await app.register(reportRoutes);
  await app.register(mediaRoutes);
  if (options.clientDir) await app.register(clientRoutes, { root: options.clientDir });
  return app;
}

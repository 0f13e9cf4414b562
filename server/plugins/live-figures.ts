import fp from 'fastify-plugin';
import { startLiveFigures, type LiveFigures } from '../live-figures';
import type { ServerMetrics } from '../metrics';
import { metaRepository } from '../store/meta';

declare module 'fastify' {
  interface FastifyInstance {
    /** Dashboards, reports, participant tables and exports, computed off the event loop (server/live-figures.ts). */
    liveFigures: LiveFigures;
  }
}

/** Starts the live figures thread on the app's database file (after the db plugin has migrated it). */
export const liveFiguresPlugin = fp<{ file: string; metrics: ServerMetrics }>(
  async (app, { file, metrics }) => {
    // The thread's connection is read-only: the pseudonym secret is made here, before it starts.
    metaRepository(app.db).ensurePseudonymKey();
    const figures = startLiveFigures(file, (figure, seconds) => metrics.liveReports.observe(seconds, { figure }));
    app.decorate('liveFigures', figures);
    app.addHook('onClose', () => figures.close());
  },
  { name: 'live-figures', dependencies: ['db'] },
);

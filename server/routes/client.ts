import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { withPageNonces } from '../plugins/security';

/**
 * The built client (dist/client): assets as static files, and index.html for the app's own
 * paths so a reload of /s/<study> works. index.html is served from here, never by the static
 * handler, because each copy carries the response's CSP style nonce for wavesurfer.
 */
export const clientRoutes: FastifyPluginAsync<{ root: string }> = async (app, { root }) => {
  const index = readFileSync(join(root, 'index.html'), 'utf8');
  await app.register(fastifyStatic, {
    root,
    index: false,
    wildcard: true,
    allowedPath: (path) => path !== '/index.html',
    // Files, not API: left out of the API description (server/openapi.ts).
    schemaHide: true,
  });
  const page = async (_request: unknown, reply: FastifyReply) => {
    const nonce = withPageNonces(reply).style;
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(index.replace('<head>', `<head><meta name="csp-nonce" content="${nonce}">`));
  };
  for (const path of ['/', '/s/*', '/studio', '/studio/*', '/reports/*']) app.get(path, { schema: { hide: true } }, page);
};

/**
 * Operations endpoints (server/plugins/ops.ts, docs/deploy.md): liveness, readiness, metrics and
 * the API description.
 */
import { z } from 'zod';

/** GET /healthz: the process is up and its event loop answers. */
export const Health = z.object({ status: z.literal('ok') });

/** GET /readyz: 200 when votes can be recorded, 503 with the reasons otherwise. */
export const Readiness = z.object({
  status: z.enum(['ready', 'unready']),
  problems: z.array(z.string()),
});
export type Readiness = z.infer<typeof Readiness>;

/** GET /metrics: Prometheus text exposition format 0.0.4. */
export const MetricsText = z.string().meta({ description: 'Prometheus text exposition format (text/plain; version=0.0.4)' });

/** GET /api/openapi.json: this API as an OpenAPI 3.1 document. */
export const OpenApiDocument = z.record(z.string(), z.unknown());

import { resolve } from 'node:path';
import { z } from 'zod';
import { corporaList } from '../studies/roots';
import { SYNCHRONOUS_MODES, type Synchronous } from '../db/open';

/** Server configuration: flags override environment variables, which override defaults. */
export const ConfigSchema = z.object({
  dataDir: z.string().min(1),
  host: z.string().min(1),
  port: z.coerce.number().int().min(0).max(65535),
  synchronous: z.enum(SYNCHRONOUS_MODES),
  /** Load the bundled demo study on start (the embedded default). */
  demo: z.boolean(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  /** Corpus folders study sources may read from, besides studies/ and the data dir's uploads (studies/roots.ts). */
  corpora: z.array(z.string()),
  /** One log line per request (off by default: they bury the start banner and every warning). */
  requestLog: z.boolean(),
  /**
   * Which reverse proxies to believe about the client's address and protocol (X-Forwarded-For,
   * X-Forwarded-Proto): false (none, the default), true (any), or comma-separated addresses/CIDRs.
   * Behind Caddy or nginx this must name the proxy, or every listener shares its address.
   */
  trustProxy: z.union([z.boolean(), z.string().min(1)]),
});
export type Config = z.infer<typeof ConfigSchema> & { synchronous: Synchronous };

/** The server's command-line options; the CLIs that open the data dir take `data` (and `corpora`) of them. */
export const SERVER_OPTIONS = {
  data: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  synchronous: { type: 'string' },
  'no-demo': { type: 'boolean' },
  'log-level': { type: 'string' },
  corpora: { type: 'string' },
  'request-log': { type: 'boolean' },
  'trust-proxy': { type: 'string' },
} as const;
type Flags = { [K in keyof typeof SERVER_OPTIONS]?: (typeof SERVER_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

/** `flags` as parsed by server/cli/args.ts `commandLine` (any subset of SERVER_OPTIONS). */
export function configFromEnv(flags: Flags = {}, env = process.env): Config {
  const flag = (name: Exclude<keyof Flags, 'no-demo' | 'request-log'>): string | undefined => flags[name];
  const parsed = ConfigSchema.safeParse({
    dataDir: resolve(flag('data') ?? env.EARMARK_DATA ?? 'data'),
    host: flag('host') ?? env.EARMARK_HOST ?? '127.0.0.1',
    port: flag('port') ?? env.PORT ?? env.EARMARK_PORT ?? 4510,
    synchronous: (flag('synchronous') ?? env.EARMARK_SYNCHRONOUS ?? 'FULL').toUpperCase(),
    demo: !flags['no-demo'] && env.EARMARK_DEMO !== '0',
    logLevel: flag('log-level') ?? env.EARMARK_LOG_LEVEL ?? 'info',
    corpora: corporaList(flag('corpora') ?? env.EARMARK_CORPORA),
    requestLog: flags['request-log'] === true || env.EARMARK_REQUEST_LOG === '1',
    trustProxy: trustProxySetting(flag('trust-proxy') ?? env.EARMARK_TRUST_PROXY),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid configuration: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data as Config;
}

function trustProxySetting(value: string | undefined): boolean | string {
  if (value === undefined || value === '' || value === 'false') return false;
  return value === 'true' ? true : value;
}

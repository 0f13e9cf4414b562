/**
 * npm start: builds the client if needed, opens (and migrates) the database, loads the demo
 * study, serves everything on one port and prints the listener link and a researcher token.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app';
import { DataDirLockedError } from './data-lock';
import { configFromEnv, SERVER_OPTIONS } from './config';
import { commandLine, HelpRequested, UsageError } from './cli/args';
import { loadStudyDir } from '../studies/load';
import { importDemoRenditions } from '../audio-manifest';
import { setStudyStatus } from '../studies/build';
import { corpusRoots } from '../studies/roots';
import { serverOrigin } from './listener-links';

const root = fileURLToPath(new URL('..', import.meta.url));
const clientDir = join(root, 'dist', 'client');

async function ensureClientBuilt(): Promise<string | undefined> {
  if (existsSync(join(clientDir, 'index.html'))) return clientDir;
  if (!existsSync(join(root, 'client', 'index.html'))) {
    console.warn('No client/ to build: serving the API and media only.');
    return undefined;
  }
  console.log('Building the client (first start)…');
  const { build } = await import('vite');
  await build({ configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
  return clientDir;
}

const USAGE =
  'usage: npm start -- [--data <dir>] [--port <n>] [--host <address>] [--synchronous FULL|NORMAL|…] [--no-demo] [--corpora <dir>:<dir>]\n' +
  '                    [--log-level info|debug|…] [--request-log] [--trust-proxy true|<addresses>]   (README.md: Configuration)';
let config;
try {
  config = configFromEnv(commandLine(process.argv.slice(2), SERVER_OPTIONS).values);
} catch (error) {
  if (error instanceof HelpRequested) {
    console.log(USAGE);
    process.exit(0);
  }
  if (!(error instanceof UsageError)) throw error;
  console.error(`${error.message}\n${USAGE}`);
  process.exit(2);
}
const app = await buildApp(config, {
  clientDir: await ensureClientBuilt(),
  // No votes can be recorded: exit, for systemd (Restart=on-failure) to start the server again.
  onFatal: () => process.exit(1),
}).catch((error: unknown) => {
  // Another server on this data directory: say so plainly, without a stack.
  if (!(error instanceof DataDirLockedError)) throw error;
  console.error(`Earmark cannot start: ${error.message}`);
  process.exit(1);
});

if (config.demo) {
  // Idempotent: an unchanged demo is left as it is, votes included.
  const { studyId } = await loadStudyDir(app.db, join(root, 'studies', 'demo'));
  if (app.store.studies.get(studyId)?.status === 'draft') setStudyStatus(app.db, studyId, 'open');
  // The demo's made-up TTS systems' audio (docs/renditions.md), for A/B studies of them; the demo study itself plays its own clips.
  const renditions = await importDemoRenditions(app.db, join(root, 'studies', 'demo'));
  for (const f of renditions.failures) console.error(`demo renditions: ${f.file}: ${f.reason}`);
}

const researcherToken = app.store.accessTokens.hasActive('researcher')
  ? null
  : (await app.store.accessTokens.create('researcher', 'created on first start')).token;

await app.listen({ host: config.host, port: config.port });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
const base = serverOrigin(config.host, port);
console.log(`\nEarmark is running. Data: ${config.dataDir}`);
console.log(`Listener link:    ${base}/s/demo`);
// Where studies may read audio and source files from: anything else is refused (studies/README.md#corpus-roots).
console.log(`Corpus roots:     ${corpusRoots({ dataDir: config.dataDir, corpora: config.corpora }).join('\n                  ')}`);
if (config.corpora.length === 0) console.log('                  (add your corpus folders with --corpora <dir>:<dir> or EARMARK_CORPORA)');
console.log(
  researcherToken
    ? `Researcher token: ${researcherToken}\n                  (shown once; more with npm run admin -- token create --role researcher)`
    : 'Researcher token: already created (npm run admin -- token list | token create --role researcher)',
);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal}: finishing open requests and closing the database`);
    app.close().then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}

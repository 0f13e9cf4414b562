/**
 * The compiled server and commands: esbuild bundles each entry (server, command, worker thread) into
 * one JavaScript file in dist/node/, so nothing transpiles TypeScript at run time (tsx is for
 * development and tests only). `ensureBuilt()` rebuilds only when a source it was built from, this
 * script or the lockfile changed since; `node bin/build.mjs` builds unconditionally.
 *
 * Paths stay as in the sources: `import.meta.url` in a bundled module is rewritten to the URL of its
 * source file, so `new URL('../studies/', import.meta.url)` finds the same folder compiled or not,
 * and a worker's `.mjs` entry (which registers tsx for development) is replaced by the worker's own
 * bundle. Native and build-time packages stay outside (better-sqlite3, vite).
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const outDir = join(root, 'dist', 'node');
const infoFile = join(outDir, 'build.json');

/** `earmark <command>`: the source each command is compiled from (its usage: `earmark <command> --help`). */
export const COMMANDS = {
  start: 'server/main.ts',
  analyze: 'analysis/cli.ts',
  simulate: 'analysis/simulate-cli.ts',
  captions: 'analysis/describe-captions-cli.ts',
  manifest: 'audio-manifest/cli.ts',
  study: 'server/cli/study.ts',
  export: 'server/cli/export.ts',
  admin: 'server/cli/admin.ts',
  backup: 'server/cli/backup.ts',
  plan: 'analysis/plan-cli.ts',
};

/** Worker threads: the development entry (registers tsx) → the module the compiled worker runs. */
const WORKERS = {
  'server/store/vote-writer-thread.mjs': 'server/store/vote-writer.ts',
  'audio-manifest/decode-worker.mjs': 'audio-manifest/decode-worker.ts',
  'server/live-figures-thread.mjs': 'server/live-figures.ts',
};
/**
 * Modules a command imports only on some of its paths (`await import()`), each built as a bundle of
 * its own: the command's bundle, read and compiled on every start, leaves them out. The analyze
 * command renders HTML with React (two thirds of its bundle) only for --format html and paper.
 */
const LAZY = { 'analysis/cli.ts': { './html': 'analysis/html.ts', './paper/index': 'analysis/paper/index.ts' } };
const bundleName = (source) => source.replace(/\.(?:ts|mjs)$/, '').replaceAll('/', '-') + '.mjs';
export const commandBundle = (command) => join(outDir, bundleName(COMMANDS[command]));

/** Files whose change makes every bundle stale besides the sources listed in build.json. */
const ALWAYS = ['package-lock.json', 'package.json', 'bin/build.mjs'];

function mtime(file) {
  try {
    return statSync(join(root, file)).mtimeMs;
  } catch {
    return Infinity;
  }
}

/** Why the bundles need building, or null when they are up to date. */
export function staleReason() {
  if (!existsSync(infoFile)) return 'not built yet';
  let info;
  try {
    info = JSON.parse(readFileSync(infoFile, 'utf8'));
  } catch {
    return 'dist/node/build.json is unreadable';
  }
  const changed = [...ALWAYS, ...info.inputs].find((f) => mtime(f) > info.builtAt);
  return changed ? `${changed} changed` : null;
}

/** A module's `import.meta.url` as if it ran from its source file, and worker entries pointed at their bundles. */
function sourcePaths() {
  const workerSources = new Map(Object.entries(WORKERS).map(([entry, source]) => [join(root, entry), bundleName(source)]));
  return {
    name: 'earmark-source-paths',
    setup(build) {
      build.onLoad({ filter: /\.tsx?$/ }, (args) => {
        if (args.path.split(sep).includes('node_modules')) return undefined;
        const here = dirname(args.path);
        const bundleUrl = 'import.meta.EARMARK_BUNDLE_URL';
        const contents = readFileSync(args.path, 'utf8')
          .replace(/new URL\(\s*(['"])(\.{1,2}\/[^'"]+\.mjs)\1\s*,\s*import\.meta\.url\s*\)/g, (whole, _q, rel) => {
            const bundle = workerSources.get(resolve(here, rel));
            return bundle ? `new URL(${JSON.stringify(`./${bundle}`)}, ${bundleUrl})` : whole;
          })
          .replace(/\bimport\.meta\.url\b/g, `new URL(${JSON.stringify(relative(outDir, args.path).split(sep).join('/'))}, ${bundleUrl}).href`)
          .replaceAll(bundleUrl, 'import.meta.url');
        return { contents, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
      });
    },
  };
}

/** A LAZY module imported by its command stays outside the command's bundle, as the file of its own bundle beside it. */
const lazyBundles = {
  name: 'earmark-lazy-bundles',
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      const lazy = LAZY[relative(root, args.importer).split(sep).join('/')]?.[args.path];
      return lazy && args.kind === 'dynamic-import' ? { path: `./${bundleName(lazy)}`, external: true } : undefined;
    });
  },
};

/**
 * zod re-exports its 40-odd message locales (`z.locales`), which no Earmark code uses: a third of every
 * bundle, parsed on every start. The bundles get English only, zod's default.
 */
const englishOnlyZod = {
  name: 'earmark-zod-english',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${sep}zod${sep}`) ? { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-english' } : undefined);
    build.onLoad({ filter: /.*/, namespace: 'zod-english' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

/** Builds every bundle into a fresh folder and swaps it in (a running process keeps the files it loaded). */
export async function build() {
  const { build: esbuild } = await import('esbuild');
  const temp = `${outDir}.tmp-${process.pid}`;
  rmSync(temp, { recursive: true, force: true });
  const sources = [...Object.values(COMMANDS), ...Object.values(WORKERS), ...Object.values(LAZY).flatMap((m) => Object.values(m))];
  const builtAt = Date.now();
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(sources.map((s) => [bundleName(s).replace(/\.mjs$/, ''), s])),
    outdir: temp,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3', 'vite', 'tsx'],
    // Bundled CommonJS packages call require() for Node's own modules.
    banner: { js: "import { createRequire as __earmarkRequire } from 'node:module'; const require = __earmarkRequire(import.meta.url);" },
    plugins: [sourcePaths(), englishOnlyZod, lazyBundles],
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
    // Less to parse on every start (a command's --help included); identifiers kept, so stack traces read.
    minifyWhitespace: true,
    minifySyntax: true,
  });
  const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.split('/').includes('node_modules'));
  writeFileSync(join(temp, 'build.json'), JSON.stringify({ builtAt, inputs }, null, 1) + '\n');
  const old = `${outDir}.old-${process.pid}`;
  if (existsSync(outDir)) renameSync(outDir, old);
  renameSync(temp, outDir);
  rmSync(old, { recursive: true, force: true });
}

/** Builds when stale; one process at a time (tests start commands in parallel), the others wait for it. */
export async function ensureBuilt() {
  const stale = staleReason();
  if (!stale) return;
  const lock = `${outDir}.lock`;
  for (;;) {
    try {
      mkdirSync(dirname(outDir), { recursive: true });
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (error) {
      // A read-only installation (the systemd unit's ProtectSystem=strict) is built beforehand.
      if (error.code === 'EROFS' || error.code === 'EACCES' || error.code === 'EPERM')
        throw new Error(`dist/node/ is out of date (${stale}) and ${root} is not writable here: run npm run build there first`);
      if (error.code !== 'EEXIST') throw error;
      // A lock older than a minute was left by a killed build.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 60_000) rmSync(lock, { force: true });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    const reason = staleReason();
    if (reason) {
      process.stderr.write(`Compiling the server and commands into dist/node/ (${reason})…\n`);
      await build();
    }
  } finally {
    rmSync(lock, { force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await build();

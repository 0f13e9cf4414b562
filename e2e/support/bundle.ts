import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A client module bundled for a test page (the module as the listener gets it, compiled by the same
 * esbuild the build uses): an IIFE that sets `window[globalName]` to the module's exports.
 */
export async function bundle(entry: string, globalName: string): Promise<string> {
  const out = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    globalName,
    write: false,
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}

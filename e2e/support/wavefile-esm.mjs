// Node picks wavefile's CommonJS bundle, whose named exports it cannot detect, so
// `import { WaveFile } from 'wavefile'` (server/testing/seed.ts) fails outside Vitest. Until that
// import is changed, these hooks load wavefile's own ES module build (package.json "module").
import { register } from 'node:module';

const hooks = `
const root = ${JSON.stringify(new URL('../../node_modules/wavefile/', import.meta.url).href)};
export async function resolve(specifier, context, next) {
  if (specifier === 'wavefile') return { url: root + 'index.js', format: 'module', shortCircuit: true };
  return next(specifier, context);
}
export async function load(url, context, next) {
  return next(url, url.startsWith(root) ? { ...context, format: 'module' } : context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

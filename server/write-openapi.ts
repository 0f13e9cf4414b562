/**
 * Writes docs/openapi.json, the API description a running server serves to staff at
 * /api/openapi.json (server/openapi.ts): `npx tsx server/write-openapi.ts`. A test fails while the
 * file differs from what the routes say.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app';

export const OPENAPI_FILE = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

/** The document of an app built over a throw-away data directory. */
export async function currentOpenApi(): Promise<object> {
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-openapi-'));
  const app = await buildApp({ dataDir, synchronous: 'NORMAL', logLevel: 'silent' });
  try {
    await app.ready();
    return app.openApi();
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const openApiText = (document: object) => JSON.stringify(document, null, 2) + '\n';

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_FILE, openApiText(await currentOpenApi()));
  console.log(`wrote ${OPENAPI_FILE}`);
}

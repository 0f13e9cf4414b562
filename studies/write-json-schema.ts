/** Regenerates studies/study.schema.json from the zod schema (a test checks it is current). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { studyJsonSchema } from '../contract/study-definition';

export const JSON_SCHEMA_FILE = fileURLToPath(new URL('./study.schema.json', import.meta.url));

export function renderJsonSchema(): string {
  return `${JSON.stringify(studyJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(JSON_SCHEMA_FILE, renderJsonSchema());
  console.log(`wrote ${JSON_SCHEMA_FILE}`);
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const here = fileURLToPath(new URL('.', import.meta.url));
const files = [...readdirSync(join(here, 'templates')).filter((f) => f.endsWith('.yaml')).map((f) => join(here, 'templates', f)), join(here, 'demo', 'study.yaml')];
// "about 10 minutes", "20 min", "half an hour", "1 hour": a duration a text would promise.
const DURATION = /\b(\d+|a few|half an?|an?)\s*(-\s*\d+\s*)?(minutes?|mins?|hours?|hrs?|seconds?|secs?)\b/i;

describe('the texts the templates and the demo give listeners', () => {
  it('state no time of their own: the consent screen shows the app\'s estimate (server/store/studies.ts), which follows the study as built', () => {
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      const study = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      for (const key of ['consent', 'instructions', 'question', 'title']) {
        const value = study[key];
        for (const text of typeof value === 'string' ? [value] : Object.values((value ?? {}) as Record<string, string>)) {
          expect(DURATION.exec(text)?.[0] ?? null, `${file} ${key}`).toBeNull();
        }
      }
    }
  });
});

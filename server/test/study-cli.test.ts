import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../cli/study';
import { seedManifest, tempDb, type TempDb } from '../../studies/test-support';

let t: TempDb;
afterEach(() => {
  vi.restoreAllMocks();
  t?.close();
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  return { out, err };
}

const yaml = `title: CLI
consent: ok
instructions: ok
question: ok
items:
  mode: sample
  count: 6
  systems: [x, y, z]
  judge: none
design:
  kind: crossed
targetListeners: 2
completion:
  code: CLI-OK
`;

describe('npm run study', () => {
  it('validates, builds, opens, pauses and closes a study folder, refusing bad definitions with line numbers', async () => {
    t = tempDb();
    seedManifest(t.db, { utterances: 10, systems: ['x', 'y', 'z'] });
    const dir = join(t.dir, 'cli-study');
    mkdirSync(dir);
    writeFileSync(join(dir, 'study.yaml'), yaml);
    const data = ['--data', t.dir];

    let io = capture();
    expect(await main(['validate', dir, ...data])).toBe(0);
    expect(io.out[0]).toBe('cli-study: valid — 6 items, 0 attention checks, 0 practice trials');
    expect(await main(['build', dir, ...data])).toBe(0);
    expect(io.out.join('\n')).toMatch(/study cli-study: created \(status draft\)/);
    expect(await main(['open', dir, ...data])).toBe(0);
    expect(await main(['pause', dir, ...data])).toBe(0);
    expect(await main(['close', dir, ...data])).toBe(0);
    // open also prints the listener and platform links
    expect(io.out.filter((l) => l.startsWith('cli-study:')).slice(-3)).toEqual(['cli-study: draft → open', 'cli-study: open → paused', 'cli-study: paused → closed']);
    const status = t.db.prepare("SELECT status FROM studies WHERE id = 'cli-study'").get();
    expect(status).toEqual({ status: 'closed' });

    writeFileSync(join(dir, 'study.yaml'), yaml.replace('count: 6', 'count: six'));
    io = capture();
    expect(await main(['validate', dir, ...data])).toBe(1);
    expect(io.err[0]).toBe('cli-study/study.yaml:7:10 items.count: expected number, received string');
    expect(await main(['frobnicate', dir, ...data])).toBe(2);
  });
});

/**
 * Every command through bin/earmark.mjs, compiled (dist/node, built here when stale): --help, a
 * negative number as a value, and the compiled server with its worker threads.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const earmark = (...args: string[]) => spawnSync(process.execPath, [join(root, 'bin', 'earmark.mjs'), ...args], { cwd: root, encoding: 'utf8' });
const COMMANDS = ['start', 'analyze', 'simulate', 'manifest', 'study', 'export', 'admin', 'backup', 'plan'];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'earmark-commands-'));
  // Builds dist/node if a source changed (one build for the whole file).
  expect(earmark('analyze', '--help').status).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('every command prints its usage for --help and -h and exits 0; no command or an unknown one exits 2', () => {
  for (const command of COMMANDS) {
    for (const flag of ['--help', '-h']) {
      const run = earmark(command, flag);
      expect(run.status, `${command} ${flag}: ${run.stderr}`).toBe(0);
      expect(run.stdout, `${command} ${flag}`).toMatch(/^usage: /i);
    }
  }
  const listed = earmark('--help');
  for (const command of COMMANDS) expect(listed.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
  expect(earmark().status).toBe(2);
  const unknown = earmark('analyse');
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toMatch(/unknown command analyse/);
});

it('runs compiled JavaScript: no bundle loads tsx, and each worker entry is a bundle of its own', () => {
  const bundles = readdirSync(join(root, 'dist', 'node')).filter((f) => f.endsWith('.mjs'));
  expect(bundles).toEqual(expect.arrayContaining(['server-main.mjs', 'server-store-vote-writer.mjs', 'audio-manifest-decode-worker.mjs', 'analysis-cli.mjs']));
  const development = /tsx\/esm|\.\/(?:vote-writer-thread|decode-worker)\.mjs/;
  for (const bundle of bundles) expect(development.exec(readFileSync(join(root, 'dist', 'node', bundle), 'utf8'))?.[0] ?? null, bundle).toBeNull();
});

it('takes values with a leading minus: a simulated rating study analysed with --min-listener-correlation -0.2', () => {
  const bundle = join(dir, 'ratings');
  const simulated = earmark('simulate', '--kind', 'rating', '--systems', '3', '--items', '12', '--listeners', '6', '--careless', '1', '--attention', '2', '--out', bundle);
  expect(simulated.status, simulated.stderr).toBe(0);
  const out = join(dir, 'report.json');
  const analysed = earmark('analyze', bundle, '--min-listener-correlation', '-0.2', '--out', out);
  expect(analysed.status, analysed.stderr).toBe(0);
  const report = readFileSync(out, 'utf8');
  expect(report).toContain('-0.2');
  const refused = earmark('analyze', bundle, '--min-listener-correlation', '-2', '--out', out);
  expect(refused.status).toBe(2);
  expect(refused.stderr).toMatch(/--min-listener-correlation: /);
});

it('leaves the HTML renderer (React) out of the analyze bundle, which loads it from a bundle of its own for --format html', () => {
  const bundles = join(root, 'dist', 'node');
  expect(readFileSync(join(bundles, 'analysis-cli.mjs'), 'utf8')).not.toContain('renderToStaticMarkup');
  expect(readFileSync(join(bundles, 'analysis-html.mjs'), 'utf8')).toContain('renderToStaticMarkup');
  const bundle = join(dir, 'pairs');
  const simulated = earmark('simulate', '--systems', '3', '--items', '12', '--listeners', '6', '--attention', '2', '--out', bundle);
  expect(simulated.status, simulated.stderr).toBe(0);
  const out = join(dir, 'report.html');
  const analysed = earmark('analyze', bundle, '--format', 'html', '--out', out);
  expect(analysed.status, analysed.stderr).toBe(0);
  expect(readFileSync(out, 'utf8')).toMatch(/^<!DOCTYPE html>/i);
});

// Its first start in a fresh clone also builds the client (dist/client) with Vite.
it('npm start runs the compiled server: the demo study loads (decode workers), /readyz is ready (vote writer thread), SIGTERM stops it', { timeout: 240_000 }, async () => {
  const data = join(dir, 'data');
  const server = spawn(process.execPath, [join(root, 'bin', 'earmark.mjs'), 'start', '--data', data, '--port', '0', '--log-level', 'warn'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  server.stderr.on('data', (d) => (err += d));
  try {
    const link = await new Promise<string>((resolve, reject) => {
      server.stdout.on('data', (d) => {
        out += d;
        const match = /Listener link: +(http:\/\/\S+)\/s\/demo/.exec(out);
        if (match) resolve(match[1]);
      });
      server.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    expect(await (await fetch(`${link}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${link}/readyz`);
    expect(ready.status).toBe(200);
    expect((await fetch(`${link}/api/studies/demo/intro`)).status).toBe(200);
  } finally {
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  }
  // The start also brought the demo's made-up TTS systems' audio into the manifest, for A/B studies (docs/renditions.md).
  const renditions = earmark('manifest', 'renditions-summary', '--data', data);
  expect(renditions.stdout.trim().split('\n')).toEqual(['espeak-de-accent\t16', 'espeak-en-fast\t16', 'espeak-en-slow\t16', 'renditions: 48 of 3 systems']);
});

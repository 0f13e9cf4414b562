/**
 * Sources inside corpus roots (issue 12 item 1): what a study definition can make the server
 * read. Each refusal names the path, opens nothing and quotes none of the file.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/open';
import { describeError, loadStudyDir, validateStudyDir } from './load';
import { confine, corporaList, readSourceText, SOURCE_FILE_LIMIT } from './roots';

let base: string;
let root: string;
let outside: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'earmark-roots-'));
  root = join(base, 'corpora');
  outside = join(base, 'private');
  mkdirSync(join(root, 'captions'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.json'), '[{"wav_path": "TOP-SECRET-CONTENT"}]');
  writeFileSync(join(root, 'captions', 'ok.json'), '[]');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const refusal = (p: Promise<unknown>) => p.then(() => 'accepted', (e: Error) => e.message);

describe('confine', () => {
  it('accepts a regular file inside a root', async () => {
    expect(await readSourceText([root], join(root, 'captions', 'ok.json'))).toBe('[]');
  });

  it('refuses ../ traversal out of the roots, by name', async () => {
    const path = join(root, 'captions', '..', '..', 'private', 'secret.json');
    expect(await refusal(readSourceText([root], path))).toBe(
      `${join(outside, 'secret.json')} is outside the corpus roots (${root}); add its folder to EARMARK_CORPORA or --corpora`,
    );
  });

  it('refuses a symlink that leads outside the roots', async () => {
    symlinkSync(join(outside, 'secret.json'), join(root, 'captions', 'link.json'));
    expect(await refusal(readSourceText([root], join(root, 'captions', 'link.json')))).toBe(`${join(root, 'captions', 'link.json')} is a symlink that leads outside the corpus roots`);
    symlinkSync(outside, join(root, 'escape'));
    expect(await refusal(confine([root], join(root, 'escape'), 'dir'))).toMatch(/escape is a symlink that leads outside the corpus roots$/);
  });

  it('refuses a FIFO without opening it (opening one would block)', async () => {
    const fifo = join(root, 'captions', 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    expect(await refusal(readSourceText([root], fifo))).toBe(`${fifo} is a FIFO (named pipe), not a regular file`);
  });

  it('refuses a device, even inside a configured root', async () => {
    expect(await refusal(readSourceText(['/dev'], '/dev/zero'))).toBe('/dev/zero is a device, not a regular file');
  });

  it('refuses a folder where a file is expected, and a file where a folder is', async () => {
    expect(await refusal(readSourceText([root], join(root, 'captions')))).toBe(`${join(root, 'captions')} is a folder, not a regular file`);
    expect(await refusal(confine([root], join(root, 'captions', 'ok.json'), 'dir'))).toBe(`${join(root, 'captions', 'ok.json')} is a file, not a folder`);
  });

  it('refuses a file over the size cap before reading it', async () => {
    const big = join(root, 'captions', 'big.json');
    writeFileSync(big, '');
    truncateSync(big, SOURCE_FILE_LIMIT + 1); // sparse: no disk used
    expect(await refusal(readSourceText([root], big))).toBe(`${big} is ${SOURCE_FILE_LIMIT + 1} bytes, more than the ${SOURCE_FILE_LIMIT}-byte limit for a source file`);
  });

  it('reads EARMARK_CORPORA / --corpora as a path list', () => {
    expect(corporaList(`/a:/b/c::`)).toEqual(['/a', '/b/c']);
    expect(corporaList(undefined)).toEqual([]);
  });
});

describe('a study definition cannot reach outside the roots', () => {
  const header = `title: T
consent: I agree.
instructions: Listen.
question: Which?
targetListeners: 2
completion: { code: X }
items: { mode: explicit, list: [{ utterance: "ravdess:x", systemA: a, systemB: b }] }
design: { kind: crossed }
`;

  /** A study folder under a fresh data dir; the corpora root is configured. */
  function study(sources: string): { data: string; dir: string } {
    const data = mkdtempSync(join(base, 'data-'));
    const dir = join(data, 'studies', 'probe');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'study.yaml'), `${header}sources:\n${sources}`);
    return { data, dir };
  }

  const problems = async (sources: string) => {
    const { data, dir } = study(sources);
    const db = openDatabase(join(data, 'earmark.db'), { synchronous: 'OFF' });
    try {
      const [validated, built] = await Promise.all([
        validateStudyDir(db, dir, { dataDir: data, corpora: [root] }).then(() => 'accepted', describeError),
        loadStudyDir(db, dir, { dataDir: data, corpora: [root] }).then(() => 'accepted', describeError),
      ]);
      // Validate and build refuse alike, and the build wrote nothing.
      expect(built).toBe(validated);
      expect(db.prepare('SELECT count(*) AS n FROM studies').get()).toEqual({ n: 0 });
      return validated;
    } finally {
      db.close();
    }
  };

  it('refuses ../ traversal, an absolute path, a glob reaching outside and a symlink out, each at its YAML line', async () => {
    const message = await problems(
      [
        `  - { kind: judge, file: ../../../private/secret.json }`,
        `  - { kind: judge, file: ${join(outside, 'secret.json')} }`,
        `  - { kind: judge, file: ${join(root, '..', 'private')}/*.json }`,
        `  - { kind: judge, file: ${join(root, 'captions', 'link.json')} }`,
        `  - { kind: ravdess, dir: /etc }`,
      ].join('\n') + '\n',
    );
    const lines = message.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^probe\/study\.yaml:10:\d+ sources\[0\]\.file: .*private\/secret\.json is outside the corpus roots/);
    expect(lines[1]).toMatch(/^probe\/study\.yaml:11:\d+ sources\[1\]\.file: .*private\/secret\.json is outside the corpus roots/);
    expect(lines[2]).toMatch(/^probe\/study\.yaml:12:\d+ sources\[2\]\.file: .*private is outside the corpus roots/);
    expect(lines[3]).toMatch(/^probe\/study\.yaml:13:\d+ sources\[3\]\.file: .*link\.json is a symlink that leads outside the corpus roots$/);
    expect(lines[4]).toMatch(/^probe\/study\.yaml:14:\d+ sources\[4\]\.dir: \/etc is outside the corpus roots/);
    expect(message).not.toContain('TOP-SECRET');
  });

  it('refuses a FIFO and a folder as a caption file, and a metaset audioRoot outside the roots', async () => {
    const message = await problems(
      [
        `  - { kind: metaset, file: ${join(root, 'captions', 'pipe.json')}, system: s, audioRoot: ${root} }`,
        `  - { kind: metaset, file: ${join(root, 'captions')}, system: s, audioRoot: ${root} }`,
        `  - { kind: metaset, file: ${join(root, 'captions', 'ok.json')}, system: s, audioRoot: ${outside} }`,
      ].join('\n') + '\n',
    );
    expect(message.split('\n')).toEqual([
      expect.stringMatching(/sources\[0\]\.file: .*pipe\.json is a FIFO \(named pipe\), not a regular file$/),
      expect.stringMatching(/sources\[1\]\.file: .*captions is a folder, not a regular file$/),
      expect.stringMatching(/sources\[2\]\.audioRoot: .*private is outside the corpus roots/),
    ]);
  });

  it('never echoes file content in a parse error', async () => {
    writeFileSync(join(root, 'captions', 'leak.json'), 'TOP-SECRET-CONTENT,with,commas\n');
    writeFileSync(join(root, 'captions', 'leak2.json'), '{"individual_results": [TOP-SECRET-CONTENT]}');
    writeFileSync(join(root, 'captions', 'leak3.jsonl'), '{"case_id": TOP-SECRET-CONTENT}\n');
    const message = await problems(
      [
        `  - { kind: metaset, file: ${join(root, 'captions', 'leak.json')}, system: s, audioRoot: ${root} }`,
        `  - { kind: judge, file: ${join(root, 'captions', 'leak2.json')}, system: s, judge: j, run: "1" }`,
        `  - { kind: voxreason, file: ${join(root, 'captions', 'leak3.jsonl')} }`,
      ].join('\n') + '\n',
    );
    expect(message.split('\n')).toHaveLength(3);
    expect(message).toMatch(/leak\.json:1:1 \(top level\): is not JSON: it looks like CSV/);
    expect(message).toMatch(/leak2\.json:1:\d+ \(top level\): is not valid JSON/);
    expect(message).toMatch(/leak3\.jsonl:1:1 .*not valid JSON \(a VoxReason cases file has one JSON object per line\)/);
    expect(message).not.toContain('TOP-SECRET');
  });
});

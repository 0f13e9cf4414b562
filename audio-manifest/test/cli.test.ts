import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTone } from './audio';

const run = promisify(execFile);
const repo = new URL('../..', import.meta.url).pathname;

async function manifest(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'audio-manifest/cli.ts', ...args], { cwd: repo, env: { ...process.env, EARMARK_DATA: dataDir } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run manifest (CLI)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'earmark-cli-'));
    writeTone(join(dir, 'RAVDESS/Actor_01/03-01-03-01-01-01-01.wav'));
    writeTone(join(dir, 'RAVDESS/Actor_01/03-01-99-01-01-01-01.wav'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports, lists as JSON lines, shows and verifies', async () => {
    const data = join(dir, 'data');
    const imported = await manifest(data, 'import', 'ravdess', join(dir, 'RAVDESS'));
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(`${join(dir, 'RAVDESS/Actor_01/03-01-99-01-01-01-01.wav')}: unknown emotion code 99`);
    expect(imported.stdout).toMatch(/ravdess: clips: 1 imported, 0 updated, 0 unchanged; 1 failed/);

    const listed = await manifest(data, 'list', '--json');
    const rows = listed.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ corpus: 'ravdess', path: 'Actor_01/03-01-03-01-01-01-01.wav', sampleRate: 16000, channels: 1, labels: { emotion: 'happy' } });
    expect(Object.keys(rows[0])).toEqual(expect.arrayContaining(['id', 'corpus', 'path', 'duration', 'sampleRate', 'channels', 'labels']));

    const shown = await manifest(data, 'show', rows[0].id);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: rows[0].id, utterances: [{ id: 'ravdess:03-01-03-01-01-01-01' }] });

    const verified = await manifest(data, 'verify');
    expect(verified.stdout).toContain('verify: 1 clips checked, 0 problems');
    rmSync(join(dir, 'RAVDESS/Actor_01/03-01-03-01-01-01-01.wav'));
    const broken = await manifest(data, 'verify');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('file is missing');
  });

  it('imports VoxReason plans against a corpus subset: one warning for the skipped plans, exit 0', async () => {
    const data = join(dir, 'data3');
    writeTone(join(dir, 'subset/Actor_02/03-01-04-01-01-01-02.wav'));
    expect((await manifest(data, 'import', 'ravdess', join(dir, 'subset'))).code).toBe(0);
    const plan = { emotion: 'sad', intent: 'lament', pitch: 'lowered', energy: 'low', rate: 'slow', pause: 'long', stance: 'withdrawn', emphasis: [] };
    const cases = ['03-01-04-01-01-01-02', '03-01-05-01-01-01-03', '03-01-06-01-01-01-04', '03-01-07-01-01-01-05'].map((stem) =>
      JSON.stringify({ case_id: `c${stem}`, gold_plan: plan, counterfactuals: [], metadata: { source_record_id: stem } }),
    );
    // Two split files, as VoxReason ships them: still one warning for the run.
    writeFileSync(join(dir, 'train.jsonl'), `${cases.slice(0, 2).join('\n')}\n`);
    writeFileSync(join(dir, 'test.jsonl'), `${cases.slice(2).join('\n')}\n`);
    const files = [join(dir, 'train.jsonl'), join(dir, 'test.jsonl')];
    const imported = await manifest(data, 'import', 'voxreason', ...files);
    expect(imported.code).toBe(0);
    expect(imported.stderr.trim().split('\n')).toEqual([`${files.join(', ')}: warning: 3 plans skipped: clip not in the manifest`]);
    expect(imported.stdout).toMatch(/voxreason: clips: 0 imported, 0 updated, 0 unchanged, 1 cases, 1 captions, 3 plans skipped; 0 failed, 1 warnings/);
    expect(imported.stdout + imported.stderr).not.toMatch(/import ravdess first/);
  });

  it('imports renditions (`renditions <dir>`), counts them per system, refuses a bad list with exit 1 and prints its usage on --help', async () => {
    const data = join(dir, 'data4');
    writeTone(join(dir, 'corpus/Actor_03/03-01-02-01-01-01-03.wav'));
    expect((await manifest(data, 'import', 'ravdess', join(dir, 'corpus'))).code).toBe(0);
    writeTone(join(dir, 'tts/sys-a/03-01-02-01-01-01-03.wav'));
    writeTone(join(dir, 'tts/sys-a/extra.wav'));
    const imported = await manifest(data, 'renditions', join(dir, 'tts'));
    expect(imported.code).toBe(0);
    expect(imported.stderr.trim()).toBe(`${join(dir, 'tts')}: warning: 1 file matches no utterance in the manifest and was skipped: sys-a/extra.wav`);
    expect(imported.stdout).toMatch(/renditions: clips: 4 imported, 0 updated, 0 unchanged, 1 unmatched files, 1 renditions, 1 systems, 1 degraded copies, 2 MUSHRA anchors; 0 failed, 1 warnings/);
    expect((await manifest(data, 'renditions-summary')).stdout).toBe('sys-a\t1\nrenditions: 1 of 1 system\n');

    writeFileSync(join(dir, 'list.csv'), 'utterance_id,system,path\nravdess:03-01-02-01-01-01-09,sys-b,tts/sys-a/extra.wav\n');
    const refused = await manifest(data, 'renditions', join(dir, 'list.csv'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${join(dir, 'list.csv')}:2: utterance_id: no utterance "ravdess:03-01-02-01-01-01-09" in the manifest`);
    expect(refused.stdout).toMatch(/renditions: clips: 0 imported.*renditions refused, nothing imported; 1 failed/);

    const help = await manifest(data, 'renditions', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('renditions <dir|list.csv|list.json>... [--system <name>]');
  });

  it('refuses bad arguments with a line naming the problem', async () => {
    const data = join(dir, 'data2');
    expect((await manifest(data, 'import', 'timit', 'x')).stderr).toContain('Invalid arguments: command: unknown command');
    expect((await manifest(data, 'import', 'vctk', 'x', '--mic', '3')).stderr).toContain('mic: Invalid option');
    expect((await manifest(data, 'import', 'metaset', 'a.json')).stderr).toMatch(/system: .*expected string/);
    expect((await manifest(data, 'list', '--bogus')).code).toBe(2);
  });
});

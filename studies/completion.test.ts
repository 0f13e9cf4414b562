import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../server/cli/study';
import { completionProblems, isPlaceholderCode } from './completion';
import { loadStudyDir } from './load';
import { StudyDefinitionError } from './parse';
import { baseDefinition, seedManifest, tempDb, type TempDb } from './test-support';
import { StudyDefinition } from '../contract/study-definition';

let t: TempDb;
afterEach(() => {
  vi.restoreAllMocks();
  t?.close();
});

const study = (completion: string) => `title: Codes
consent: I agree.
instructions: Listen, then choose.
question: Which caption fits?
targetListeners: 4
items:
  mode: sample
  count: 6
  systems: [alpha, beta]
design: { kind: crossed }
${completion}
`;

/** A study folder under the data dir over a seeded manifest; the CLI's output lines. */
function setup(completion: string): string {
  t = tempDb();
  seedManifest(t.db, { utterances: 8, systems: ['alpha', 'beta'], judges: ['j1'] });
  const dir = join(t.dir, 'studies', 'codes');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'study.yaml'), study(completion));
  return dir;
}

async function cli(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const code = await main([...args, '--data', t.dir]);
  vi.restoreAllMocks();
  return { code, out: out.join('\n').split('\n'), err: err.join('\n').split('\n') };
}

describe('completion codes that cannot be wrong', () => {
  it('knows a placeholder from a code', () => {
    for (const p of ['REPLACE-ME', 'replace_me', 'REPLACEME', 'CHANGE-ME', 'TODO', 'XXXX', '<your code>', 'YOUR-CODE', 'PLACEHOLDER']) expect(isPlaceholderCode(p), p).toBe(true);
    for (const c of ['C0MPL3TE', 'DEMO-EARMARK', 'C1A2B3C4', 'TEST-CODE', 'PILOT-OK']) expect(isPlaceholderCode(c), c).toBe(false);
  });

  it('validate warns of REPLACE-ME at its line; build refuses it there; open refuses a study stored with one', async () => {
    const dir = setup('completion:\n  code: REPLACE-ME');
    const validated = await cli('validate', 'codes');
    expect(validated.code, validated.err.join('\n')).toBe(0);
    expect(validated.out).toContain('warning: codes/study.yaml:12:9 completion.code: "REPLACE-ME" is a placeholder, not a completion code: put the code your platform gave you (Prolific: the study\'s Completion codes) — build and open refuse it');
    const built = await cli('build', 'codes');
    expect(built.code).toBe(1);
    expect(built.err[0]).toBe('codes/study.yaml:12:9 completion.code: "REPLACE-ME" is a placeholder, not a completion code: put the code your platform gave you (Prolific: the study\'s Completion codes)');
    await expect(loadStudyDir(t.db, dir, { dataDir: t.dir })).rejects.toThrow(StudyDefinitionError);
    expect(t.db.prepare('SELECT count(*) AS n FROM studies').get()).toEqual({ n: 0 });

    // A study stored with a placeholder (built before this check, or from a template in place) does not open.
    writeFileSync(join(dir, 'study.yaml'), study('completion:\n  code: C1A2B3C4'));
    expect((await cli('build', 'codes')).code).toBe(0);
    t.db.prepare("UPDATE studies SET definition = json_set(definition, '$.completion.code', 'REPLACE-ME') WHERE id = 'codes'").run();
    const opened = await cli('open', 'codes');
    expect(opened.code).toBe(1);
    expect(opened.err[0]).toMatch(/^study codes cannot open: completion\.code: "REPLACE-ME" is a placeholder/);
    expect(t.db.prepare("SELECT status FROM studies WHERE id = 'codes'").get()).toEqual({ status: 'draft' });
  });

  it("a code that differs from the redirect's cc= is refused at the redirectUrl's line; open prints the listener and platform links", async () => {
    setup('completion:\n  code: C1A2B3C4\n  redirectUrl: https://app.prolific.com/submissions/complete?cc=C9Z8Y7');
    const validated = await cli('validate', 'codes');
    expect(validated.code, validated.err.join('\n')).toBe(0);
    expect(validated.out.find((l) => l.startsWith('warning:'))).toBe(
      'warning: codes/study.yaml:13:16 completion.redirectUrl: cc=C9Z8Y7 differs from code C1A2B3C4: listeners would be shown one code and sent back with another; make them the same — build and open refuse it',
    );
    expect((await cli('build', 'codes')).code).toBe(1);

    writeFileSync(join(t.dir, 'studies', 'codes', 'study.yaml'), study('completion:\n  code: C1A2B3C4\n  redirectUrl: https://app.prolific.com/submissions/complete?cc=C1A2B3C4'));
    expect((await cli('validate', 'codes')).out.filter((l) => l.startsWith('warning:'))).toEqual([]);
    expect((await cli('build', 'codes')).code).toBe(0);
    const opened = await cli('open', 'codes', '--host', '127.0.0.1', '--port', '4999');
    expect(opened.code).toBe(0);
    expect(opened.out).toEqual([
      'codes: draft → open',
      'Listener link:  http://127.0.0.1:4999/s/codes',
      'Prolific link:  http://127.0.0.1:4999/s/codes?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}',
      'MTurk link:     http://127.0.0.1:4999/s/codes',
      expect.stringMatching(/^Analysis plan: {2}sha256:[0-9a-f]{64} \(frozen \d{4}-\d\d-\d\dT[\d:.]+Z; written to the export's study.json\)$/),
    ]);
  });

  it('checks the code a stopped listener gets too', () => {
    const def = StudyDefinition.parse({ ...baseDefinition, items: { mode: 'sample', count: 2, systems: ['a'] }, design: { kind: 'crossed' }, completion: { code: 'C1A2B3C4', whenStopped: { code: 'REPLACE-ME' } } });
    expect(completionProblems(def).map((p) => p.path.join('.'))).toEqual(['completion.whenStopped.code']);
    expect(StudyDefinition.parse({ ...baseDefinition, items: { mode: 'sample', count: 2, systems: ['a'] }, design: { kind: 'crossed' } }).completion.whenStopped).toBe('return');
  });
});

/**
 * Checks that mean what they say (issue 21 item 6): a practice clip is never an attention check or
 * a scored item; attention checks come only from the declared split; an attention check's clip is
 * never also scored. A real SQLite file and the real build.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadStudyDir } from './load';
import { StudyDefinitionError } from './parse';
import { seedManifest, tempDb, type TempDb } from './test-support';

let t: TempDb;
afterEach(() => t?.close());

/** 40 utterances, u0–u23 in the test split and the rest in train. */
function setup(yaml: string): string {
  t = tempDb();
  seedManifest(t.db, {
    utterances: 40,
    systems: ['oracle', 'alpha', 'beta'],
    labels: (u) => ({ gender: u % 2 ? 'female' : 'male', speaking_rate: u % 3 ? 'slow speaking rate' : 'fast speaking rate', split: u < 24 ? 'test' : 'train' }),
  });
  const dir = join(t.dir, 'roles');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'study.yaml'), yaml);
  return dir;
}

const header = `title: Roles
consent: I agree.
instructions: Listen, then choose.
question: Which caption fits?
targetListeners: 2
completion: { code: ROLES-OK }
design: { kind: crossed }
seed: 3
`;
const sampled = (count: number, attention: string, practice = 'metaset:u23') => `${header}items:
  mode: sample
  count: ${count}
  systems: [oracle, alpha, beta]
  minPerSystem: 1
  maxPerUtterance: 1
  judge: none
  utterances: { labels: { split: test } }
${attention}
practice:
  - { utterance: ${practice}, correct: A voice., wrong: Silence. }
`;
const generated = 'attentionChecks: { mode: generated, count: 4, attributes: [gender, rate] }';

type Row = { kind: string; utterance_id: string; clip_id: string; labels: string };
const rows = () =>
  t.db.prepare("SELECT i.kind, i.utterance_id, i.clip_id, u.labels FROM items i JOIN utterances u ON u.id = i.utterance_id WHERE i.study_id = 'roles'").all() as Row[];
const problems = async (dir: string) => {
  const error = await loadStudyDir(t.db, dir).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StudyDefinitionError);
  return (error as StudyDefinitionError).problems.map((p) => `${p.field}: ${p.message}`);
};

describe('one role per clip', () => {
  it('draws generated checks from the items’ declared split only, on clips no scored item or practice trial uses', async () => {
    const dir = setup(sampled(16, generated));
    await loadStudyDir(t.db, dir);
    const all = rows();
    const checks = all.filter((r) => r.kind === 'attention');
    expect(checks).toHaveLength(4);
    for (const c of checks) expect(JSON.parse(c.labels).split, c.utterance_id).toBe('test');
    const others = all.filter((r) => r.kind !== 'attention');
    for (const c of checks) expect(others.some((o) => o.clip_id === c.clip_id || o.utterance_id === c.utterance_id), c.utterance_id).toBe(false);
    const practice = all.filter((r) => r.kind === 'practice');
    expect(all.filter((r) => r.kind === 'pair' && practice.some((p) => p.clip_id === r.clip_id))).toEqual([]);
  });

  it('refuses a sample that would need an attention check’s or the practice clip, rather than scoring it', async () => {
    // 24 test-split utterances: 1 practice, 4 checks and the 2 clips whose captions a check shows leave 17 to
    // score (the sample's spare clips are too few for the checks, so they are drawn unbudgeted and the sample
    // says so); train-split clips are not the split.
    expect(await problems(setup(sampled(21, generated)))).toEqual([
      'items.maxPerUtterance: asked for 21 items but with maxPerUtterance 1 at most 17 can be drawn from 17 utterances',
    ]);
  });

  it('keeps a listed attention check’s clip out of the sample, and refuses a practice clip that is also a check', async () => {
    const listed = `attentionChecks:
  mode: explicit
  list:
${[0, 1, 2, 3].map((u) => `    - { utterance: metaset:u${u}, correct: A voice., wrong: Silence. }`).join('\n')}`;
    // 24 in the split, 4 listed checks and 1 practice: a sample of 19 takes every other one, never a check's.
    const dir = setup(sampled(19, listed));
    await loadStudyDir(t.db, dir);
    const all = rows();
    const checked = new Set(all.filter((r) => r.kind === 'attention').map((r) => r.utterance_id));
    expect(all.filter((r) => r.kind === 'pair' && checked.has(r.utterance_id))).toEqual([]);
    t.close();

    expect(await problems(setup(sampled(12, listed, 'metaset:u2')))).toEqual([
      'practice[0].utterance: metaset:u2 is also an attention check; a practice trial must use a clip of its own',
    ]);
  });

  it('refuses a listed attention check on a listed scored item', async () => {
    const yaml = `${header}items:
  mode: explicit
  list:
    - { utterance: metaset:u1, systemA: alpha, systemB: beta }
    - { utterance: metaset:u2, systemA: alpha, systemB: beta }
    - { utterance: metaset:u3, systemA: alpha, systemB: beta }
attentionChecks:
  mode: explicit
  list:
    - { utterance: metaset:u2, correct: A voice., wrong: Silence. }
`;
    expect(await problems(setup(yaml))).toEqual([
      'attentionChecks.list[0].utterance: metaset:u2 is also a scored item (items.list[1]); an attention check must use a clip listeners are not scored on',
    ]);
  });
});

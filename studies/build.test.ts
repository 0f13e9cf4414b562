import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assignTrials } from './design';
import { newItemId, setStudyStatus, StudyLockedError } from './build';
import { describeError, loadStudyDir, validateStudyDir } from './load';
import { StudyDefinitionError } from './parse';
import { readStudyDefinition } from './settings';
import { baseDefinition, insertListener, seedManifest, tempDb, voteAll, type TempDb } from './test-support';
import { StudyDefinition } from '../contract/study-definition';

const SYSTEMS = ['oracle', 'alpha', 'beta', 'gamma', 'delta'];
const GENDERS = ['female', 'male'];
const RATES = ['slow speaking rate', 'fast speaking rate', 'measured speed'];

let t: TempDb;
afterEach(() => t?.close());

function setup(yaml: string, name = 'pilot'): string {
  t = tempDb();
  seedManifest(t.db, {
    utterances: 40,
    systems: SYSTEMS,
    judges: ['j1', 'j2'],
    runs: 2,
    labels: (u) => ({ gender: GENDERS[u % 2], speaking_rate: RATES[u % 3], accent: u % 4 === 0 ? 'scottish' : 'american' }),
  });
  const dir = join(t.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'study.yaml'), yaml);
  return dir;
}

const header = `title: Pilot
consent: I agree to take part.
instructions: Listen, then choose.
question: Which caption describes **how** the speech is delivered?
targetListeners: 6
completion:
  code: PILOT-OK
`;

const sampled = `${header}items:
  mode: sample
  count: 20
  systems: [oracle, alpha, beta, gamma, delta]
  minPerSystem: 6
attentionChecks:
  mode: generated
  count: 4
  attributes: [gender, rate]
practice:
  - utterance: metaset:u39
    correct: A voice.
    wrong: Silence.
design:
  kind: crossed
seed: 5
`;

function itemRows(db: TempDb['db'], studyId = 'pilot') {
  return db.prepare('SELECT * FROM items WHERE study_id = ? ORDER BY seq').all(studyId) as Record<string, string | number | null>[];
}

describe('loadStudyDir', () => {
  it('builds a sampled study with attention checks and practice, blinded ids, copied captions', async () => {
    const dir = setup(sampled);
    const { studyId, summary } = await loadStudyDir(t.db, dir);
    expect(studyId).toBe('pilot');
    expect(summary).toMatchObject({ action: 'created', status: 'draft', items: { pair: 20, attention: 4, practice: 1 } });
    for (const s of SYSTEMS) expect(summary.sampler!.perSystem[s]).toBeGreaterThanOrEqual(6);

    const rows = itemRows(t.db);
    expect(rows).toHaveLength(25);
    const caption = t.db.prepare('SELECT text FROM captions WHERE utterance_id = ? AND system = ?');
    for (const r of rows) {
      expect(r.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
      for (const revealing of [...SYSTEMS, 'attention', 'practice']) expect(String(r.id)).not.toContain(revealing);
      if (r.kind === 'pair') {
        expect(r.expected).toBeNull();
        expect(r.caption_a).toBe((caption.get(r.utterance_id, r.system_a) as { text: string }).text);
        expect(r.caption_b).toBe((caption.get(r.utterance_id, r.system_b) as { text: string }).text);
      } else {
        // The side marked true is the expected answer, whichever side the draw put it on.
        expect(r[`system_${r.expected}`]).toBe(`${r.kind}:true`);
        expect(r[`system_${r.expected === 'a' ? 'b' : 'a'}`]).toBe(`${r.kind}:false`);
        expect(r.caption_a).not.toBe(r.caption_b);
      }
    }
    const attention = rows.filter((r) => r.kind === 'attention');
    expect(new Set(attention.map((r) => r.expected)).size).toBeGreaterThan(0);
    expect(rows.find((r) => r.kind === 'practice')).toMatchObject({ utterance_id: 'metaset:u39' });
  });

  it('is deterministic for the seed: rebuilding the same folder changes nothing', async () => {
    const dir = setup(sampled);
    await loadStudyDir(t.db, dir);
    const before = itemRows(t.db);
    const again = await loadStudyDir(t.db, dir);
    expect(again.summary.action).toBe('unchanged');
    expect(itemRows(t.db)).toEqual(before);
  });

  it('refuses to change items once votes exist, but accepts reworded text', async () => {
    const dir = setup(sampled);
    await loadStudyDir(t.db, dir);
    setStudyStatus(t.db, 'pilot', 'open');
    insertListener(t.db, 'pilot', 'L1');
    assignTrials(t.db, 'pilot', 'L1');
    voteAll(t.db, 'L1', new Date(), 3);

    writeFileSync(join(dir, 'study.yaml'), sampled.replace('Listen, then choose.', 'Listen to the whole clip, then choose.'));
    expect((await loadStudyDir(t.db, dir)).summary.action).toBe('definition updated');
    expect(readStudyDefinition(t.db, 'pilot').instructions).toBe('Listen to the whole clip, then choose.');

    writeFileSync(join(dir, 'study.yaml'), sampled.replace('seed: 5', 'seed: 6'));
    const error = await loadStudyDir(t.db, dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudyLockedError);
    expect((error as Error).message).toMatch(/already has 3 votes.*Clone it/s);
    expect(itemRows(t.db)).toHaveLength(25);
  });

  it('replaces items of a study nobody voted in', async () => {
    const dir = setup(sampled);
    await loadStudyDir(t.db, dir);
    const before = itemRows(t.db).map((r) => r.id);
    writeFileSync(join(dir, 'study.yaml'), sampled.replace('count: 20', 'count: 16'));
    const { summary } = await loadStudyDir(t.db, dir);
    expect(summary.action).toBe('rebuilt');
    const after = itemRows(t.db);
    expect(after.filter((r) => r.kind === 'pair')).toHaveLength(16);
    expect(after.some((r) => before.includes(r.id))).toBe(false);
  });

  it('names the line and field of references the manifest cannot satisfy', async () => {
    const yaml = `${header}items:
  mode: explicit
  list:
    - utterance: metaset:u1
      systemA: alpha
      systemB: nosuch
    - utterance: metaset:u999
      systemA: alpha
      systemB: beta
attentionChecks:
  mode: explicit
  list:
    - utterance: metaset:u2
      correct: A man.
      wrong: A woman.
design:
  kind: incomplete
  itemsPerListener: 5
  ratingsPerItem: 3
`;
    const dir = setup(yaml);
    const error = (await loadStudyDir(t.db, dir).catch((e: unknown) => e)) as StudyDefinitionError;
    expect(error).toBeInstanceOf(StudyDefinitionError);
    expect(describeError(error).split('\n')).toEqual([
      'pilot/study.yaml:13:16 items.list[0].systemB: system nosuch is not in the manifest (task holistic_creative_synthesis has systems alpha, beta, delta, gamma, oracle)',
      'pilot/study.yaml:14:18 items.list[1].utterance: utterance metaset:u999 is not in the manifest',
    ]);
    expect(t.db.prepare('SELECT count(*) AS n FROM studies').get()).toEqual({ n: 0 });
  });

  it('refuses a practice clip that is also a scored item, at the practice entry; a sampled study never draws it', async () => {
    const yaml = `${header}items:
  mode: explicit
  list:
    - utterance: metaset:u1
      systemA: alpha
      systemB: beta
    - utterance: metaset:u2
      systemA: alpha
      systemB: beta
practice:
  - utterance: metaset:u2
    correct: A voice.
    wrong: Silence.
design:
  kind: crossed
`;
    const dir = setup(yaml);
    const error = await loadStudyDir(t.db, dir).catch((e: unknown) => e);
    expect(describeError(error)).toBe(
      'pilot/study.yaml:18:16 practice[0].utterance: metaset:u2 is also a scored item (items.list[1]); a practice trial must use a clip listeners are not scored on',
    );
    expect(t.db.prepare('SELECT count(*) AS n FROM studies').get()).toEqual({ n: 0 });
    t.close();
    // Sampled, one item per utterance: asking for 39 of the 40 utterances takes every one but the practice clip.
    const sampledDir = setup(sampled.replace('count: 20', 'count: 39').replace('minPerSystem: 6', 'minPerSystem: 1').replace(/attentionChecks:[\s\S]*?practice:/, 'practice:'));
    await loadStudyDir(t.db, sampledDir);
    const scored = t.db.prepare("SELECT DISTINCT utterance_id FROM items WHERE kind = 'pair'").pluck().all();
    expect(scored).toHaveLength(39);
    expect(scored).not.toContain('metaset:u39');
  });

  it('refuses impossible sampling and designs at the right field', async () => {
    const tooMany = sampled.replace('count: 20', 'count: 500').replace('minPerSystem: 6', 'minPerSystem: 1');
    let dir = setup(tooMany);
    // 40 utterances less the practice clip, the 4 generated attention checks' clips and the up to 4 whose captions
    // they show (never scored): 31 to 35 × 10 pairs.
    await expect(validateStudyDir(t.db, dir)).rejects.toThrow(/study\.yaml:\d+:10 items\.count: asked for 500 items but only 3[1-5]0 caption pairs/);
    t.close();
    dir = setup(sampled.replace('minPerSystem: 6', 'minPerSystem: 9'));
    await expect(validateStudyDir(t.db, dir)).rejects.toThrow(/items\.minPerSystem: minPerSystem 9 is impossible/);
    t.close();
    dir = setup(sampled.replace('kind: crossed', 'kind: incomplete\n  itemsPerListener: 30\n  ratingsPerItem: 2'));
    await expect(validateStudyDir(t.db, dir)).rejects.toThrow(/design\.itemsPerListener: each listener cannot get 30 items: the study has 20/);
    t.close();
    dir = setup(sampled.replace('kind: crossed', 'kind: incomplete\n  itemsPerListener: 4\n  ratingsPerItem: 2'));
    await expect(validateStudyDir(t.db, dir)).rejects.toThrow(/attentionChecks: 4 attention checks need at least 5 items per listener/);
    t.close();
    dir = setup(sampled.replace('systems: [oracle, alpha, beta, gamma, delta]', 'systems: [oracle, alpha, zeta]'));
    await expect(validateStudyDir(t.db, dir)).rejects.toThrow(/study\.yaml:11:28 items\.systems\[2\]: system zeta is not in the manifest/);
  });

  it('refuses an adaptive stop that can never be met, and adaptive for a kind without a rule', async () => {
    // 5 systems, 100 votes: the best mean half-width is 1.96·sqrt(2·4²/(5·100)) ≈ 0.496.
    let dir = setup(sampled.replace('kind: crossed', 'kind: adaptive\n  itemsPerListener: 10\n  stop: { votes: 100, ciHalfWidth: 0.3 }'));
    await expect(validateStudyDir(t.db, dir)).rejects.toThrow(/study\.yaml:\d+:\d+ design\.stop: a CI half-width of 0\.3 is out of reach in 100 votes among 5 systems: the best possible is 0\.496/);
    t.close();
    dir = setup(sampled.replace('kind: crossed', 'kind: adaptive\n  itemsPerListener: 10\n  stop: { votes: 3 }'));
    await expect(validateStudyDir(t.db, dir)).rejects.toThrow(/design\.stop: 3 votes cannot give each of the 5 systems a comparison; the budget needs at least 4/);
    t.close();
    dir = setup(sampled.replace('kind: crossed', 'kind: adaptive\n  itemsPerListener: 10\n  stop: { votes: 100, ciHalfWidth: 0.6 }'));
    await expect(validateStudyDir(t.db, dir)).resolves.toBeDefined();
    t.close();
    dir = setup(sampled.replace('kind: crossed', 'kind: adaptive\n  itemsPerListener: 10\n  stop: {}'));
    await expect(validateStudyDir(t.db, dir)).rejects.toThrow(/design\.stop: give at least one of votes, ciHalfWidth, separated/);
    const ccr = StudyDefinition.safeParse({ ...baseDefinition, trial: { kind: 'ccr' }, items: {}, design: { kind: 'adaptive', itemsPerListener: 3, stop: { votes: 10 } } });
    expect(ccr.error?.issues.find((i) => i.path.join('.') === 'design.kind')?.message).toBe('adaptive chooses items for pair, ab, rating studies; a ccr study takes crossed or incomplete');
  });

  it('draws only on its declared sources: a judge file alone brings no captions, whatever the manifest holds', async () => {
    const yaml = `${header}sources:
  - kind: judge
    file: judges/*.csv
items:
  mode: sample
  count: 10
  systems: [alpha, beta]
  judge: extra
design:
  kind: crossed
`;
    const dir = setup(yaml);
    mkdirSync(join(dir, 'judges'));
    const rows = Array.from({ length: 40 }, (_, u) => `metaset:u${u},alpha,extra,1,${(u % 9) + 1}\nmetaset:u${u},beta,extra,1,5`);
    writeFileSync(join(dir, 'judges', 'extra.csv'), `utterance_id,system,judge,run,score\n${rows.join('\n')}\n`);
    // The manifest holds alpha's and beta's captions (seeded), but this study names none of them.
    const error = await loadStudyDir(t.db, dir).catch((e: unknown) => e);
    expect(describeError(error)).toMatch(/^pilot\/study\.yaml:14:13 items\.systems\[0\]: system alpha is not in the study's sources \(task holistic_creative_synthesis has no systems\)\n/);
    // Refused after reading, before importing: nothing was written.
    expect(t.db.prepare("SELECT count(*) AS n FROM judge_scores WHERE judge = 'extra'").get()).toEqual({ n: 0 });
    expect(t.db.prepare('SELECT count(*) AS n FROM studies').get()).toEqual({ n: 0 });
  });

  it('refuses a source path that does not exist, naming its line', async () => {
    const dir = setup(sampled.replace('items:', 'sources:\n  - kind: metaset\n    file: captions/none.json\n    system: alpha\n    audioRoot: audio\nitems:'));
    const error = await loadStudyDir(t.db, dir).catch((e: unknown) => e);
    expect(describeError(error)).toMatch(/^pilot\/study\.yaml:10:11 sources\[0\]\.file: .*none\.json does not exist\npilot\/study\.yaml:12:16 sources\[0\]\.audioRoot: .*audio does not exist$/);
  });
});

describe('status and run-time settings', () => {
  it('moves draft → open → paused → open → closed and refuses the rest', async () => {
    const dir = setup(sampled);
    await loadStudyDir(t.db, dir);
    expect(() => setStudyStatus(t.db, 'pilot', 'paused')).toThrow(/is draft; it cannot become paused/);
    expect(setStudyStatus(t.db, 'pilot', 'open')).toEqual({ from: 'draft', to: 'open' });
    expect(setStudyStatus(t.db, 'pilot', 'paused')).toEqual({ from: 'open', to: 'paused' });
    expect(setStudyStatus(t.db, 'pilot', 'open')).toEqual({ from: 'paused', to: 'open' });
    expect(setStudyStatus(t.db, 'pilot', 'closed')).toEqual({ from: 'open', to: 'closed' });
    expect(() => setStudyStatus(t.db, 'pilot', 'open')).toThrow(/closed study stays closed/);
    expect(() => setStudyStatus(t.db, 'nosuch', 'open')).toThrow(/unknown study nosuch/);
  });

  it('gives the server the listener-facing intro and stores the exclusion rules', async () => {
    const dir = setup(
      sampled.replace('seed: 5', 'seed: 5\nlistening: {mode: seconds, seconds: 3}\nscreening: {kind: antiphase, required: true}\nexclusion: {minMedianResponseMs: 800, excludeFailedScreening: true}'),
    );
    await loadStudyDir(t.db, dir);
    const definition = readStudyDefinition(t.db, 'pilot');
    expect(definition.exclusion).toEqual({ minAttention: 0.75, minMedianResponseMs: 800, excludeFailedScreening: true });
    expect(definition.screening).toEqual({ kind: 'antiphase', required: true });
    expect(definition).toMatchObject({ linkParameters: ['PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID'], listening: { mode: 'seconds', seconds: 3 } });
  });
});

describe('newItemId', () => {
  it('mints 16-character base64url ids that never start with a character a spreadsheet reads as a formula', () => {
    const ids = Array.from({ length: 20_000 }, newItemId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{15}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Without the rule about 1 in 32 ids would start with - or _: the draw above would have met hundreds.
    expect(ids.filter((id) => /[-_]/.test(id[1])).length).toBeGreaterThan(300);
  });
});

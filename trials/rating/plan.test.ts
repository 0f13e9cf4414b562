/**
 * The rating kind in the build: study.yaml's rating item config (sampled or listed captions,
 * attention checks and practice with required scores) → item rows as db/migrations.ts v10
 * defines them, on a real SQLite file; designs reused; wrong-kind options refused at their line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { salientAttributes } from '../../studies/attention';
import { setStudyStatus } from '../../studies/build';
import { assignTrials, itemLoads, StudyFullError } from '../../studies/design';
import { loadStudyDir, validateStudyDir } from '../../studies/load';
import { parseStudyYaml, StudyDefinitionError } from '../../studies/parse';
import { sampleRatedCaptions } from '../../studies/sampler';
import { insertListener, seedManifest, tempDb, voteAll, type TempDb } from '../../studies/test-support';

const SYSTEMS = ['oracle', 'alpha', 'beta', 'gamma', 'delta'];
const GENDERS = ['female', 'male'];
const RATES = ['slow speaking rate', 'fast speaking rate', 'measured speed'];

let t: TempDb;
afterEach(() => t?.close());

function setup(yaml: string, name = 'mos'): string {
  t = tempDb();
  seedManifest(t.db, {
    utterances: 40,
    systems: SYSTEMS,
    labels: (u) => ({ gender: GENDERS[u % 2], speaking_rate: RATES[u % 3], accent: u % 4 === 0 ? 'scottish' : 'american' }),
  });
  const dir = join(t.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'study.yaml'), yaml);
  return dir;
}

const header = `title: Caption MOS
consent: I agree to take part.
instructions: Listen, then rate.
question: How well does the caption describe **how** the speech is delivered?
targetListeners: 6
completion:
  code: MOS-OK
`;

const sampled = `${header}trial:
  kind: rating
  scale: { points: 5 }
  caption: true
items:
  mode: sample
  count: 30
  systems: [oracle, alpha, beta, gamma, delta]
  minPerSystem: 6
  maxPerUtterance: 2
attentionChecks:
  mode: generated
  count: 3
  attributes: [gender, rate]
practice:
  - utterance: metaset:u39
    caption: A voice speaks.
    score: 5
design:
  kind: incomplete
  itemsPerListener: 10
  ratingsPerItem: 2
exclusion:
  minListenerCorrelation: 0.3
seed: 7
`;

type Row = Record<string, string | number | null>;
const itemRows = (db: TempDb['db'], studyId = 'mos') => db.prepare('SELECT * FROM items WHERE study_id = ? ORDER BY seq').all(studyId) as Row[];
const captionOf = (db: TempDb['db'], utterance: unknown, system: unknown) =>
  (db.prepare('SELECT text FROM captions WHERE utterance_id = ? AND system = ?').get(utterance, system) as { text: string } | undefined)?.text;

function problems(error: unknown): string[] {
  expect(error).toBeInstanceOf(StudyDefinitionError);
  return (error as StudyDefinitionError).problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.field}: ${p.message}`);
}

/** The 1-based line of the first line of `yaml` containing `needle`. */
const lineOf = (yaml: string, needle: string) => yaml.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('a sampled rating study', () => {
  it('rates single captions, every system in ≥ k items, with attention and practice rows holding their required scores', async () => {
    const dir = setup(sampled);
    const { summary } = await loadStudyDir(t.db, dir);
    expect(summary.items).toEqual({ rating: 30, attention: 3, practice: 1 });
    const rows = itemRows(t.db);
    expect(rows).toHaveLength(34);
    expect(new Set(rows.map((r) => r.trial_kind))).toEqual(new Set(['rating']));

    const ratings = rows.filter((r) => r.kind === 'rating');
    const perSystem = new Map(SYSTEMS.map((s) => [s, 0]));
    const perUtterance = new Map<unknown, number>();
    for (const r of ratings) {
      expect(r).toMatchObject({ system_b: null, caption_b: null, expected: null });
      expect(r.caption_a).toBe(captionOf(t.db, r.utterance_id, r.system_a));
      perSystem.set(String(r.system_a), perSystem.get(String(r.system_a))! + 1);
      perUtterance.set(r.utterance_id, (perUtterance.get(r.utterance_id) ?? 0) + 1);
    }
    for (const [system, n] of perSystem) expect(n, system).toBeGreaterThanOrEqual(6);
    expect(Math.max(...perUtterance.values())).toBeLessThanOrEqual(2);
    expect(new Set(ratings.map((r) => `${r.utterance_id} ${r.system_a}`)).size).toBe(30);
    expect(summary.sampler).toMatchObject({ of: 'captions', perSystem: Object.fromEntries(perSystem) });

    // Generated checks: a real caption that contradicts one of the clip's labels, which must get the lowest score.
    const checks = rows.filter((r) => r.kind === 'attention');
    const shown = new Set(ratings.map((r) => r.caption_a));
    for (const c of checks) {
      expect(c).toMatchObject({ system_a: 'attention', system_b: null, caption_b: null, expected: '1' });
      expect(shown.has(c.caption_a)).toBe(false);
      const labels = JSON.parse((t.db.prepare('SELECT labels FROM utterances WHERE id = ?').get(c.utterance_id) as { labels: string }).labels);
      const truth = salientAttributes(labels);
      const said = salientAttributes({ gender: /\bfemale\b/i.test(String(c.caption_a)) ? 'female' : 'male', speaking_rate: String(c.caption_a) });
      expect(said.gender !== truth.gender || said.rate !== truth.rate).toBe(true);
    }
    // Practice: as listed, and its clip is never a scored item or a check.
    const practice = rows.filter((r) => r.kind === 'practice');
    expect(practice).toEqual([expect.objectContaining({ utterance_id: 'metaset:u39', system_a: 'practice', caption_a: 'A voice speaks.', expected: '5' })]);
    expect(rows.filter((r) => r.utterance_id === 'metaset:u39')).toHaveLength(1);

    // Deterministic for the seed.
    expect((await loadStudyDir(t.db, dir)).summary.action).toBe('unchanged');
  });

  it('runs the balanced incomplete design: k items per listener, every item to r ratings, no caption order drawn', async () => {
    const dir = setup(sampled);
    await loadStudyDir(t.db, dir);
    setStudyStatus(t.db, 'mos', 'open');
    const listeners = (30 * 2) / 10;
    for (let i = 0; i < listeners; i++) {
      const id = insertListener(t.db, 'mos', `L${i}`);
      expect(assignTrials(t.db, 'mos', id)).toBe(1 + 10 + 3);
      const kinds = (t.db.prepare('SELECT i.kind FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.listener_id = ? ORDER BY a.position').pluck().all(id) as string[]);
      expect(kinds[0]).toBe('practice');
      expect(kinds[1]).not.toBe('attention');
      expect(kinds.at(-1)).not.toBe('attention');
      voteAll(t.db, id);
      t.db.prepare('UPDATE listeners SET completed_at = ? WHERE id = ?').run(new Date().toISOString(), id);
    }
    expect(t.db.prepare('SELECT count(*) FROM assignments WHERE first IS NOT NULL').pluck().get()).toBe(0);
    expect(t.db.prepare('SELECT count(*) FROM votes WHERE score = 3 AND chosen IS NULL').pluck().get()).toBe(listeners * 14);
    const loads = itemLoads(t.db, 'mos', 30);
    expect(loads).toHaveLength(30);
    for (const l of loads) expect(l).toMatchObject({ votes: 2, pending: 0 });
    insertListener(t.db, 'mos', 'late');
    expect(() => assignTrials(t.db, 'mos', 'late')).toThrow(StudyFullError);
  });

  it('validate (a dry run) reports the rating counts and writes nothing', async () => {
    const dir = setup(sampled);
    const result = await validateStudyDir(t.db, dir);
    expect(result.items).toEqual({ rating: 30, attention: 3, practice: 1 });
    expect(t.db.prepare('SELECT count(*) FROM items').pluck().get()).toBe(0);
  });
});

describe('a listed rating study rating the audio alone', () => {
  const listed = `${header}trial: { kind: rating, scale: { points: 7, anchors: { low: not at all, high: perfectly } } }
items:
  mode: explicit
  list:
    - { utterance: metaset:u1, system: alpha }
    - { utterance: metaset:u1, system: beta }
    - { utterance: metaset:u2, system: gamma }
    - { utterance: metaset:u3, system: oracle }
attentionChecks:
  mode: explicit
  list:
    - { utterance: metaset:u10, score: 7 }
practice:
  - { utterance: metaset:u11, score: 2 }
design: { kind: crossed }
`;

  it('writes exactly the listed items, no caption shown, checks and practice with their scores; crossed gives everyone everything', async () => {
    const dir = setup(listed);
    const { summary } = await loadStudyDir(t.db, dir);
    expect(summary.items).toEqual({ rating: 4, attention: 1, practice: 1 });
    expect(itemRows(t.db).map((r) => [r.kind, r.trial_kind, r.utterance_id, r.system_a, r.system_b, r.caption_a, r.caption_b, r.expected])).toEqual([
      ['rating', 'rating', 'metaset:u1', 'alpha', null, null, null, null],
      ['rating', 'rating', 'metaset:u1', 'beta', null, null, null, null],
      ['rating', 'rating', 'metaset:u2', 'gamma', null, null, null, null],
      ['rating', 'rating', 'metaset:u3', 'oracle', null, null, null, null],
      ['attention', 'rating', 'metaset:u10', 'attention', null, null, null, '7'],
      ['practice', 'rating', 'metaset:u11', 'practice', null, null, null, '2'],
    ]);
    setStudyStatus(t.db, 'mos', 'open');
    insertListener(t.db, 'mos', 'L1');
    expect(assignTrials(t.db, 'mos', 'L1')).toBe(6);
  });

  it('names the line of a listed system without a caption for the clip', async () => {
    const yaml = listed.replace('{ utterance: metaset:u2, system: gamma }', '{ utterance: metaset:u2, system: omega }');
    const dir = setup(yaml);
    const error = await loadStudyDir(t.db, dir).catch((e: unknown) => e);
    expect(problems(error)).toEqual([`mos/study.yaml:${lineOf(yaml, 'omega')}:40 items.list[2].system: system omega is not in the manifest (task holistic_creative_synthesis has systems alpha, beta, delta, gamma, metaset, oracle)`]);
  });
});

describe('options of the other kind', () => {
  it('refuses pair-only options in a rating study, naming file, line, field and what a rating study takes', () => {
    const yaml = sampled
      .replace('  maxPerUtterance: 2\n', '  maxPerUtterance: 2\n  judge: ensemble\n  nearTieWeight: 2\n')
      .replace('    caption: A voice speaks.\n', '    caption: A voice speaks.\n    correct: A voice.\n');
    const lines = problems(catchParse(yaml));
    expect(lines).toEqual([
      `study.yaml:${lineOf(yaml, 'judge:')}:10 items.judge: is an option of pair studies (trial: { kind: pair }); in a rating study this takes mode, count, systems, utterances, minPerSystem, maxPerUtterance`,
      `study.yaml:${lineOf(yaml, 'nearTieWeight')}:18 items.nearTieWeight: is an option of pair studies (trial: { kind: pair }); in a rating study this takes mode, count, systems, utterances, minPerSystem, maxPerUtterance`,
      `study.yaml:${lineOf(yaml, 'correct: A voice.')}:14 practice[0].correct: is an option of pair studies (trial: { kind: pair }); in a rating study this takes utterance, caption, score`,
    ]);
    const explicit = sampled.replace(/items:\n {2}mode: sample\n(?: {2}.*\n)+?(?=attentionChecks)/, 'items:\n  mode: explicit\n  list:\n    - { utterance: metaset:u1, systemA: alpha, systemB: beta }\n');
    expect(problems(catchParse(explicit))).toEqual([
      `study.yaml:${lineOf(explicit, 'systemA')}:7 items.list[0].system: required`,
      `study.yaml:${lineOf(explicit, 'systemA')}:41 items.list[0].systemA: is an option of pair studies (trial: { kind: pair }); in a rating study this takes utterance, system`,
      `study.yaml:${lineOf(explicit, 'systemA')}:57 items.list[0].systemB: is an option of pair studies (trial: { kind: pair }); in a rating study this takes utterance, system`,
    ]);
  });

  it('refuses rating-only options in a pair study', () => {
    const yaml = `${header}items:
  mode: explicit
  list:
    - { utterance: metaset:u1, system: alpha }
practice:
  - { utterance: metaset:u2, correct: A voice., wrong: Silence., score: 5 }
design: { kind: crossed }
exclusion: { minListenerCorrelation: 0.2 }
`;
    const lines = problems(catchParse(yaml));
    expect(lines).toContain(
      `study.yaml:${lineOf(yaml, 'system: alpha')}:40 items.list[0].system: is an option of rating studies (trial: { kind: rating }); in a pair study this takes utterance, systemA, systemB`,
    );
    expect(lines).toContain(
      `study.yaml:${lineOf(yaml, 'score: 5')}:73 practice[0].score: is an option of rating studies (trial: { kind: rating }); in a pair study this takes utterance, correct, wrong`,
    );
    expect(lines).toContain(
      `study.yaml:${lineOf(yaml, 'minListenerCorrelation')}:38 exclusion.minListenerCorrelation: correlates a listener's scores with the panel's: only rating studies (trial: { kind: rating }) take it`,
    );
    // A key neither kind knows stays an unknown key.
    expect(problems(catchParse(yaml.replace('score: 5', 'colour: red')))).toContain(`study.yaml:${lineOf(yaml, 'score: 5')}:66 practice[0].colour: unknown key`);
  });

  it('refuses scores off the scale, captionless checks where captions are shown, and generated checks where none are', () => {
    const offScale = sampled.replace('    score: 5\n', '    score: 6\n');
    expect(problems(catchParse(offScale))).toEqual([`study.yaml:${lineOf(offScale, 'score: 6')}:12 practice[0].score: must be on the study's scale: 1 to 5 (trial.scale.points)`]);

    const noCaption = sampled.replace('    caption: A voice speaks.\n', '');
    expect(problems(catchParse(noCaption))).toEqual([
      `study.yaml:${lineOf(noCaption, 'utterance: metaset:u39')}:5 practice[0]: needs a caption: this study shows a caption with every clip (trial.caption: true), so a practice trial without one would stand out`,
    ]);

    // A wrong scale is named, and the items are still checked against the kind the study names.
    const sixPoints = sampled.replace('scale: { points: 5 }', 'scale: { points: 6 }').replace('  maxPerUtterance: 2\n', '  maxPerUtterance: 2\n  buckets: 3\n');
    expect(problems(catchParse(sixPoints))).toEqual([
      `study.yaml:${lineOf(sixPoints, 'points: 6')}:20 trial.scale.points: a scale has 5 or 7 points`,
      `study.yaml:${lineOf(sixPoints, 'buckets: 3')}:12 items.buckets: is an option of pair studies (trial: { kind: pair }); in a rating study this takes mode, count, systems, utterances, minPerSystem, maxPerUtterance`,
    ]);

    const audioOnly = sampled.replace('  caption: true\n', '  caption: false\n');
    expect(problems(catchParse(audioOnly))).toEqual([
      `study.yaml:${lineOf(audioOnly, 'mode: generated')}:9 attentionChecks.mode: generated checks show a wrongly described clip, so they need trial.caption: true; for audio-only ratings list explicit checks (mode: explicit)`,
    ]);
  });

  it('accepts what each kind takes and keeps a stored rating definition valid', () => {
    const { definition } = parseStudyYaml(sampled);
    expect(definition.trial).toEqual({ kind: 'rating', scale: { points: 5 }, caption: true });
    expect(definition.exclusion.minListenerCorrelation).toBe(0.3);
    expect(definition.items).toEqual({ mode: 'sample', count: 30, systems: SYSTEMS, minPerSystem: 6, maxPerUtterance: 2 });
    expect(parseStudyYaml(JSON.stringify(definition)).definition).toEqual(definition);
  });
});

function catchParse(yaml: string): unknown {
  try {
    parseStudyYaml(yaml);
  } catch (error) {
    return error;
  }
  throw new Error('expected the definition to be refused');
}

describe('sampleRatedCaptions', () => {
  const pool = (nSystems: number, nUtterances: number) => {
    const systems = Array.from({ length: nSystems }, (_, i) => `s${i}`);
    return { systems, captions: Array.from({ length: nUtterances }, (_, u) => systems.map((system) => ({ utteranceId: `u${u}`, system, score: null }))).flat() };
  };
  /** The guarantees of a drawn sample: count distinct captions, every system ≥ k, no clip over maxPerUtterance, seeded. */
  const checkSample = (systems: string[], nUtterances: number, options: { count: number; minPerSystem: number; maxPerUtterance: number; seed: number }, run: () => ReturnType<typeof sampleRatedCaptions>) => {
    const { items, summary } = run();
    expect(items).toHaveLength(options.count);
    for (const s of systems) expect(items.filter((i) => i.system === s).length).toBeGreaterThanOrEqual(options.minPerSystem);
    for (let u = 0; u < nUtterances; u++) expect(items.filter((i) => i.utteranceId === `u${u}`).length).toBeLessThanOrEqual(options.maxPerUtterance);
    expect(new Set(items.map((i) => `${i.utteranceId} ${i.system}`)).size).toBe(options.count);
    expect(summary.perSystem).toEqual(Object.fromEntries(systems.map((s) => [s, items.filter((i) => i.system === s).length])));
    expect(run()).toEqual({ items, summary });
  };
  const sizes = [fc.integer({ min: 2, max: 8 }), fc.integer({ min: 3, max: 40 }), fc.integer({ min: 1, max: 4 }), fc.integer()] as const;

  it('with half the clips\' capacity to spare, always covers every system k = count / systems times, within maxPerUtterance, deterministically', () => {
    fc.assert(
      fc.property(...sizes, (nSystems, nUtterances, maxPerUtterance, seed) => {
        const { systems, captions } = pool(nSystems, nUtterances);
        const count = Math.max(1, Math.floor((nUtterances * Math.min(maxPerUtterance, nSystems)) / 2));
        const options = { count, minPerSystem: Math.floor(count / nSystems), maxPerUtterance, seed };
        checkSample(systems, nUtterances, options, () => sampleRatedCaptions(captions, systems, options));
      }),
      { numRuns: 200 },
    );
  });

  it('asked for every caption slot there is, draws a valid sample or refuses naming minPerSystem (greedy, as the pair sampler)', () => {
    fc.assert(
      fc.property(...sizes, (nSystems, nUtterances, maxPerUtterance, seed) => {
        const { systems, captions } = pool(nSystems, nUtterances);
        const count = nUtterances * Math.min(maxPerUtterance, nSystems);
        const options = { count, minPerSystem: Math.floor(count / nSystems), maxPerUtterance, seed };
        try {
          sampleRatedCaptions(captions, systems, options);
        } catch (error) {
          expect((error as Error).message).toMatch(/cannot reach minPerSystem/);
          return;
        }
        checkSample(systems, nUtterances, options, () => sampleRatedCaptions(captions, systems, options));
      }),
      { numRuns: 200 },
    );
  });

  it('says what cannot be drawn', () => {
    const captions = ['u0', 'u1'].flatMap((utteranceId) => ['a', 'b'].map((system) => ({ utteranceId, system, score: null })));
    expect(() => sampleRatedCaptions(captions, ['a', 'b'], { count: 5, minPerSystem: 1, maxPerUtterance: 3, seed: 1 })).toThrow(/only 4 captions exist/);
    expect(() => sampleRatedCaptions(captions, ['a', 'b'], { count: 3, minPerSystem: 1, maxPerUtterance: 1, seed: 1 })).toThrow(/with maxPerUtterance 1 at most 2 can be drawn from 2 utterances/);
  });
});

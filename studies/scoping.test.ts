/**
 * A study uses only what it names, and two studies in one data dir never change each other
 * (issue 10 item 2, issue 12 item 4). Real SQLite files, the real importers, the real exporter.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { writeWav, sine } from '../audio-manifest/test/audio';
import { importRavdess } from '../audio-manifest/ravdess';
import { importVoxreasonFile, describePlan } from '../audio-manifest/voxreason';
import { bundleFiles } from '../server/bundle';
import { openDatabase, type Db } from '../db/open';
import { exportRepository } from '../server/store/export';
import { setStudyStatus } from './build';
import { assignTrials } from './design';
import { main } from '../server/cli/study';
import { describeError, loadStudyDir, validateStudyDir } from './load';
import { readMaterial } from './material';
import { insertListener, rowCounts, voteAll } from './test-support';
import { exportAtAnyMoment } from '../server/testing/export-time';

const DEMO = fileURLToPath(new URL('./demo/', import.meta.url));
const SAMPLES = fileURLToPath(new URL('../../shared/samples/', import.meta.url));

const scratch: string[] = [];
afterAll(() => scratch.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'earmark-scoping-'));
  scratch.push(dir);
  return dir;
}

/** The demo study copied to `<data>/studies/<name>`, its audio included (the studio's layout). */
function copyDemo(data: string, name: string): string {
  const dir = join(data, 'studies', name);
  cpSync(DEMO, dir, { recursive: true });
  return dir;
}

/** Every file under a folder with its size and content: what "nothing was written" is checked against. */
function snapshotFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) visit(full);
      else out[relative(dir, full)] = `${statSync(full).size}:${statSync(full).mtimeMs}:${readFileSync(full).toString('base64').slice(0, 64)}`;
    }
  };
  visit(dir);
  return out;
}

function exportText(db: Db, studyId: string): string {
  return JSON.stringify(exportAtAnyMoment(bundleFiles(exportRepository(db).rows(studyId))));
}

describe('two studies in one data dir', () => {
  it("building and validating study B leaves study A's captions, judge scores and items exactly as they were", async () => {
    const data = tempDir();
    const db = openDatabase(join(data, 'earmark.db'), { synchronous: 'OFF' });
    try {
      const a = copyDemo(data, 'study-a');
      const built = await loadStudyDir(db, a, { dataDir: data });
      expect(built.summary.action).toBe('created');
      setStudyStatus(db, 'study-a', 'open');
      for (const id of ['L1', 'L2']) {
        insertListener(db, 'study-a', id);
        assignTrials(db, 'study-a', id);
        voteAll(db, id);
      }
      const before = exportText(db, 'study-a');
      const itemsBefore = db.prepare("SELECT * FROM items WHERE study_id = 'study-a' ORDER BY seq").all();
      expect(JSON.parse(before)['judge_scores.csv'].split('\r\n').length).toBeGreaterThan(10);

      // B: the same systems and clips, another caption wording and other judge files (a CSV
      // that scores every caption 1, with another run of the same judge names).
      const b = copyDemo(data, 'study-b');
      const lyra = JSON.parse(readFileSync(join(b, 'captions/lyra.json'), 'utf8')) as { generated_captions: Record<string, { generated_caption: string }> }[];
      for (const record of lyra) for (const c of Object.values(record.generated_captions)) c.generated_caption = `B's rewording: ${c.generated_caption}`;
      writeFileSync(join(b, 'captions/lyra.json'), JSON.stringify(lyra));
      for (const f of readdirSync(join(b, 'judges'))) {
        const out = JSON.parse(readFileSync(join(b, 'judges', f), 'utf8')) as { individual_results: { similarity_score: number }[] };
        for (const r of out.individual_results) r.similarity_score = 1;
        writeFileSync(join(b, 'judges', f), JSON.stringify(out));
      }
      await validateStudyDir(db, b, { dataDir: data });
      const builtB = await loadStudyDir(db, b, { dataDir: data });
      expect(builtB.summary.action).toBe('created');
      await validateStudyDir(db, b, { dataDir: data });

      // The manifest's shared tables did change (last import wins): the study's own copy did not.
      expect(db.prepare("SELECT count(*) AS n FROM judge_scores WHERE score != 1").get()).toEqual({ n: 0 });
      expect(exportText(db, 'study-a')).toBe(before);
      expect(db.prepare("SELECT * FROM items WHERE study_id = 'study-a' ORDER BY seq").all()).toEqual(itemsBefore);
      // B exports its own material: its judge files' scores, its own caption wording.
      const exportB = JSON.parse(exportText(db, 'study-b'));
      const scoresB = exportB['judge_scores.csv'].trim().split('\r\n').slice(1).map((l: string) => l.split(',').at(-1));
      expect(new Set(scoresB)).toEqual(new Set(['1']));
      const captionsB = db.prepare("SELECT caption_a AS a, caption_b AS b, system_a AS sa, system_b AS sb FROM items WHERE study_id = 'study-b' AND kind = 'pair'").all() as { a: string; b: string; sa: string; sb: string }[];
      const lyraCaptions = captionsB.flatMap((i) => [i.sa === 'lyra' ? i.a : null, i.sb === 'lyra' ? i.b : null]).filter((c) => c !== null);
      expect(lyraCaptions.length).toBeGreaterThan(0);
      expect(lyraCaptions.every((c) => c.startsWith("B's rewording: "))).toBe(true);
      // Rebuilding A after B (the server does so on every start) changes nothing either.
      expect((await loadStudyDir(db, a, { dataDir: data })).summary.action).toBe('unchanged');
      expect(exportText(db, 'study-a')).toBe(before);
    } finally {
      db.close();
    }
  });

  it('validate writes nothing: every table and every file of the data dir are as they were', async () => {
    const data = tempDir();
    const a = copyDemo(data, 'study-a');
    const db = openDatabase(join(data, 'earmark.db'), { synchronous: 'OFF' });
    await loadStudyDir(db, a, { dataDir: data });
    const b = copyDemo(data, 'study-b');
    writeFileSync(join(b, 'judges/extra__judge-gamma__run1.json'), JSON.stringify({ individual_results: [{ wav_path: 'demo/demo-01.wav', similarity_score: 3 }] }));
    const counts = rowCounts(db);
    db.close();
    const files = snapshotFiles(data);
    expect(await main(['validate', b, '--data', data])).toBe(0);
    expect(snapshotFiles(data)).toEqual(files);
    const after = openDatabase(join(data, 'earmark.db'), { readonly: true });
    try {
      expect(rowCounts(after)).toEqual(counts);
    } finally {
      after.close();
    }
  });
});

describe('validate on a fresh data dir', () => {
  it('passes for the demo and every template, and creates no data dir', async () => {
    const data = join(tempDir(), 'fresh');
    const templates = readdirSync(fileURLToPath(new URL('./templates/', import.meta.url))).filter((f) => f.endsWith('.yaml'));
    expect(templates.length).toBeGreaterThanOrEqual(3);
    for (const name of ['demo', ...templates.map((t) => `templates/${t}`)]) expect(await main(['validate', name, '--data', data]), name).toBe(0);
    expect(() => statSync(data)).toThrow();
  });

  it('points at the line and column of a broken caption file, says what format was expected and where it is documented', async () => {
    const data = tempDir();
    const dir = copyDemo(data, 'broken');
    const validate = async () => describeError(await validateStudyDir(openDatabase(':memory:'), dir, { dataDir: data }).then(() => null, (e: unknown) => e));

    // A CSV where JSON is expected.
    writeFileSync(join(dir, 'captions/lyra.json'), 'wav_path,caption\ndemo/demo-01.wav,SECRET-CAPTION-TEXT\n');
    let message = await validate();
    expect(message).toBe(
      'captions/lyra.json:1:1 (top level): is not JSON: it looks like CSV (expected a JSON array of caption records ({ "wav_path", "generated_captions", "metadata" }); see studies/README.md#caption-files-metaset)',
    );
    expect(message).not.toContain('SECRET');

    // A JSON syntax error on line 4: the line and column of the mistake.
    writeFileSync(join(dir, 'captions/lyra.json'), '[\n  {\n    "wav_path": "demo/demo-01.wav",\n    "status" "SECRET"\n  }\n]\n');
    message = await validate();
    expect(message).toMatch(/^captions\/lyra\.json:4:\d+ \(top level\): is not valid JSON \(expected a JSON array/);
    expect(message).not.toContain('SECRET');

    // A record that parses but lacks a field: the line of that record.
    const records = JSON.parse(readFileSync(join(DEMO, 'captions/lyra.json'), 'utf8')) as Record<string, unknown>[];
    delete records[2].metadata;
    writeFileSync(join(dir, 'captions/lyra.json'), JSON.stringify(records, null, 2));
    const line = JSON.stringify(records, null, 2).split('\n').findIndex((l, i, all) => l === '  {' && all.slice(0, i).filter((x) => x === '  {').length === 2) + 1;
    message = await validate();
    expect(message).toMatch(new RegExp(`^captions/lyra\\.json:${line}:3 record 2: metadata: .*see studies/README\\.md#caption-files-metaset\\)$`));

    // Through the CLI: exit 1, the same line.
    expect(await main(['validate', dir, '--data', data])).toBe(1);
  });
});

/* ---- items come only from the declared sources ---- */

const EMOTIONS: Record<string, string> = { '01': 'neutral', '02': 'calm', '03': 'happy', '04': 'sad', '05': 'angry' };

function plan(stem: string, caseNote: string) {
  const emotion = EMOTIONS[stem.slice(6, 8)];
  const gold = { emotion, intent: 'inform', pitch: 'mid', energy: 'medium', rate: 'moderate', pause: 'short', stance: emotion, emphasis: [] as string[] };
  const caseId = `ravdess_${stem.replace(/-/g, '_')}`;
  return {
    case_id: caseId,
    target_text: caseNote,
    gold_plan: gold,
    counterfactuals: [{ edit_id: `${caseId}_pitch_up`, expected_plan_delta: { pitch: 'raised', energy: 'high' } }],
    metadata: { source_record_id: stem },
  };
}

/** A RAVDESS folder in the real layout (Actor_XX/MM-VV-EE-II-SS-RR-AA.wav). */
function ravdessFolder(dir: string, stems: string[]): void {
  stems.forEach((stem, n) => writeWav(join(dir, `Actor_${stem.slice(-2)}`, `${stem}.wav`), { sampleRate: 16000, channels: [sine(0.2, 16000, 200 + 20 * n, 0.4)] }));
}

const studyYaml = (ravdess: string, cases: string, count: number) => `title: Plans
consent: I agree.
instructions: Listen and choose.
question: Which plan fits the recording?
sources:
  - { kind: ravdess, dir: ${ravdess} }
  - { kind: voxreason, file: ${cases} }
task: delivery_plan
items:
  mode: sample
  count: ${count}
  systems: [voxreason-gold, "voxreason-cf:*"]
  anchorSystem: voxreason-gold
  minPerSystem: 1
  judge: none
  maxPerUtterance: 1
design: { kind: crossed }
targetListeners: 2
completion: { code: PLANS }
seed: 3
`;

/** Every item's clip lies in the declared folder and its captions are the declared plans. */
function expectFromDeclared(db: Db, studyId: string, ravdessDir: string, casesText: string): void {
  const declared = new Map<string, string>();
  for (const line of casesText.split('\n').filter(Boolean)) {
    const c = JSON.parse(line) as ReturnType<typeof plan>;
    declared.set(`ravdess:${c.metadata.source_record_id}\u0000voxreason-gold`, describePlan(c.gold_plan));
  }
  const items = db
    .prepare(
      `SELECT i.kind, i.utterance_id AS u, i.system_a AS sa, i.system_b AS sb, i.caption_a AS ca, i.caption_b AS cb, c.abs_path AS path
         FROM items i JOIN clips c ON c.id = i.clip_id WHERE i.study_id = ?`,
    )
    .all(studyId) as { kind: string; u: string; sa: string; sb: string; ca: string; cb: string; path: string }[];
  expect(items.length).toBeGreaterThan(0);
  for (const item of items) {
    expect(relative(ravdessDir, item.path).startsWith('..'), item.path).toBe(false);
    const gold = item.sa === 'voxreason-gold' ? item.ca : item.cb;
    expect(gold).toBe(declared.get(`${item.u}\u0000voxreason-gold`));
  }
}

describe('a study uses only what it names', () => {
  it('draws items only from its RAVDESS folder and plan file, though the data dir holds other clips and plans of the same systems', async () => {
    const data = tempDir();
    const corpora = tempDir();
    const db = openDatabase(join(data, 'earmark.db'), { synchronous: 'OFF' });
    try {
      // Other material already imported: more RAVDESS clips with plans under the same system names.
      const other = join(corpora, 'other/RAVDESS');
      const otherStems = ['03-01-03-01-01-01-05', '03-01-04-01-01-01-06', '03-01-05-01-01-01-07', '03-01-02-01-01-01-08'];
      ravdessFolder(other, otherStems);
      await importRavdess(db, other);
      const otherCases = join(corpora, 'other/cases.jsonl');
      writeFileSync(otherCases, otherStems.map((s) => JSON.stringify(plan(s, 'other material'))).join('\n'));
      expect(importVoxreasonFile(db, otherCases).counts.cases).toBe(4);

      // The study's own corpus subset: 4 clips, and plans for 6 (2 clips are not in this subset).
      const mine = join(corpora, 'mine/RAVDESS');
      const myStems = ['03-01-03-01-01-01-01', '03-01-04-01-02-01-02', '03-01-05-01-01-02-03', '03-01-02-01-02-02-04'];
      ravdessFolder(mine, myStems);
      // A stray recording that is not a corpus clip: skipped with a note, not a refusal.
      writeWav(join(mine, 'Actor_01', 'room-tone.wav'), { sampleRate: 16000, channels: [sine(0.1, 16000, 100, 0.1)] });
      const casesText = [...myStems, '03-01-03-02-01-01-09', '03-01-04-02-01-01-10'].map((s) => JSON.stringify(plan(s, 'declared'))).join('\n');
      mkdirSync(join(corpora, 'mine/voxreason'));
      writeFileSync(join(corpora, 'mine/voxreason/cases.jsonl'), casesText);
      const dir = join(data, 'studies', 'plans');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'study.yaml'), studyYaml(mine, join(corpora, 'mine/voxreason/cases.jsonl'), 4));

      // Outside the roots until the corpora folder is configured.
      const refused = await loadStudyDir(db, dir, { dataDir: data, corpora: [] }).catch((e: unknown) => e);
      expect(describeError(refused)).toMatch(/sources\[0\]\.dir: .* is outside the corpus roots/);

      const { summary } = await loadStudyDir(db, dir, { dataDir: data, corpora: [corpora] });
      expect(summary.items.pair).toBe(4);
      expect(summary.notes).toEqual([
        `${mine}: 1 file skipped: file name is not seven two-digit fields MM-VV-EE-II-SS-RR-AA (expected a RAVDESS folder: Actor_XX/MM-VV-EE-II-SS-RR-AA.wav; see studies/README.md#ravdess-folders)`,
        `${join(corpora, 'mine/voxreason/cases.jsonl')}: 2 plans skipped: clip not in the manifest`,
      ]);
      expectFromDeclared(db, 'plans', mine, casesText);
      // Asking for more than the declared sources hold is refused, though the manifest holds 8 clips with plans.
      writeFileSync(join(dir, 'study.yaml'), studyYaml(mine, join(corpora, 'mine/voxreason/cases.jsonl'), 6));
      const tooMany = await loadStudyDir(db, dir, { dataDir: data, corpora: [corpora] }).catch((e: unknown) => e);
      expect(describeError(tooMany)).toMatch(/items\.count: asked for 6 items but only 4 caption pairs/);
    } finally {
      db.close();
    }
  });

  it.skipIf(!existsDir(SAMPLES))('builds from the sample RAVDESS clips and VoxReason plans, in a data dir holding other material', async () => {
    const data = tempDir();
    const db = openDatabase(join(data, 'earmark.db'), { synchronous: 'OFF' });
    try {
      // Other imported material: the demo study, and plans for sample clips under another study's file.
      await loadStudyDir(db, copyDemo(data, 'demo-copy'), { dataDir: data });
      const ravdess = join(SAMPLES, 'ravdess');
      const splits = join(SAMPLES, 'voxreason/data/benchmark/source_label/splits');
      const dir = join(data, 'studies', 'sample-plans');
      mkdirSync(dir, { recursive: true });
      // The dev split only: the other splits' plans are in the manifest once imported, never in this study.
      await importRavdess(db, ravdess);
      for (const f of readdirSync(splits)) importVoxreasonFile(db, join(splits, f));
      const casesText = readFileSync(join(splits, 'dev_cases_public.jsonl'), 'utf8');
      const inSamples = casesText.split('\n').filter(Boolean).filter((l) => {
        const stem = (JSON.parse(l) as { metadata: { source_record_id: string } }).metadata.source_record_id;
        return readdirSync(ravdess).some((actor) => readdirSync(join(ravdess, actor)).includes(`${stem}.wav`));
      });
      expect(inSamples.length).toBeGreaterThan(1);
      writeFileSync(join(dir, 'study.yaml'), studyYaml(ravdess, join(splits, 'dev_cases_public.jsonl'), 2).replace('minPerSystem: 1', 'minPerSystem: 1\n  utterances: { corpus: ravdess }'));
      const { summary } = await loadStudyDir(db, dir, { dataDir: data, corpora: [SAMPLES] });
      expect(summary.items.pair).toBe(2);
      expect(summary.notes.join('\n')).toMatch(/\d+ plans skipped: clip not in the manifest/);
      const items = db.prepare("SELECT utterance_id AS u FROM items WHERE study_id = 'sample-plans'").pluck().all() as string[];
      const declared = new Set(inSamples.map((l) => `ravdess:${(JSON.parse(l) as { metadata: { source_record_id: string } }).metadata.source_record_id}`));
      for (const u of items) expect(declared.has(u), u).toBe(true);
      const goldCaptions = db.prepare("SELECT caption_a, caption_b, system_a FROM items WHERE study_id = 'sample-plans'").all() as { caption_a: string; caption_b: string; system_a: string }[];
      for (const g of goldCaptions) expect(g.system_a === 'voxreason-gold' ? g.caption_a : g.caption_b).toMatch(/^[A-Z]/);
    } finally {
      db.close();
    }
  });
});

function existsDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

describe('studies/README.md', () => {
  it("documents each source format with an example that reads as documented", async () => {
    const readme = readFileSync(fileURLToPath(new URL('./README.md', import.meta.url)), 'utf8');
    const example = (heading: string, lang: string) => {
      const section = readme.split(`### ${heading}`)[1].split('\n### ')[0];
      return section.split(`\`\`\`${lang}\n`)[1].split('\n\`\`\`')[0];
    };
    const dir = tempDir();
    mkdirSync(join(dir, 'audio'));
    writeFileSync(join(dir, 'lyra.json'), example('Caption files (metaset)', 'json'));
    writeFileSync(join(dir, 'lyra__judge-alpha__run1.json'), example('Judge outputs', 'json'));
    writeFileSync(join(dir, 'scores.csv'), example('Judge outputs', 'csv'));
    writeFileSync(join(dir, 'cases.jsonl'), example('VoxReason plans', 'json'));
    const layout = example('RAVDESS folders', '').split('\n').filter(Boolean).map((l) => l.replace('corpus/RAVDESS/', ''));
    layout.forEach((file, n) => writeWav(join(dir, 'RAVDESS', file), { sampleRate: 16000, channels: [sine(0.1, 16000, 300 + n, 0.3)] }));
    const material = await readMaterial(
      [
        { kind: 'ravdess', dir: join(dir, 'RAVDESS') },
        { kind: 'metaset', file: join(dir, 'lyra.json'), system: 'lyra', audioRoot: join(dir, 'audio') },
        { kind: 'voxreason', file: join(dir, 'cases.jsonl') },
        { kind: 'judge', file: join(dir, 'lyra__judge-alpha__run1.json') },
        { kind: 'judge', file: join(dir, 'scores.csv') },
      ],
      { roots: [dir], studyDir: dir },
    );
    expect(material.notes).toEqual([]);
    expect([...material.utterances.keys()].sort()).toEqual(['metaset:demo/demo-01.wav', 'ravdess:03-01-02-01-02-01-02', 'ravdess:03-01-05-02-01-01-01']);
    expect(material.captions.map((c) => `${c.utteranceId} ${c.system} ${c.task}`).sort()).toEqual([
      'metaset:demo/demo-01.wav lyra holistic_creative_synthesis',
      'metaset:demo/demo-01.wav oracle holistic_creative_synthesis',
      'ravdess:03-01-05-02-01-01-01 voxreason-cf:emotion_to_neutral delivery_plan',
      'ravdess:03-01-05-02-01-01-01 voxreason-gold delivery_plan',
    ]);
    // The JSON and the CSV score the same caption, judge and run: one score, as in the manifest.
    expect(material.judgeScores).toEqual([{ utteranceId: 'metaset:demo/demo-01.wav', system: 'lyra', judge: 'judge-alpha', run: 'run1', score: 7 }]);
  });
});

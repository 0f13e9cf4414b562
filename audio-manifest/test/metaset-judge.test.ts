import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listClips } from '../clips';
import { importJudgeFile } from '../judge';
import { importMetasetFile } from '../metaset';
import { writeTone } from './audio';
import { count, tempManifest } from './db';

const INSTRUCTION = 'Combine all the elements of the speaker style into one caption.';
function record(source: string, rel: string, caption: string, extra: Record<string, unknown> = {}) {
  return {
    wav_path: `/path/to/project/data/eval_set/${source}/${rel}`,
    status: 'success',
    generated_captions: {
      speaker_idiosyncratic_style: { used_instruction: 'Describe the voice.', generated_caption: `${caption} (voice)` },
      holistic_creative_synthesis: { used_instruction: INSTRUCTION, generated_caption: caption },
    },
    metadata: {
      source, relative_audio_path: rel, speakerid: 'p026', transcription: ' oh my goodness ', gender: 'female',
      accent: 'american', pitch: 'high-pitched', speaking_rate: 'measured speed', intrinsic_tags: ['crisp'],
      holistic_creative_synthesis: `Oracle: ${rel}`, holistic_creative_synthesis_instruction: INSTRUCTION,
      speaker_idiosyncratic_style: `Oracle voice: ${rel}`, ...extra,
    },
  };
}

describe('MetaSet caption files and judge outputs', () => {
  let env: ReturnType<typeof tempManifest>;
  let audioRoot: string;
  const lines: string[] = [];
  const writeJson = (name: string, value: unknown): string => {
    const file = join(env.dir, name);
    writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  };
  beforeEach(() => {
    env = tempManifest();
    lines.length = 0;
    audioRoot = join(env.dir, 'eval_set');
    writeTone(join(audioRoot, 'ears/p026/emo_relief_freeform.wav'));
    writeTone(join(audioRoot, 'expresso/audio_48khz/read/ex04/laughing/base/ex04_laughing_00081.wav'));
    mkdirSync(join(env.dir, 'etc'), { recursive: true });
    writeFileSync(join(env.dir, 'etc/passwd'), 'root:x:0:0');
  });
  afterEach(() => env.cleanup());

  it('imports utterances, system and oracle captions, and clips resolved under --audio-root', async () => {
    const file = writeJson('lyra.json', [
      record('ears', 'p026/emo_relief_freeform.wav', 'A calm female voice.'),
      // Expresso rows name the path under the source folder, so it resolves only as source/relative.
      record('expresso', 'audio_48khz/read/ex04/laughing/base/ex04_laughing_00081.wav', 'A laughing voice.'),
      record('vctk', 'p999/p999_001.wav', 'Nobody.'),
    ]);
    const report = await importMetasetFile(env.db, file, { system: 'lyra', audioRoot, onFailure: (l) => lines.push(l) });
    expect(lines).toEqual([`${file} [record 2]: warning: audio "p999/p999_001.wav" not found under ${audioRoot}; captions imported without a clip`]);
    expect(report.imported).toBe(2);
    expect(count(env.db, "SELECT COUNT(*) AS n FROM captions WHERE utterance_id = 'metaset:vctk/p999/p999_001.wav'")).toBe(4);
    const captions = env.db.prepare("SELECT system, task, text FROM captions WHERE utterance_id = 'metaset:ears/p026/emo_relief_freeform.wav' ORDER BY system, task").all();
    expect(captions).toEqual([
      { system: 'lyra', task: 'holistic_creative_synthesis', text: 'A calm female voice.' },
      { system: 'lyra', task: 'speaker_idiosyncratic_style', text: 'A calm female voice. (voice)' },
      { system: 'oracle', task: 'holistic_creative_synthesis', text: 'Oracle: p026/emo_relief_freeform.wav' },
      { system: 'oracle', task: 'speaker_idiosyncratic_style', text: 'Oracle voice: p026/emo_relief_freeform.wav' },
    ]);
    const utterance = env.db.prepare("SELECT * FROM utterances WHERE id = 'metaset:ears/p026/emo_relief_freeform.wav'").get() as Record<string, string>;
    expect(utterance.transcript).toBe('oh my goodness');
    expect(JSON.parse(utterance.labels)).toMatchObject({ source: 'ears', gender: 'female', accent: 'american', intrinsic_tags: ['crisp'] });
    expect(utterance.clip_id).toBe(listClips(env.db)[0].id);
    expect(listClips(env.db).map((c) => c.path)).toEqual([
      'ears/p026/emo_relief_freeform.wav', 'expresso/audio_48khz/read/ex04/laughing/base/ex04_laughing_00081.wav',
    ]);

    // A second system's file for the same utterances adds captions, not utterances or clips.
    const second = writeJson('parrot.json', [record('ears', 'p026/emo_relief_freeform.wav', 'A man shouting.')]);
    const again = await importMetasetFile(env.db, second, { system: 'parrot-7b', audioRoot });
    expect([again.imported, again.unchanged]).toEqual([0, 1]);
    expect(count(env.db, 'SELECT COUNT(*) AS n FROM utterances')).toBe(3);
    expect(count(env.db, "SELECT COUNT(*) AS n FROM captions WHERE system = 'parrot-7b'")).toBe(2);
  });

  it('refuses bad caption files and records, one line each, and keeps the good records', async () => {
    const notArray = writeJson('object.json', { wav_path: 'x' });
    const broken = writeJson('broken.json', '[{"wav_path": ');
    const missing = join(env.dir, 'missing.json');
    const mixed = writeJson('mixed.json', [
      record('ears', '../../etc/passwd', 'Traversal.'),
      record('ears', '/etc/passwd', 'Absolute.'),
      { ...record('ears', 'p026/emo_relief_freeform.wav', 'x'), metadata: { relative_audio_path: 'a.wav' } },
      { ...record('ears', 'p026/emo_relief_freeform.wav', 'x'), generated_captions: { holistic_creative_synthesis: { generated_caption: '  ' } } },
      { ...record('ears', 'p026/emo_relief_freeform.wav', 'x'), generated_captions: { summary: { generated_caption: 'hi' } } },
      { ...record('ears', 'p026/emo_relief_freeform.wav', 'Failed run.'), status: 'error' },
      record('ears', 'p026/emo_relief_freeform.wav', 'A calm female voice.'),
    ]);
    for (const file of [notArray, broken, missing, mixed]) {
      await importMetasetFile(env.db, file, { system: 'lyra', audioRoot, onFailure: (l) => lines.push(l) });
    }
    expect(lines).toEqual([
      `${notArray}: not a MetaSet caption file: expected a JSON array of caption records`,
      expect.stringMatching(new RegExp(`^${broken}: not a MetaSet caption file: .*JSON`)),
      `${missing}: not a MetaSet caption file: file not found`,
      `${mixed} [record 0]: metadata.relative_audio_path "../../etc/passwd" points outside --audio-root; record refused`,
      `${mixed} [record 1]: metadata.relative_audio_path "/etc/passwd" points outside --audio-root; record refused`,
      `${mixed} [record 2]: metadata.source: Invalid input: expected string, received undefined`,
      `${mixed} [record 3]: generated_captions.holistic_creative_synthesis.generated_caption: is empty`,
      `${mixed} [record 4]: generated_captions.summary: is not a known caption task`,
      `${mixed} [metaset:ears/p026/emo_relief_freeform.wav]: status is "error"; lyra's captions skipped`,
    ]);
    expect(env.db.prepare("SELECT text FROM captions WHERE system = 'lyra' AND task = 'holistic_creative_synthesis'").all()).toEqual([{ text: 'A calm female voice.' }]);
    expect(count(env.db, "SELECT COUNT(*) AS n FROM clips WHERE abs_path LIKE '%passwd%'")).toBe(0);
  });

  it('imports judge JSON (0 = unparsed → missing) and CSV, and refuses rows it cannot place', async () => {
    await importMetasetFile(env.db, writeJson('lyra.json', [
      record('ears', 'p026/emo_relief_freeform.wav', 'A calm female voice.'),
      record('expresso', 'audio_48khz/read/ex04/laughing/base/ex04_laughing_00081.wav', 'A laughing voice.'),
    ]), { system: 'lyra', audioRoot });
    const results = writeJson('lyra__gpt-judge__run1.json', {
      aggregated_results: { mean: 6 },
      individual_results: [
        { index: 0, wav_path: '/path/to/project/data/eval_set/ears/p026/emo_relief_freeform.wav', similarity_score: 7, justification: 'ok' },
        // Same utterance run on another machine: matched by source/relative_audio_path at the end.
        { index: 1, wav_path: '/mnt/other/expresso/audio_48khz/read/ex04/laughing/base/ex04_laughing_00081.wav', similarity_score: 0, justification: 'unparsable' },
        { index: 2, wav_path: '/path/to/project/data/eval_set/ears/p999/unknown.wav', similarity_score: 5 },
        { index: 3, wav_path: '/x.wav', similarity_score: 'high' },
      ],
      failed_log: [],
    });
    const report = importJudgeFile(env.db, results, { onFailure: (l) => lines.push(l) });
    expect(report.counts).toEqual({ 'judge scores': 1, 'missing scores': 1 });
    expect(lines).toEqual([
      `${results} [result 2]: no imported utterance has wav_path /path/to/project/data/eval_set/ears/p999/unknown.wav (import its caption file first)`,
      `${results} [result 3]: similarity_score: Invalid input: expected number, received string`,
    ]);
    expect(env.db.prepare('SELECT utterance_id, system, judge, run, score FROM judge_scores').all()).toEqual([
      { utterance_id: 'metaset:ears/p026/emo_relief_freeform.wav', system: 'lyra', judge: 'gpt-judge', run: 'run1', score: 7 },
    ]);
    // Re-import replaces, never duplicates.
    importJudgeFile(env.db, results);
    expect(count(env.db, 'SELECT COUNT(*) AS n FROM judge_scores')).toBe(1);

    lines.length = 0;
    const noIdentity = writeJson('results.json', { individual_results: [] });
    importJudgeFile(env.db, noIdentity, { onFailure: (l) => lines.push(l) });
    importJudgeFile(env.db, writeJson('bad.json', { results: [] }), { system: 'lyra', judge: 'j', run: 'r', onFailure: (l) => lines.push(l) });
    expect(lines[0]).toMatch(/results\.json: system: .*give --system, --judge and --run/);
    expect(lines[1]).toMatch(/bad\.json: not a judge output file: individual_results: expected an array/);

    lines.length = 0;
    const csv = writeJson('scores.csv', [
      'utterance_id,system,judge,run,score',
      'metaset:ears/p026/emo_relief_freeform.wav,lyra,human-like,1,8.5',
      '"metaset:audio_48khz/read/ex04/laughing/base/ex04_laughing_00081.wav",lyra,human-like,1,',
      'metaset:expresso/audio_48khz/read/ex04/laughing/base/ex04_laughing_00081.wav,lyra,human-like,1,3',
      'metaset:ears/p026/emo_relief_freeform.wav,parrot-7b,human-like,1,4',
      'metaset:ears/p026/emo_relief_freeform.wav,lyra,human-like,2,-1',
      'metaset:ears/p026/emo_relief_freeform.wav,lyra,human-like,2,abc',
      'metaset:ears/p026/emo_relief_freeform.wav,lyra,human-like',
      '',
    ].join('\n'));
    const csvReport = importJudgeFile(env.db, csv, { onFailure: (l) => lines.push(l) });
    expect(csvReport.counts).toEqual({ 'judge scores': 2 });
    expect(lines).toEqual([
      `${csv}:6: score: must not be negative`,
      `${csv}:7: score: must be a number, or empty for a missing score`,
      `${csv}:8: has 3 cells, header has 5`,
      `${csv}:3: utterance metaset:audio_48khz/read/ex04/laughing/base/ex04_laughing_00081.wav is not imported (import its caption file first)`,
      `${csv}:5: system parrot-7b has no caption for metaset:ears/p026/emo_relief_freeform.wav`,
    ]);
    const headerless = writeJson('bad.csv', 'utterance,system,score\n');
    importJudgeFile(env.db, headerless, { onFailure: (l) => lines.push(l) });
    expect(lines.at(-1)).toBe(`${headerless}:1: header lacks column(s) utterance_id, judge, run (expected utterance_id,system,judge,run,score)`);
  });
});

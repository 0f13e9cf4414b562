import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { showClip } from '../clips';
import { importDemo } from '../demo';
import { degradedSystem } from '../degrade';
import { importJudgeFile } from '../judge';
import { importMetasetFile } from '../metaset';
import { importRavdess } from '../ravdess';
import { renditionStore } from '../rendition-store';
import { importRenditions, planRenditions, UtteranceIndex } from '../renditions';
import { ImportReport } from '../report';
import { prepareStudyAudio, servedAudioDir } from '../served';
import { importVctk } from '../vctk';
import { readCanonicalWav, sine, TAGGED_ARTIST, TAGGED_TITLE, taggedWav, writeTone } from './audio';
import { count, tempManifest } from './db';

const FLAC = new URL('./fixtures/tone-16.flac', import.meta.url);
const RAVDESS = '03-01-05-01-02-01-12';

/** Everything a rendition import may write: equal before and after a refused import. */
const snapshot = (env: ReturnType<typeof tempManifest>) =>
  ['clips', 'utterances', 'renditions', 'judge_scores'].map((table) => env.db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all());

describe('renditions (system audio of an utterance)', () => {
  let env: ReturnType<typeof tempManifest>;
  let lines: string[];
  const at = (...parts: string[]) => join(env.dir, ...parts);
  const write = (rel: string, text: string): string => {
    mkdirSync(dirname(at(rel)), { recursive: true });
    writeFileSync(at(rel), text);
    return at(rel);
  };
  const flac = (rel: string): string => {
    mkdirSync(dirname(at(rel)), { recursive: true });
    copyFileSync(FLAC, at(rel));
    return at(rel);
  };
  const run = (inputs: string[], options: { system?: string } = {}) => importRenditions(env.db, inputs, { ...options, onFailure: (l) => lines.push(l) });

  // A RAVDESS clip, a VCTK 0.80 clip and a MetaSet record, as real imports bring them.
  beforeEach(async () => {
    env = tempManifest();
    lines = [];
    writeTone(at('RAVDESS', 'Actor_12', `${RAVDESS}.wav`));
    expect((await importRavdess(env.db, at('RAVDESS'))).failures).toEqual([]);
    write('VCTK/speaker-info.txt', 'ID  AGE  GENDER  ACCENTS  REGION\n225  23  F    English    Southern  England\n');
    write('VCTK/txt/p225/p225_001.txt', 'Please call Stella.\n');
    writeTone(at('VCTK', 'wav48', 'p225', 'p225_001.wav'));
    expect((await importVctk(env.db, at('VCTK'))).failures).toEqual([]);
    writeTone(at('eval', 'ears', 'p026', 'emo_relief_freeform.wav'));
    const record = {
      wav_path: '/data/eval_set/ears/p026/emo_relief_freeform.wav',
      generated_captions: { holistic_creative_synthesis: { generated_caption: 'A calm voice.' } },
      metadata: { source: 'ears', relative_audio_path: 'p026/emo_relief_freeform.wav', transcription: 'oh my goodness' },
    };
    const captions = write('lyra.json', JSON.stringify([record]));
    expect((await importMetasetFile(env.db, captions, { system: 'lyra', audioRoot: at('eval') })).failures).toEqual([]);
  });
  afterEach(() => env.cleanup());

  const UTTERANCES = { ravdess: `ravdess:${RAVDESS}`, vctk: 'vctk:p225_001', metaset: 'metaset:ears/p026/emo_relief_freeform.wav' };

  it('imports <system>/<stem> folders matched by RAVDESS, VCTK and MetaSet stems, warns once about unmatched files, and again changes nothing', async () => {
    writeTone(at('out', 'tts-a', `${RAVDESS}.wav`));
    flac('out/tts-a/p225_001.flac');
    writeTone(at('out', 'tts-a', 'emo_relief_freeform.wav'));
    writeTone(at('out', 'tts-a', 'stray-1.wav'));
    writeTone(at('out', 'tts-b', 'p225', 'p225_001.wav'));
    writeTone(at('out', 'tts-b', 'not-an-utterance.wav'));
    write('out/tts-b/notes.txt', 'ignored: not audio');
    const utteranceClips = env.db.prepare('SELECT id, clip_id FROM utterances ORDER BY id').all();

    const report = await run([at('out')]);
    expect(report.failures).toEqual([]);
    expect(report.warnings).toEqual([{ file: at('out'), reason: '2 files match no utterance in the manifest and were skipped: tts-a/stray-1.wav, tts-b/not-an-utterance.wav' }]);
    expect(lines).toEqual([`${at('out')}: warning: 2 files match no utterance in the manifest and were skipped: tts-a/stray-1.wav, tts-b/not-an-utterance.wav`]);
    expect(report.counts).toMatchObject({ renditions: 4, systems: 2, 'unmatched files': 2 });
    // And each rendition's degraded copy and two MUSHRA anchors (degraded.test.ts): the three tones are one audio, so they share them.
    expect(report.imported).toBe(4 + 2 * 3);

    const store = renditionStore(env.db);
    expect(store.systemsOf(UTTERANCES.vctk)).toEqual(['tts-a', 'tts-b']);
    expect(store.ofSystem('tts-a').map((r) => r.utteranceId)).toEqual([UTTERANCES.metaset, UTTERANCES.ravdess, UTTERANCES.vctk]);
    expect(store.count()).toEqual({ renditions: 4, systems: 2 });
    expect(store.perSystem()).toEqual([{ system: 'tts-a', renditions: 3 }, { system: 'tts-b', renditions: 1 }]);
    expect(store.find(UTTERANCES.ravdess, 'tts-b')).toBeNull();
    // Each rendition is a clip of its own, decoded like every clip; the utterances keep their own clips.
    const clip = env.db.prepare('SELECT * FROM clips WHERE id = ?').get(store.find(UTTERANCES.vctk, 'tts-a')!) as Record<string, unknown>;
    expect(clip).toMatchObject({ corpus: 'rendition', path: 'tts-a/p225_001.flac', format: 'flac', sample_rate: 16000, channels: 1 });
    expect(JSON.parse(clip.labels as string)).toEqual({ system: 'tts-a', utterance: UTTERANCES.vctk });
    expect(showClip(env.db, 'tts-a/p225_001.flac')).toMatchObject({ corpus: 'rendition', renditions: [{ utteranceId: UTTERANCES.vctk, system: 'tts-a' }] });
    expect(env.db.prepare('SELECT id, clip_id FROM utterances ORDER BY id').all()).toEqual(utteranceClips);

    const before = snapshot(env);
    const again = await run([at('out')]);
    expect([again.imported, again.updated, again.unchanged]).toEqual([0, 0, 4 + 2 * 3]);
    expect(again.counts).toMatchObject({ renditions: 4, 'renditions unchanged': 4 });
    expect(snapshot(env)).toEqual(before);
  });

  it('imports one system folder with --system, a corpus clip as a reference system without importing it again, and CSV and JSON lists by id or stem', async () => {
    writeTone(at('slow', `${RAVDESS}.wav`));
    expect((await run([at('slow')], { system: 'slow' })).failures).toEqual([]);
    expect(renditionStore(env.db).find(UTTERANCES.ravdess, 'slow')).not.toBeNull();

    writeTone(at('lists', 'wav', 'a.wav'));
    flac('lists/wav/b.flac');
    const csv = write('lists/renditions.csv', ['utterance_id,system,path', `${UTTERANCES.vctk},tts-c,wav/a.wav`, `${RAVDESS},tts-c,${at('lists', 'wav', 'b.flac')}`, ''].join('\n'));
    writeTone(at('lists', 'wav', 'c.wav'));
    const json = write('lists/renditions.json', JSON.stringify([
      { utterance_id: 'emo_relief_freeform', system: 'tts-d', path: 'wav/c.wav' },
      // The utterance's own recording as the natural-speech reference: the corpus clip is linked, not re-imported.
      { utterance_id: UTTERANCES.vctk, system: 'natural', path: at('VCTK', 'wav48', 'p225', 'p225_001.wav') },
    ]));
    const clips = count(env.db, 'SELECT COUNT(*) AS n FROM clips');
    const report = await run([csv, json]);
    expect(report.failures).toEqual([]);
    expect(report.warnings).toEqual([]);
    // And b.flac's degraded copy and anchors: the tones' are there already (a.wav and c.wav are the tone of slow/).
    expect(count(env.db, 'SELECT COUNT(*) AS n FROM clips')).toBe(clips + 3 + 3);
    const store = renditionStore(env.db);
    expect(store.systemsOf(UTTERANCES.vctk)).toEqual(['natural', 'tts-c']);
    expect(store.systemsOf(UTTERANCES.ravdess)).toEqual(['slow', 'tts-c']);
    expect(store.systemsOf(UTTERANCES.metaset)).toEqual(['tts-d']);
    const corpusClip = env.db.prepare('SELECT clip_id FROM utterances WHERE id = ?').pluck().get(UTTERANCES.vctk);
    expect(store.find(UTTERANCES.vctk, 'natural')).toBe(corpusClip);
    expect(env.db.prepare('SELECT corpus FROM clips WHERE id = ?').pluck().get(corpusClip)).toBe('vctk');
  });

  it('refuses, with file, line, field and what is accepted, and leaves the manifest as it was', async () => {
    const good = () => {
      writeTone(at('bad', 'tts-a', `${RAVDESS}.wav`));
      flac('bad/tts-a/p225_001.flac');
    };
    const refused = async (inputs: string[], expected: string[], options: { system?: string } = {}) => {
      const before = snapshot(env);
      lines = [];
      const report = await run(inputs, options);
      expect(lines).toEqual(expected);
      expect(report.imported).toBe(0);
      expect(report.summary()).toContain('renditions refused, nothing imported');
      expect(snapshot(env)).toEqual(before);
    };

    // A file that does not decode, beside files that do: nothing is imported.
    good();
    write('bad/tts-a/emo_relief_freeform.wav', 'RIFF but not really');
    await refused([at('bad')], [
      `${at('bad/tts-a/emo_relief_freeform.wav')}: ${at('bad/tts-a/emo_relief_freeform.wav')} cannot be decoded: not a WAV or FLAC file (no RIFF/WAVE or fLaC header) (a rendition is a WAV (PCM 8–32-bit or float) or FLAC file)`,
    ]);

    // A system folder none of whose files is an utterance.
    writeTone(at('bad', 'tts-a', 'emo_relief_freeform.wav'));
    writeTone(at('bad', 'tts-x', 'speaker1_take3.wav'));
    await refused([at('bad')], [
      `${at('bad/tts-x')}: no file of system tts-x matches an utterance in the manifest (1 file, e.g. speaker1_take3.wav): a file is named by its utterance: the corpus file stem (RAVDESS 03-01-05-01-02-01-12, VCTK p225_001, MetaSet the relative_audio_path without extension), e.g. metaset:ears/p026/emo_relief_freeform.wav; import the corpus or caption files first`,
    ]);

    // Audio outside any system folder, and a folder that is not there.
    await refused([at('bad', 'tts-x', 'speaker1_take3.wav').replace('.wav', ''), at('bad', 'tts-a')], [
      `${at('bad/tts-x/speaker1_take3')}: not found; give a folder <root>/<system>/<utterance>.wav|.flac, a list .csv (header utterance_id,system,path) or a list .json`,
      `${at('bad/tts-a')}: holds audio files outside any system folder (03-01-05-01-02-01-12.wav, emo_relief_freeform.wav, p225_001.flac): expected <root>/<system>/<utterance>.wav|.flac, or give --system <name> for a folder of one system's files`,
    ]);

    // List rows: an unknown utterance, an empty field, a missing file, a file that does not decode, a second rendition.
    write('lists/broken.wav', 'not audio');
    writeTone(at('lists', 'ok.wav'));
    const csv = write('lists/bad.csv', [
      'utterance_id,system,path',
      'vctk:p999_999,tts-c,ok.wav',
      `${UTTERANCES.vctk},,ok.wav`,
      `${UTTERANCES.vctk},tts-c,missing.wav`,
      `${UTTERANCES.ravdess},tts-c,broken.wav`,
      `${UTTERANCES.metaset},tts-c,ok.txt`,
      `${UTTERANCES.metaset},tts-c,ok.wav`,
      `emo_relief_freeform,tts-c,ok.wav`,
      '',
    ].join('\n'));
    await refused([csv], [
      `${csv}:2: utterance_id: no utterance "vctk:p999_999" in the manifest; give an imported utterance's id (e.g. metaset:ears/p026/emo_relief_freeform.wav) or its corpus file stem (VCTK p225_001, RAVDESS 03-01-05-01-02-01-12)`,
      `${csv}:3: system: is empty (a row names utterance_id, system and path)`,
      `${csv}:4: path: "missing.wav" not found (looked at ${at('lists', 'missing.wav')}; a relative path starts at the list's folder)`,
      `${csv}:6: path: "ok.txt" is not a .wav or .flac file (a rendition is a WAV (PCM 8–32-bit or float) or FLAC file)`,
      `${csv}:8: is a second rendition of ${UTTERANCES.metaset} by system tts-c (the first: ${csv}:7); give one file per utterance and system`,
    ]);
    // Files are decoded once every row is right (line 5 above): an undecodable file is refused by its line too.
    const decode = write('lists/decode.csv', `utterance_id,system,path\n${UTTERANCES.ravdess},tts-c,broken.wav\n`);
    await refused([decode], [
      `${decode}:2: path: ${at('lists', 'broken.wav')} cannot be decoded: not a WAV or FLAC file (no RIFF/WAVE or fLaC header) (a rendition is a WAV (PCM 8–32-bit or float) or FLAC file)`,
    ]);
    const header = write('lists/header.csv', 'utterance,system,file\nx,y,z\n');
    await refused([header], [`${header}:1: header lacks column(s) utterance_id, path (expected utterance_id,system,path)`]);
    const json = write('lists/bad.json', JSON.stringify([{ utterance_id: UTTERANCES.vctk, path: 'ok.wav' }]));
    await refused([json], [`${json} [record 0]: system: Invalid input: expected string, received undefined (a row names utterance_id, system and path)`]);
  });

  it('takes automatic quality scores of renditions as judge scores keyed by utterance and system, for a system with no captions', async () => {
    writeTone(at('out', 'tts-a', 'p225_001.wav'));
    expect((await run([at('out')])).failures).toEqual([]);
    const csv = write('mos.csv', [
      'utterance_id,system,judge,run,score',
      `${UTTERANCES.vctk},tts-a,utmos,1,3.87`,
      `${UTTERANCES.vctk},tts-b,utmos,1,2.5`,
      '',
    ].join('\n'));
    const report = importJudgeFile(env.db, csv, { onFailure: (l) => lines.push(l) });
    expect(report.counts).toEqual({ 'judge scores': 1 });
    expect(lines).toEqual([`${csv}:3: system tts-b has no caption for ${UTTERANCES.vctk}`]);
    expect(env.db.prepare('SELECT utterance_id, system, judge, run, score FROM judge_scores').all()).toEqual([
      { utterance_id: UTTERANCES.vctk, system: 'tts-a', judge: 'utmos', run: '1', score: 3.87 },
    ]);
  });

  it('serves a rendition as a copy without the metadata its file carries', async () => {
    const file = at('out', 'tts-a', 'p225_001.wav');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, taggedWav([sine(0.5, 16000, 220, 0.3)], 16000));
    expect(readFileSync(file, 'latin1')).toContain(TAGGED_TITLE);
    expect((await run([at('out')])).failures).toEqual([]);
    const clipId = renditionStore(env.db).find(UTTERANCES.vctk, 'tts-a')!;
    const audio = await prepareStudyAudio(env.db, 'ab', { normalize: true, measure: 'rms', target: -23, dither: false }, [clipId]);
    const copy = readFileSync(join(servedAudioDir(env.db), audio.rows[0].file));
    const text = copy.toString('latin1');
    for (const s of [TAGGED_TITLE, TAGGED_ARTIST, 'tts-a', 'p225_001', 'LIST', 'bext', 'ID3']) expect(text.includes(s), s).toBe(false);
    expect(readCanonicalWav(copy).chunks).toEqual(['fmt ', 'data']);
    expect(audio.rows[0].id).not.toBe(clipId);
  });
});

describe('matching a rendition file to an utterance', () => {
  const index = new UtteranceIndex([
    { id: 'vctk:p225_001', clipPath: 'wav48_silence_trimmed/p225/p225_001_mic1.flac' },
    { id: 'metaset:vctk/p225/p225_001.wav', clipPath: null },
    { id: `ravdess:${RAVDESS}`, clipPath: `Actor_12/${RAVDESS}.wav` },
    { id: 'metaset:ears/0001.wav', clipPath: null },
    { id: 'metaset:expresso/0001.wav', clipPath: null },
  ]);

  it('takes the most specific name: the id, the corpus path, the file stem, the clip file stem', () => {
    expect(index.resolve(['vctk:p225_001'])).toEqual({ id: 'vctk:p225_001' });
    // A stem both a corpus utterance and a MetaSet record of the same file go by is the corpus's; the record's path is the record's.
    expect(index.resolve(['p225_001'])).toEqual({ id: 'vctk:p225_001' });
    expect(index.resolve(['vctk/p225/p225_001', 'p225_001'])).toEqual({ id: 'metaset:vctk/p225/p225_001.wav' });
    expect(index.resolve(['p225_001_mic1'])).toEqual({ id: 'vctk:p225_001' });
    expect(index.resolve([RAVDESS])).toEqual({ id: `ravdess:${RAVDESS}` });
    expect(index.resolve(['ears/0001'])).toEqual({ id: 'metaset:ears/0001.wav' });
    expect(index.resolve(['0001'])).toEqual({ ambiguous: ['metaset:ears/0001.wav', 'metaset:expresso/0001.wav'] });
    expect(index.resolve(['p999_001'])).toBeNull();
  });

  it('refuses a file whose name several utterances share equally, saying how to name it', () => {
    const env = tempManifest();
    try {
      writeTone(join(env.dir, 'out', 'tts', '0001.wav'));
      writeTone(join(env.dir, 'out', 'tts', 'ears', '0001.wav'));
      const report = new ImportReport();
      const files = planRenditions([join(env.dir, 'out')], index, report);
      expect(files.map((f) => f.utteranceId)).toEqual(['metaset:ears/0001.wav']);
      expect(report.failures).toEqual([{
        file: join(env.dir, 'out', 'tts', '0001.wav'),
        reason: "matches several utterances (metaset:ears/0001.wav, metaset:expresso/0001.wav): name it by the utterance's path (e.g. tts/ears/0001.wav) or list it in a .csv with its utterance_id",
      }]);
    } finally {
      env.cleanup();
    }
  });
});

describe('the demo renditions', () => {
  let env: ReturnType<typeof tempManifest>;
  beforeEach(() => (env = tempManifest()));
  afterEach(() => env.cleanup());

  it('import with the demo: three espeak-ng systems, each with a 16 kHz mono rendition of all 16 sentences, scored by a made-up MOS predictor', async () => {
    const demoDir = new URL('../../studies/demo', import.meta.url).pathname;
    const report = await importDemo(env.db, demoDir);
    expect(report.failures).toEqual([]);
    expect(report.warnings).toEqual([]);
    const store = renditionStore(env.db);
    expect(store.perSystem()).toEqual(['espeak-de-accent', 'espeak-en-fast', 'espeak-en-slow'].map((system) => ({ system, renditions: 16 })));
    const demoUtterances = env.db.prepare("SELECT id FROM utterances WHERE corpus = 'metaset' ORDER BY id").pluck().all() as string[];
    expect(demoUtterances).toHaveLength(16);
    for (const id of demoUtterances) expect(store.systemsOf(id)).toEqual(['espeak-de-accent', 'espeak-en-fast', 'espeak-en-slow']);
    const clips = env.db.prepare("SELECT path, sample_rate, channels, duration, bytes FROM clips WHERE corpus = 'rendition'").all() as { path: string; sample_rate: number; channels: number; duration: number; bytes: number }[];
    expect(clips).toHaveLength(48);
    for (const c of clips) {
      expect(c.path).toMatch(/^espeak-[a-z-]+\/demo-\d\d\.flac$/);
      expect([c.sample_rate, c.channels]).toEqual([16000, 1]);
      expect(c.duration).toBeGreaterThan(1);
      expect(c.duration).toBeLessThan(4);
    }
    // Small enough to commit: under 2 MB for all 48.
    expect(clips.reduce((n, c) => n + c.bytes, 0)).toBeLessThan(2_000_000);
    // Each with its degraded copy, the A/B attention checks' worse side (degraded.test.ts).
    for (const id of demoUtterances) for (const system of store.systemsOf(id)) expect(store.find(id, degradedSystem(system))).not.toBeNull();
    expect(count(env.db, "SELECT COUNT(*) AS n FROM clips WHERE corpus = 'degraded'")).toBe(48);
    // The made-up MOS predictor: two runs of every rendition, the slow voice rated above the German-accented one.
    const mean = (system: string) => env.db.prepare("SELECT AVG(score) FROM judge_scores WHERE judge = 'mos-pred' AND system = ?").pluck().get(system) as number;
    expect(count(env.db, "SELECT COUNT(*) AS n FROM judge_scores WHERE judge = 'mos-pred'")).toBe(96);
    expect(mean('espeak-en-slow')).toBeGreaterThan(mean('espeak-de-accent') + 1);
  });
});

/**
 * Renditions' degraded copies through the import (degraded-copies.ts, renditions.ts): real files, the
 * real decoder, a real SQLite file. Each rendition gets its copy as the rendition of degraded:<system>,
 * written once to <data>/degraded/<sha256>.wav, served without metadata; a re-import adds nothing;
 * ':' is refused in the system names users give.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyseAudio, decode } from '../decode';
import { degradedSystem } from '../degrade';
import { anchorSystem } from '../anchors';
import { degradedAudioDir, degradedWav } from '../degraded-copies';
import { importMetasetFile } from '../metaset';
import { renditionStore } from '../rendition-store';
import { importRenditions } from '../renditions';
import { prepareStudyAudio, servedAudioDir } from '../served';
import { readCanonicalWav, rmsDb, sine, TAGGED_ARTIST, TAGGED_TITLE, taggedWav, writeTone, writeWav } from './audio';
import { count, tempManifest } from './db';
import { anchorMask, whiteNoise } from './spectrum';

const FLAC = new URL('./fixtures/tone-16.flac', import.meta.url);
const ONE = 'metaset:ears/p026/one.wav';
const TWO = 'metaset:ears/p026/two.wav';

type Env = ReturnType<typeof tempManifest>;
const snapshot = (env: Env) => ['clips', 'utterances', 'renditions'].map((table) => env.db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all());

/** A manifest with two MetaSet utterances (one, two), as a caption file brings them. */
async function manifestWithUtterances(): Promise<Env> {
  const env = tempManifest();
  const records = ['one', 'two'].map((name) => {
    writeTone(join(env.dir, 'eval', 'ears', 'p026', `${name}.wav`));
    return {
      wav_path: `/data/eval_set/ears/p026/${name}.wav`,
      generated_captions: { holistic_creative_synthesis: { generated_caption: 'A calm voice.' } },
      metadata: { source: 'ears', relative_audio_path: `p026/${name}.wav`, transcription: 'hello' },
    };
  });
  writeFileSync(join(env.dir, 'lyra.json'), JSON.stringify(records));
  expect((await importMetasetFile(env.db, join(env.dir, 'lyra.json'), { system: 'lyra', audioRoot: join(env.dir, 'eval') })).failures).toEqual([]);
  return env;
}

/** out/tts-a: a FLAC and a 48 kHz stereo WAV with tags; out/tts-b: a 22.05 kHz WAV. */
function writeRenditions(env: Env): void {
  const at = (...parts: string[]) => join(env.dir, 'out', ...parts);
  mkdirSync(at('tts-a'), { recursive: true });
  copyFileSync(FLAC, at('tts-a', 'one.flac'));
  writeFileSync(at('tts-a', 'two.wav'), taggedWav([sine(0.6, 48000, 300, 0.3), sine(0.6, 48000, 500, 0.2)], 48000));
  writeWav(at('tts-b', 'one.wav'), { sampleRate: 22050, channels: [sine(0.5, 22050, 250, 0.4)] });
}

describe('degraded copies of renditions', () => {
  let env: Env;
  let lines: string[];
  const run = (e: Env, inputs: string[], options: { system?: string } = {}) => importRenditions(e.db, inputs, { ...options, onFailure: (l) => lines.push(l) });
  beforeEach(async () => {
    env = await manifestWithUtterances();
    lines = [];
  });
  afterEach(() => env.cleanup());

  it('gives every rendition its degraded copy, a clip of <data>/degraded/<sha256>.wav registered as degraded:<system>, and a re-import adds nothing', async () => {
    writeRenditions(env);
    const report = await run(env, [join(env.dir, 'out')]);
    expect(report.failures).toEqual([]);
    expect(report.counts).toMatchObject({ renditions: 3, systems: 2, 'degraded copies': 3, 'MUSHRA anchors': 6 });
    // Each source's degraded copy and its two MUSHRA anchors (anchors.ts).
    expect(report.imported).toBe(3 + 3 * 3);

    const store = renditionStore(env.db);
    const dir = degradedAudioDir(env.db);
    expect(dir).toBe(join(env.dir, 'data', 'degraded'));
    const clip = env.db.prepare('SELECT corpus, root, path, abs_path AS absPath, sha256, sample_rate AS rate, channels, duration, codec, loudness_dbfs AS loudness, peaks, labels FROM clips WHERE id = ?');
    type Clip = { corpus: string; root: string; path: string; absPath: string; sha256: string; rate: number; channels: number; duration: number; codec: string; loudness: number | null; peaks: string; labels: string };
    for (const [utterance, system] of [[ONE, 'tts-a'], [TWO, 'tts-a'], [ONE, 'tts-b']]) {
      const source = clip.get(store.find(utterance, system)!) as Clip;
      const copyId = store.find(utterance, degradedSystem(system));
      expect(copyId, `${system} ${utterance}`).not.toBeNull();
      const copy = clip.get(copyId!) as Clip;
      // Named by the source's content, at the source's rate, channels and length, decoded like every clip.
      expect(copy).toMatchObject({ corpus: 'degraded', root: dir, path: `${source.sha256}.wav`, absPath: join(dir, `${source.sha256}.wav`), rate: source.rate, channels: source.channels });
      expect(copy.duration).toBeCloseTo(source.duration, 6);
      expect(JSON.parse(copy.labels)).toEqual({ lowpassHz: 1000, snrDb: 10, sourceSha256: source.sha256 });
      // The file is degrade.ts's copy of the decoded source, as 16-bit PCM, at the source's level.
      const bytes = readFileSync(copy.absPath);
      // Its clip facts (taken from the samples as written) are what decoding the file gives.
      const facts = await analyseAudio(bytes);
      expect(copy).toMatchObject({ sha256: facts.sha256, rate: facts.sampleRate, channels: facts.channels, loudness: facts.loudnessDbfs, duration: facts.duration, codec: 'pcm_s16le' });
      expect(JSON.parse(copy.peaks)).toEqual(facts.peaks);
      const sourcePcm = await decode(readFileSync(source.absPath));
      expect(bytes.equals(degradedWav(sourcePcm, source.sha256))).toBe(true);
      const copyPcm = await decode(bytes);
      expect(rmsDb(copyPcm.channels.flatMap((ch) => [...ch]))).toBeCloseTo(rmsDb(sourcePcm.channels.flatMap((ch) => [...ch])), 1);
      // The anchors: <sha256>.anchor35.wav and .anchor70.wav beside the copy, renditions of anchor35:<system> and anchor70:<system>.
      for (const role of ['anchor35', 'anchor70'] as const) {
        const a = clip.get(store.find(utterance, anchorSystem(role, system))!) as Clip;
        expect(a).toMatchObject({ corpus: 'anchor', root: dir, path: `${source.sha256}.${role}.wav`, rate: source.rate, channels: source.channels });
        expect(JSON.parse(a.labels)).toEqual({ anchor: role, lowpassHz: role === 'anchor35' ? 3500 : 7000, sourceSha256: source.sha256 });
        const anchorPcm = await decode(readFileSync(a.absPath));
        expect(rmsDb(anchorPcm.channels.flatMap((ch) => [...ch]))).toBeCloseTo(rmsDb(sourcePcm.channels.flatMap((ch) => [...ch])), 1);
      }
    }
    // Degraded copies are renditions a plan asks for by name, not systems of their own.
    expect(store.systemsOf(ONE)).toEqual(['tts-a', 'tts-b']);
    expect(store.count()).toEqual({ renditions: 3, systems: 2 });
    expect(store.ofSystem(degradedSystem('tts-a')).map((r) => r.utteranceId)).toEqual([ONE, TWO]);

    const before = snapshot(env);
    const files = readdirSync(dir).map((name) => [name, statSync(join(dir, name)).mtimeMs]);
    const again = await run(env, [join(env.dir, 'out')]);
    expect([again.imported, again.updated, again.unchanged]).toEqual([0, 0, 12]);
    expect(again.counts).toMatchObject({ 'degraded copies': 3, 'degraded copies unchanged': 3 });
    expect(snapshot(env)).toEqual(before);
    expect(readdirSync(dir).map((name) => [name, statSync(join(dir, name)).mtimeMs])).toEqual(files);
  });

  it('writes byte-identical copies in another installation, and repoints the copy when a rendition\'s audio changes', async () => {
    writeRenditions(env);
    expect((await run(env, [join(env.dir, 'out')])).failures).toEqual([]);
    const other = await manifestWithUtterances();
    try {
      writeRenditions(other);
      expect((await run(other, [join(other.dir, 'out')])).failures).toEqual([]);
      const names = readdirSync(degradedAudioDir(env.db)).sort();
      expect(names).toHaveLength(9);
      expect(readdirSync(degradedAudioDir(other.db)).sort()).toEqual(names);
      for (const name of names) expect(readFileSync(join(degradedAudioDir(other.db), name)).equals(readFileSync(join(degradedAudioDir(env.db), name)))).toBe(true);
    } finally {
      other.cleanup();
    }

    const store = renditionStore(env.db);
    const old = store.find(ONE, degradedSystem('tts-b'));
    writeWav(join(env.dir, 'out', 'tts-b', 'one.wav'), { sampleRate: 22050, channels: [sine(0.5, 22050, 330, 0.4)] });
    const report = await run(env, [join(env.dir, 'out')]);
    expect(report.failures).toEqual([]);
    expect(report.counts['degraded copies unchanged']).toBe(2);
    const copy = store.find(ONE, degradedSystem('tts-b'));
    expect(copy).not.toBe(old);
    const sourceSha = env.db.prepare('SELECT sha256 FROM clips WHERE id = ?').pluck().get(store.find(ONE, 'tts-b')!);
    expect(env.db.prepare('SELECT path FROM clips WHERE id = ?').pluck().get(copy!)).toBe(`${sourceSha}.wav`);
  });

  it('serves a degraded copy as a normalised copy that carries no metadata', async () => {
    writeRenditions(env);
    expect((await run(env, [join(env.dir, 'out')])).failures).toEqual([]);
    const copyId = renditionStore(env.db).find(TWO, degradedSystem('tts-a'))!;
    const source = readFileSync(join(env.dir, 'out', 'tts-a', 'two.wav'), 'latin1');
    expect(source).toContain(TAGGED_TITLE);
    const audio = await prepareStudyAudio(env.db, 'ab', { normalize: true, measure: 'rms', target: -23, dither: false }, [copyId]);
    expect(audio.rows[0].id).not.toBe(copyId);
    const copy = readFileSync(join(servedAudioDir(env.db), audio.rows[0].file));
    const text = copy.toString('latin1');
    const sourceSha = env.db.prepare('SELECT json_extract(labels, \'$.sourceSha256\') FROM clips WHERE id = ?').pluck().get(copyId) as string;
    for (const s of [TAGGED_TITLE, TAGGED_ARTIST, 'tts-a', 'degraded', sourceSha, 'LIST', 'bext', 'ID3']) expect(text.includes(s), s).toBe(false);
    const wav = readCanonicalWav(copy);
    expect(wav.chunks).toEqual(['fmt ', 'data']);
    expect([wav.channels, wav.sampleRate]).toEqual([2, 48000]);
    expect(rmsDb(wav.samples)).toBeCloseTo(-23, 0);
  });

  it('serves the MUSHRA anchors of white noise as copies that meet BS.1534-3’s mask, loudness-aligned with the reference’s copy', async () => {
    const sampleRate = 48000;
    writeWav(join(env.dir, 'noise', 'ref', 'one.wav'), { sampleRate, channels: [[...whiteNoise(4, sampleRate, 0xa5c4)]] });
    expect((await run(env, [join(env.dir, 'noise')])).failures).toEqual([]);
    const store = renditionStore(env.db);
    const ids = [store.find(ONE, 'ref')!, store.find(ONE, anchorSystem('anchor35', 'ref'))!, store.find(ONE, anchorSystem('anchor70', 'ref'))!];
    const audio = await prepareStudyAudio(env.db, 'mushra', { normalize: true, measure: 'rms', target: -26, dither: true }, ids);
    const served = ids.map((id) => readCanonicalWav(readFileSync(join(servedAudioDir(env.db), audio.rows.find((r) => r.clipId === id)!.file))));
    for (const wav of served) expect(rmsDb(wav.samples)).toBeCloseTo(-26, 0);
    const mask = anchorMask(served[1].samples, served[2].samples, sampleRate);
    console.log('served anchors at 48 kHz, attenuation (dB):', JSON.stringify(Object.fromEntries(Object.entries(mask).map(([k, v]) => [k, Math.round(v! * 10) / 10]))));
    expect(mask.a35at4k!).toBeGreaterThanOrEqual(25);
    expect(mask.a35at45k!).toBeGreaterThanOrEqual(50);
    expect(mask.a70at8k!).toBeGreaterThanOrEqual(25);
    expect(mask.a70at9k!).toBeGreaterThanOrEqual(50);
  });

  it('refuses \':\' in the system names a folder, --system or a list gives, and imports nothing', async () => {
    const at = (...parts: string[]) => join(env.dir, ...parts);
    writeTone(at('bad', 'tts-a', 'one.wav'));
    writeTone(at('bad', 'tts:v2', 'one.wav'));
    writeTone(at('lists', 'one.wav'));
    mkdirSync(dirname(at('lists', 'list.csv')), { recursive: true });
    writeFileSync(at('lists', 'list.csv'), 'utterance_id,system,path\none,degraded:tts-a,one.wav\n');
    const reserved = (name: string) =>
      `${JSON.stringify(name)} contains ':', which is reserved for the systems Earmark derives (degraded:<system>: a system's degraded copies, for A/B attention checks); name the system without ':' (e.g. ${JSON.stringify(name.replaceAll(':', '-'))})`;
    const before = snapshot(env);
    const clips = count(env.db, 'SELECT COUNT(*) AS n FROM clips');
    for (const [inputs, options, expected] of [
      [[at('bad')], {}, `${at('bad', 'tts:v2')}: system folder name ${reserved('tts:v2')}; rename the folder`],
      [[at('bad', 'tts-a')], { system: 'tts:v3' }, `${at('bad', 'tts-a')}: --system: ${reserved('tts:v3')}`],
      [[at('lists', 'list.csv')], {}, `${at('lists', 'list.csv')}:2: system: ${reserved('degraded:tts-a')} (a row names utterance_id, system and path)`],
    ] as const) {
      lines = [];
      const report = await run(env, [...inputs], options);
      expect(lines).toEqual([expected]);
      expect(report.summary()).toContain('renditions refused, nothing imported');
    }
    expect(snapshot(env)).toEqual(before);
    expect(count(env.db, 'SELECT COUNT(*) AS n FROM clips')).toBe(clips);
  });
});

import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { activeSpeechLevel } from '../audio-manifest/loudness';
import { ServedAudioError, servedAudioDir } from '../audio-manifest/served';
import { peakDb, readCanonicalWav, rmsDb, sine, TAGGED_TITLE as TITLE, taggedWav, wavBytes } from '../audio-manifest/test/audio';
import { setStudyStatus, StudyLockedError } from './build';
import { assignTrials } from './design';
import { formatBuildSummary, loadStudyDir, StudyAudioLockedError } from './load';
import { insertListener, seedManifest, tempDb, voteAll, type TempDb } from './test-support';

let t: TempDb;
afterEach(() => t?.close());

const yaml = (extra = '') => `title: Loudness
consent: I agree.
instructions: Listen, then choose.
question: Which caption fits?
targetListeners: 2
completion:
  code: OK
items:
  mode: explicit
  list:
${[0, 1, 2, 3].map((u) => `    - { utterance: "metaset:u${u}", systemA: oracle, systemB: alpha }`).join('\n')}
design:
  kind: crossed
${extra}`;

/** Four clips: a loud tagged WAV, a quiet tagged FLAC, a click that cannot reach the target, a plain tone. */
function setup(definition = yaml()): { dir: string; file: (u: number) => string } {
  t = tempDb();
  seedManifest(t.db, { utterances: 4, systems: ['oracle', 'alpha'], labels: (u) => ({ gender: u % 2 ? 'male' : 'female' }) });
  const file = (u: number) => t.db.prepare("SELECT abs_path FROM clips WHERE id = (SELECT clip_id FROM utterances WHERE id = ?)").pluck().get(`metaset:u${u}`) as string;
  writeFileSync(file(0), taggedWav([sine(0.5, 16000, 220, 0.6)], 16000));
  const flac = file(1).replace(/\.wav$/, '.flac');
  copyFileSync(new URL('../audio-manifest/test/fixtures/tagged-quiet.flac', import.meta.url), flac);
  t.db.prepare("UPDATE clips SET abs_path = ? WHERE abs_path = ?").run(flac, file(1));
  writeFileSync(file(2), wavBytes({ sampleRate: 16000, channels: [Array.from({ length: 16000 }, (_, i) => (i === 8000 ? 0.5 : 0.001 * Math.sin(i / 3)))] }));
  const dir = join(t.dir, 'loudness');
  mkdirSync(dir);
  writeFileSync(join(dir, 'study.yaml'), definition);
  return { dir, file };
}

const served = (studyId = 'loudness') =>
  t.db.prepare('SELECT clip_id AS clipId, id, file, gain_db AS gainDb, peak_limited AS peakLimited FROM served_clips WHERE study_id = ? ORDER BY clip_id').all(studyId) as {
    clipId: string;
    id: string;
    file: string;
    gainDb: number;
    peakLimited: number;
  }[];
const copyOf = (file: string) => readCanonicalWav(readFileSync(join(servedAudioDir(t.db), file)));

describe('study build: the copies listeners hear', () => {
  it('makes one normalised copy per clip in the data dir, reports the peak-limited clip, and keeps metadata out', async () => {
    const { dir } = setup();
    const { summary } = await loadStudyDir(t.db, dir);
    const rows = served();
    expect(rows).toHaveLength(4);
    // The default (issue 22.6): P.56 active speech level at -26 dBov, dithered.
    expect(summary.audio).toMatchObject({ clips: 4, made: 4, unit: 'dBov', loudness: { normalize: true, measure: 'speech-level', target: -26, dither: true } });
    expect(summary.audio.peakLimited).toHaveLength(1);
    const click = t.db.prepare("SELECT corpus || ':' || path FROM clips WHERE id = (SELECT clip_id FROM utterances WHERE id = 'metaset:u2')").pluck().get() as string;
    expect(summary.audio.peakLimited[0].clip).toBe(click);
    expect(formatBuildSummary(summary)).toContain(
      'audio: 4 clips as 16-bit WAV at -26 dBov active speech level (ITU-T P.56 method B), TPDF-dithered where re-quantised, 4 new copies written; ' +
        `1 peak-limited to stay under -1 dBFS peak, so quieter than the target: ${click} at ${summary.audio.peakLimited[0].level} dBov (gain`,
    );
    for (const row of rows) {
      const bytes = readFileSync(join(servedAudioDir(t.db), row.file));
      expect(bytes.toString('latin1')).not.toContain(TITLE);
      expect(bytes.toString('latin1')).not.toContain('Actor 07');
      const { samples, channels, sampleRate } = readCanonicalWav(bytes);
      const split = Array.from({ length: channels }, (_, c) => samples.filter((_, i) => i % channels === c));
      if (row.peakLimited) expect(peakDb(samples)).toBeLessThanOrEqual(-0.99);
      else expect(Math.abs(activeSpeechLevel(split, sampleRate)!.level + 26)).toBeLessThan(0.05);
    }
  });

  it('reuses its copies: a rebuild that changes nothing writes no file, and two studies share identical copies', async () => {
    const { dir } = setup();
    await loadStudyDir(t.db, dir);
    const folder = servedAudioDir(t.db);
    const before = new Map(readdirSync(folder).map((f) => [f, statSync(join(folder, f)).mtimeMs]));
    const again = await loadStudyDir(t.db, dir);
    expect(again.summary.audio.made).toBe(0);
    expect(new Map(readdirSync(folder).map((f) => [f, statSync(join(folder, f)).mtimeMs]))).toEqual(before);

    const twin = join(t.dir, 'twin');
    mkdirSync(twin);
    writeFileSync(join(twin, 'study.yaml'), yaml());
    expect((await loadStudyDir(t.db, twin)).summary.audio.made).toBe(0);
    expect(served('twin').map((r) => r.file)).toEqual(served().map((r) => r.file));
    // Same copies, but the ids listeners see are the study's own.
    expect(served('twin').map((r) => r.id).filter((id) => served().some((r) => r.id === id))).toEqual([]);
  });

  it('with loudness off plays every clip at its recorded level', async () => {
    const { dir, file } = setup(yaml('loudness:\n  normalize: false\n'));
    const { summary } = await loadStudyDir(t.db, dir);
    expect(formatBuildSummary(summary)).toMatch(/at their recorded level \(loudness off\)/);
    for (const row of served()) {
      expect(row.gainDb).toBe(0);
      expect(row.peakLimited).toBe(0);
    }
    const loud = served().find((r) => r.clipId === t.db.prepare("SELECT clip_id FROM utterances WHERE id = 'metaset:u0'").pluck().get())!;
    const source = readCanonicalWav(wavBytes({ sampleRate: 16000, channels: [sine(0.5, 16000, 220, 0.6)] }));
    expect(copyOf(loud.file).samples).toEqual(source.samples);
    expect(readFileSync(file(0)).toString('latin1')).toContain(TITLE);
  });

  it('a new target rebuilds the copies of a study nobody voted in, and is refused once votes exist', async () => {
    const { dir } = setup();
    await loadStudyDir(t.db, dir);
    const first = served();
    writeFileSync(join(dir, 'study.yaml'), yaml('loudness:\n  targetDbfs: -30\n'));
    expect((await loadStudyDir(t.db, dir)).summary.action).toBe('definition updated');
    const quieter = served();
    expect(quieter.map((r) => r.id)).not.toEqual(first.map((r) => r.id));
    const plain = quieter.find((r) => !r.peakLimited && r.gainDb !== 0)!;
    expect(Math.abs(rmsDb(copyOf(plain.file).samples) + 30)).toBeLessThan(0.05);

    setStudyStatus(t.db, 'loudness', 'open');
    insertListener(t.db, 'loudness', 'L1');
    assignTrials(t.db, 'loudness', 'L1');
    voteAll(t.db, 'L1', new Date(), 1);
    writeFileSync(join(dir, 'study.yaml'), yaml('loudness:\n  targetDbfs: -20\n'));
    const error = await loadStudyDir(t.db, dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudyAudioLockedError);
    expect(error).toBeInstanceOf(StudyLockedError);
    expect((error as Error).message).toMatch(/already has 1 vote, so the audio its listeners hear cannot change .*Clone it/);
    expect(served()).toEqual(quieter);
    expect(JSON.parse(t.db.prepare("SELECT definition FROM studies WHERE id = 'loudness'").pluck().get() as string).loudness).toMatchObject({ measure: 'rms', target: -30 });
  });

  it('names every clip file it cannot read and writes no study', async () => {
    const { dir, file } = setup();
    writeFileSync(file(3), 'not audio');
    t.db.prepare("UPDATE clips SET abs_path = '/nowhere/u2.wav' WHERE abs_path = ?").run(file(2));
    const error = (await loadStudyDir(t.db, dir).catch((e: unknown) => e)) as ServedAudioError;
    expect(error).toBeInstanceOf(ServedAudioError);
    expect(error.statusCode).toBe(422);
    expect(error.message).toContain(`${file(3)}: not a WAV or FLAC file`);
    expect(error.message).toContain('/nowhere/u2.wav: file not found');
    expect(t.db.prepare('SELECT count(*) FROM studies').pluck().get()).toBe(0);
  });
});

/**
 * An audio-only MOS of corpus clips (trial.caption: false over a VCTK folder): no caption file, the
 * "system" of a corpus clip is its corpus, and a MetaSet record of a file the VCTK folder holds is
 * the same utterance. The corpus is made here in VCTK 0.80's layout (wav48/pNNN/pNNN_NNN.wav with a
 * speaker-info.txt), so the test needs nothing outside the repository.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sine, writeWav } from '../audio-manifest/test/audio';
import { main } from '../server/cli/study';
import { setStudyStatus } from './build';
import { assignTrials } from './design';
import { describeError, loadStudyDir, validateStudyDir } from './load';
import { insertListener, tempDb, type TempDb } from './test-support';

let t: TempDb;
afterEach(() => {
  vi.restoreAllMocks();
  t?.close();
});

const SPEAKERS = ['p225', 'p226', 'p227', 'p228'];

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** `<study>/corpus/VCTK`: 4 speakers × 3 clips, speaker-info.txt as 0.80 writes it (ids without the p). */
function vctkFolder(studyDir: string): string {
  const root = join(studyDir, 'corpus', 'VCTK');
  write(join(root, 'speaker-info.txt'), 'ID  AGE  GENDER  ACCENTS  REGION\n225  23  F    English    Southern  England\n226  22  M    English    Surrey\n227  38  M    English    Cumbria\n228  22  F    English    Southern  England\n');
  SPEAKERS.forEach((speaker, s) => {
    for (let n = 1; n <= 3; n++) {
      const file = join(root, 'wav48', speaker, `${speaker}_00${n}.wav`);
      mkdirSync(dirname(file), { recursive: true });
      writeWav(file, { sampleRate: 16000, channels: [sine(0.3, 16000, 150 + 20 * s + 5 * n, 0.3)] });
      write(join(root, 'txt', speaker, `${speaker}_00${n}.txt`), `Sentence ${n}.\n`);
    }
  });
  return root;
}

const definition = (extra: { systems?: string; sources?: string } = {}) => `title: How natural does the voice sound?
consent: I agree.
instructions: Listen to each clip and rate how natural it sounds.
question: How natural is this speech?
trial: { kind: rating, scale: { points: 5 }, caption: false }
sources:
  - { kind: vctk, dir: corpus/VCTK }
${extra.sources ?? ''}items:
  mode: sample
  count: 8
  systems: [${extra.systems ?? 'vctk'}]
  maxPerUtterance: 1
practice:
  - { utterance: vctk:p225_001, score: 5 }
attentionChecks:
  mode: explicit
  list:
    - { utterance: vctk:p226_001, score: 1 }
design: { kind: crossed }
targetListeners: 3
completion: { code: MOS-7Q2X }
`;

function setup(yaml: string): string {
  t = tempDb();
  const dir = join(t.dir, 'studies', 'vctk-mos');
  vctkFolder(dir);
  write(join(dir, 'study.yaml'), yaml);
  return dir;
}

describe('an audio-only MOS of VCTK clips', () => {
  it('validates and builds with no caption file: the clips rated under system vctk, the practice and check clips never scored', async () => {
    const dir = setup(definition());
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    expect(await main(['validate', 'vctk-mos', '--data', t.dir])).toBe(0);
    vi.restoreAllMocks();
    expect(out).toContain('vctk-mos: valid — 8 items, 1 attention checks, 1 practice trials');

    const { studyId, summary } = await loadStudyDir(t.db, dir, { dataDir: t.dir });
    expect(summary.items).toEqual({ rating: 8, attention: 1, practice: 1 });
    expect(summary.sampler!.perSystem).toEqual({ vctk: 8 });
    const rows = t.db.prepare('SELECT kind, utterance_id AS u, system_a AS system, caption_a AS caption, expected FROM items WHERE study_id = ? ORDER BY seq').all(studyId) as { kind: string; u: string; system: string; caption: string | null; expected: string | null }[];
    const rated = rows.filter((r) => r.kind === 'rating');
    expect(rated.every((r) => r.system === 'vctk' && r.caption === null && r.expected === null)).toBe(true);
    expect(new Set(rated.map((r) => r.u)).size).toBe(8);
    expect(rated.map((r) => r.u)).not.toContain('vctk:p225_001');
    expect(rows.filter((r) => r.kind !== 'rating')).toEqual([
      { kind: 'attention', u: 'vctk:p226_001', system: 'attention', caption: null, expected: '1' },
      { kind: 'practice', u: 'vctk:p225_001', system: 'practice', caption: null, expected: '5' },
    ]);
    // The practice clip is not among the sampled ones, so only 10 of the 12 clips could be rated.
    expect(rows.map((r) => r.u).filter((u) => u === 'vctk:p225_001')).toHaveLength(1);
    setStudyStatus(t.db, studyId, 'open');
    expect(assignTrials(t.db, studyId, insertListener(t.db, studyId, 'L1'))).toBe(10);
  });

  it('a MetaSet record of a VCTK file is the same utterance: one id, the corpus its system, its labels joined', async () => {
    const dir = setup(definition({ sources: '  - { kind: metaset, file: captions/lyra.json, system: lyra, audioRoot: corpus }\n' }));
    const record = (speaker: string, n: number) => ({
      wav_path: `/data/eval_set/VCTK/wav48/${speaker}/${speaker}_00${n}.wav`,
      status: 'success',
      generated_captions: { holistic_creative_synthesis: { generated_caption: `lyra hears ${speaker}.` } },
      metadata: { source: 'VCTK', relative_audio_path: `wav48/${speaker}/${speaker}_00${n}.wav`, speaking_rate: 'slow speaking rate', holistic_creative_synthesis: `Oracle for ${speaker}.` },
    });
    // p225_001 is the practice clip: reached through the caption file too, it must still not be scored.
    write(join(dir, 'captions', 'lyra.json'), JSON.stringify([record('p225', 1), record('p227', 2), record('p228', 3)]));
    const result = await validateStudyDir(t.db, dir, { dataDir: t.dir });
    expect([...result.material!.utterances.keys()].sort()).toEqual(SPEAKERS.flatMap((s) => [1, 2, 3].map((n) => `vctk:${s}_00${n}`)));
    expect(result.material!.utterances.get('vctk:p227_002')).toMatchObject({ corpus: 'vctk', labels: { gender: 'male', accent: 'English', speaking_rate: 'slow speaking rate' } });
    expect(result.material!.captions.filter((c) => c.utteranceId === 'vctk:p225_001').map((c) => c.system).sort()).toEqual(['lyra', 'oracle']);
    expect(result.plan!.items.filter((i) => i.kind === 'rating').map((i) => i.utteranceId)).not.toContain('vctk:p225_001');

    const { studyId, summary } = await loadStudyDir(t.db, dir, { dataDir: t.dir });
    expect(summary.items).toEqual({ rating: 8, attention: 1, practice: 1 });
    const ids = t.db.prepare("SELECT DISTINCT utterance_id FROM items WHERE study_id = ?").pluck().all(studyId) as string[];
    expect(ids.every((id) => /^vctk:p22\d_00\d$/.test(id))).toBe(true);
  });

  it('a bad audio file in the corpus folder is refused at validate, by name, not left for the build to skip', async () => {
    const dir = setup(definition());
    writeFileSync(join(dir, 'corpus', 'VCTK', 'wav48', 'p228', 'p228_003.wav'), 'this is a text file renamed .wav');
    const error = await validateStudyDir(t.db, dir, { dataDir: t.dir }).catch((e: unknown) => e);
    expect(describeError(error)).toBe(
      'corpus/VCTK/wav48/p228/p228_003.wav:1:1 (top level): not a WAV or FLAC file (no RIFF/WAVE or fLaC header); fix or remove the file (expected a VCTK folder: wav48/pNNN/pNNN_NNN.wav (0.80) or wav48_silence_trimmed/pNNN/pNNN_NNN_micN.flac (0.92), with speaker-info.txt; see studies/README.md#vctk-folders)',
    );
  });

  it('names the systems there are when the study asks for one that is not', async () => {
    const dir = setup(definition({ systems: 'VCTK-typo' }));
    const error = await validateStudyDir(t.db, dir, { dataDir: t.dir }).catch((e: unknown) => e);
    expect(describeError(error)).toBe("vctk-mos/study.yaml:11:13 items.systems[0]: system VCTK-typo is not in the study's sources (task holistic_creative_synthesis has systems vctk)");
  });
});

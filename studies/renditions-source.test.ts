/**
 * `renditions` sources: a study's system audio read from its own files (validate decodes each and
 * refuses what the import would), imported by the build, and what a kind that plays systems' audio
 * asks the plan for (ManifestView.rendition). Real files, the real decoder, a real SQLite file.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { renditionStore } from '../audio-manifest/rendition-store';
import { manifestStore } from '../audio-manifest/store';
import { writeTone } from '../audio-manifest/test/audio';
import { ManifestView } from './build';
import { readMaterial } from './material';
import { loadStudyDir, validateStudyDir } from './load';
import { StudyDefinitionError } from './parse';
import { tempDb, type TempDb } from './test-support';

const DEMO = fileURLToPath(new URL('./demo/', import.meta.url));
const SYSTEMS = ['espeak-de-accent', 'espeak-en-fast', 'espeak-en-slow'];

let t: TempDb;
afterEach(() => t?.close());

/** The demo study copied to `<data>/studies/ab` with more sources after its judge files. */
function demoWith(sources: string[]): string {
  const dir = join(t.dir, 'studies', 'ab');
  cpSync(DEMO, dir, { recursive: true });
  const yaml = readFileSync(join(dir, 'study.yaml'), 'utf8');
  const judges = '  - { kind: judge, file: judges/*.json }\n';
  expect(yaml).toContain(judges);
  writeFileSync(join(dir, 'study.yaml'), yaml.replace(judges, judges + sources.map((s) => `  - ${s}\n`).join('')));
  return dir;
}

describe('renditions sources', () => {
  it('studies/README.md\'s folder example reads as documented: each file is the VCTK utterance its stem names', async () => {
    t = tempDb();
    const readme = readFileSync(fileURLToPath(new URL('./README.md', import.meta.url)), 'utf8');
    const layout = readme.split('### Renditions (system audio)')[1].split('\n### ')[0].split('```\n')[1].split('\n```')[0].split('\n').filter(Boolean);
    expect(layout.length).toBeGreaterThan(1);
    for (const file of layout) writeTone(join(t.dir, file));
    writeFileSync(join(t.dir, 'speaker-info.txt'), 'ID  AGE  GENDER  ACCENTS  REGION\n225  23  F    English    Southern  England\n');
    writeTone(join(t.dir, 'wav48', 'p225', 'p225_001.wav'));
    const material = await readMaterial(
      [{ kind: 'vctk', dir: t.dir }, { kind: 'renditions', dir: join(t.dir, 'tts-outputs') }],
      { roots: [t.dir], studyDir: t.dir },
    );
    expect(material.notes).toEqual([]);
    expect([...material.renditions.values()].map((r) => `${r.utteranceId} ${r.system}`).sort()).toEqual(['vctk:p225_001 fastpitch', 'vctk:p225_001 vits']);
  });

  it('a study naming the demo renditions and their scores reads and imports all 48; a plan finds each system\'s clip of an utterance', async () => {
    t = tempDb();
    const dir = demoWith(['{ kind: renditions, dir: renditions }', '{ kind: judge, file: renditions/mos-pred.csv }']);
    const validated = await validateStudyDir(t.db, dir, { dataDir: t.dir });
    const renditions = [...validated.material!.renditions.values()];
    expect(renditions).toHaveLength(48);
    expect(new Set(renditions.map((r) => r.system))).toEqual(new Set(SYSTEMS));
    // The renditions' automatic scores are the study's, not "skipped: no caption of that system".
    // (The demo's hand-written attention checks carry the build's blend warning, studies/text-classifier.test.ts; not this test's concern.)
    expect(validated.notes.filter((n) => !n.startsWith('attentionChecks:'))).toEqual([]);
    expect(validated.material!.judgeScores.filter((s) => s.judge === 'mos-pred')).toHaveLength(96);

    await loadStudyDir(t.db, dir, { dataDir: t.dir });
    const store = renditionStore(t.db);
    expect(store.count()).toEqual({ renditions: 48, systems: 3 });
    const manifest = manifestStore(t.db);
    const view = new ManifestView(t.db, 'holistic_creative_synthesis', { material: validated.material!, clipOf: (audio) => manifest.clipByPath(audio)?.id ?? null });
    const unscoped = new ManifestView(t.db, 'holistic_creative_synthesis', undefined);
    for (const system of SYSTEMS) {
      const clip = store.find('metaset:demo/demo-01.wav', system);
      expect(clip).not.toBeNull();
      expect(view.rendition('metaset:demo/demo-01.wav', system)).toBe(clip);
      expect(unscoped.rendition('metaset:demo/demo-01.wav', system)).toBe(clip);
    }
    expect(view.rendition('metaset:demo/demo-01.wav', 'lyra')).toBeNull();
  });

  it('refuses at validate, at the list line and field or the file, what the import would refuse', async () => {
    t = tempDb();
    const dir = demoWith(['{ kind: renditions, dir: renditions }', '{ kind: renditions, file: list.csv }', '{ kind: renditions, dir: more }']);
    writeFileSync(join(dir, 'broken.wav'), 'RIFF, but no audio');
    writeTone(join(dir, 'ok.wav'));
    writeTone(join(t.dir, 'outside.wav'));
    writeFileSync(join(dir, 'list.csv'), [
      'utterance_id,system,path',
      'metaset:demo/demo-01.wav,tts,ok.wav',
      'metaset:demo/demo-99.wav,tts,ok.wav',
      `demo-02,tts,${join(t.dir, 'outside.wav')}`,
      'demo-03,tts,broken.wav',
      '',
    ].join('\n'));
    mkdirSync(join(dir, 'more', 'tts-b'), { recursive: true });
    writeFileSync(join(dir, 'more', 'tts-b', 'demo-04.wav'), 'not audio');

    const error = await validateStudyDir(t.db, dir, { dataDir: t.dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudyDefinitionError);
    const problems = (error as StudyDefinitionError).problems.map((p) => ({ file: p.file, line: p.line, message: p.message.replace(/ \(expected a folder .*$/, '') }));
    expect(problems).toEqual(expect.arrayContaining([
      { file: 'list.csv', line: 3, message: expect.stringMatching(/^utterance_id: no utterance "metaset:demo\/demo-99.wav" in the study's sources; give an imported utterance's id/) },
      { file: 'list.csv', line: 4, message: expect.stringMatching(/^path: .*outside\.wav is outside the corpus roots/) },
      { file: 'list.csv', line: 5, message: `path: ${join(dir, 'broken.wav')} cannot be decoded: not a WAV or FLAC file (no RIFF/WAVE or fLaC header) (a rendition is a WAV (PCM 8–32-bit or float) or FLAC file)` },
      { file: 'more/tts-b/demo-04.wav', line: 1, message: `${join(dir, 'more/tts-b/demo-04.wav')} cannot be decoded: not a WAV or FLAC file (no RIFF/WAVE or fLaC header) (a rendition is a WAV (PCM 8–32-bit or float) or FLAC file)` },
    ]));
    expect(problems).toHaveLength(4);
    // Refused before anything is imported.
    await expect(loadStudyDir(t.db, dir, { dataDir: t.dir })).rejects.toBeInstanceOf(StudyDefinitionError);
    expect(renditionStore(t.db).count()).toEqual({ renditions: 0, systems: 0 });
  });
});

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listClips } from '../clips';
import { importMetasetFile } from '../metaset';
import { importRavdess } from '../ravdess';
import { importVctk } from '../vctk';
import { importVoxreasonFile } from '../voxreason';
import { tempManifest } from './db';

// Real corpus files beside the checkout (never required: the other tests cover everything here too).
const samples = process.env.EARMARK_SAMPLES ?? new URL('../../../shared/samples', import.meta.url).pathname;

describe.skipIf(!existsSync(join(samples, 'ravdess')))('real sample files (../shared/samples)', () => {
  let env: ReturnType<typeof tempManifest>;
  beforeAll(() => (env = tempManifest()));
  afterAll(() => env.cleanup());

  it('imports the RAVDESS clips with their real chunk layouts and parses every label', async () => {
    const report = await importRavdess(env.db, join(samples, 'ravdess'));
    expect(report.failures).toEqual([]);
    expect(report.imported).toBe(24);
    const clips = listClips(env.db, 'ravdess');
    const stereo = clips.find((c) => c.path === 'Actor_01/03-01-08-01-02-02-01.wav')!;
    expect(stereo).toMatchObject({ channels: 2, sampleRate: 48000, labels: { emotion: 'surprised', intensity: 'normal', statementCode: '02', repetition: 2, actor: 1, sex: 'male' } });
    expect(stereo.duration).toBeCloseTo(3.2699, 3);
    // README figures for two clips: RMS dBFS from the sample table.
    expect(stereo.loudnessDbfs).toBeCloseTo(-43.29, 1);
    expect(clips.find((c) => c.path === 'Actor_01/03-01-05-02-01-01-01.wav')).toMatchObject({ loudnessDbfs: -21.01, labels: { emotion: 'angry', intensity: 'strong' } });
    expect(new Set(clips.map((c) => c.labels.emotion)).size).toBe(8);
    expect(clips.filter((c) => c.labels.sex === 'female').map((c) => c.labels.actor)).toEqual(expect.arrayContaining([2, 12]));
  });

  it('imports the VCTK 0.80 layout and joins speaker-info.txt', async () => {
    const report = await importVctk(env.db, join(samples, 'vctk'));
    expect(report.failures).toEqual([]);
    expect(report.imported).toBe(16);
    const bySpeaker = new Map(listClips(env.db, 'vctk').map((c) => [c.labels.speaker, c.labels]));
    expect(bySpeaker.get('p255')).toMatchObject({ age: 19, gender: 'male', accent: 'Scottish', region: 'Galloway' });
    expect(bySpeaker.get('p376')).toMatchObject({ accent: 'Indian', region: null });
    expect(bySpeaker.get('p301')).toMatchObject({ accent: 'American', region: 'North Carolina', gender: 'female' });
  });

  it('imports the real MetaSet rows and links VoxReason cases to the RAVDESS clips by sha256', async () => {
    const report = await importMetasetFile(env.db, join(samples, 'metaset/styleinstructcaps/examples/sample_input.json'), { system: 'sample' });
    expect(report.failures).toEqual([]);
    expect(report.counts).toMatchObject({ utterances: 2, captions: 12, 'oracle captions': 12 });
    const splits = join(samples, 'voxreason/data/benchmark/source_label/splits');
    const lines: string[] = [];
    let cases = 0;
    let skipped = 0;
    for (const name of readdirSync(splits)) {
      const counts = importVoxreasonFile(env.db, join(splits, name), { onFailure: (l) => lines.push(l) }).counts;
      cases += counts.cases ?? 0;
      skipped += counts['plans skipped'] ?? 0;
    }
    // The README: 20 of the sample clips are VoxReason cases and byte-match the labelled originals.
    expect(cases).toBe(20);
    expect(lines.filter((l) => l.includes('sha256 mismatch'))).toEqual([]);
    // A corpus subset is normal: the 80 plans without a sample clip are counted, not failed.
    expect(lines).toEqual([]);
    expect(skipped).toBe(80);
  });
});

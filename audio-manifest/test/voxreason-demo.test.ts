import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clipFile, clipPeaks, listClips } from '../clips';
import { importDemo } from '../demo';
import { importRavdess } from '../ravdess';
import { counterfactualSystem, describePlan, importVoxreasonFile } from '../voxreason';
import { writeTone } from './audio';
import { count, tempManifest } from './db';

const gold = { emotion: 'calm', intent: 'reassure', pitch: 'lowered', energy: 'low', rate: 'slow', pause: 'medium', stance: 'supportive', emphasis: ['calm'] };
const voxCase = (stem: string, extra: Record<string, unknown> = {}) => ({
  case_id: `ravdess_${stem.replace(/-/g, '_')}`,
  target_text: 'Dogs are sitting by the door.',
  gold_cues: [{ cue_id: 'x_emotion', cue_type: 'emotion', label: 'calm' }],
  gold_plan: gold,
  counterfactuals: [{
    edit_id: `ravdess_${stem.replace(/-/g, '_')}_emotion_to_neutral`,
    changed_cue_id: 'x_emotion',
    description: 'Replace calm with neutral.',
    expected_plan_delta: { emotion: 'neutral', energy: 'medium', stance: 'neutral' },
  }],
  metadata: { source_record_id: stem, source_dataset: 'ravdess' },
  ...extra,
});

describe('VoxReason plans', () => {
  it('renders a plan as a short readable delivery description', () => {
    expect(describePlan(gold)).toBe("Calm and supportive, to reassure: lowered pitch, low energy, slow rate, medium pauses; emphasis on 'calm'.");
    expect(describePlan({ ...gold, emotion: 'neutral', stance: 'neutral', intent: 'seek_reassurance', emphasis: [] }))
      .toBe('Neutral, to seek reassurance: lowered pitch, low energy, slow rate, medium pauses.');
    expect(counterfactualSystem('ravdess_03_01', 'ravdess_03_01_emotion_to_neutral')).toBe('voxreason-cf:emotion_to_neutral');
  });

  describe('importVoxreasonFile', () => {
    let env: ReturnType<typeof tempManifest>;
    beforeEach(() => (env = tempManifest()));
    afterEach(() => env.cleanup());

    it('links cases to RAVDESS utterances and stores gold and counterfactual descriptions', async () => {
      writeTone(join(env.dir, 'RAVDESS/Actor_02/03-01-02-01-02-01-02.wav'));
      await importRavdess(env.db, join(env.dir, 'RAVDESS'));
      const file = join(env.dir, 'cases.jsonl');
      writeFileSync(file, [
        JSON.stringify(voxCase('03-01-02-01-02-01-02', { metadata: { source_record_id: '03-01-02-01-02-01-02', context_audio_sha256: 'f'.repeat(64) } })),
        JSON.stringify(voxCase('03-01-05-01-01-01-01')),
        '{"case_id": "broken"',
        JSON.stringify({ ...voxCase('03-01-02-01-02-01-02'), gold_plan: { ...gold, emphasis: 'calm' } }),
        '',
      ].join('\n'));
      const lines: string[] = [];
      const report = importVoxreasonFile(env.db, file, { onFailure: (l) => lines.push(l) });
      // A case whose clip is not imported (a corpus subset) is skipped and counted, not failed.
      expect(report.counts).toEqual({ cases: 1, captions: 2, 'plans skipped': 1 });
      expect(lines).toEqual([
        `${file}:3: not valid JSON (a VoxReason cases file has one JSON object per line)`,
        `${file}:4: gold_plan.emphasis: Invalid input: expected array, received string`,
        `${file}:1: warning: case ravdess_03_01_02_01_02_01_02: the imported audio differs from the file VoxReason labelled (sha256 mismatch)`,
      ]);
      expect(report.failures).toHaveLength(2);
      expect(env.db.prepare('SELECT system, task, text FROM captions ORDER BY system').all()).toEqual([
        { system: 'voxreason-cf:emotion_to_neutral', task: 'delivery_plan', text: "Neutral, to reassure: lowered pitch, medium energy, slow rate, medium pauses; emphasis on 'calm'." },
        { system: 'voxreason-gold', task: 'delivery_plan', text: "Calm and supportive, to reassure: lowered pitch, low energy, slow rate, medium pauses; emphasis on 'calm'." },
      ]);
    });
  });
});

describe('importDemo (the bundled demo study)', () => {
  let env: ReturnType<typeof tempManifest>;
  beforeEach(() => (env = tempManifest()));
  afterEach(() => env.cleanup());

  it('brings the demo clips, captions and judge scores through the manifest', async () => {
    const demoDir = new URL('../../studies/demo', import.meta.url).pathname;
    const lines: string[] = [];
    const report = await importDemo(env.db, demoDir, { onFailure: (l) => lines.push(l) });
    expect(lines).toEqual([]);
    // 16 demo clips and 48 renditions (3 systems × 16 sentences; renditions.test.ts checks them).
    // And each rendition's degraded copy (degraded.test.ts): 48 more clips; and its two MUSHRA
    // anchors, 3.5 and 7 kHz low-pass (anchors.ts): 96 more.
    expect(report.imported).toBe(64 + 48 + 96);
    const clips = listClips(env.db, 'metaset');
    expect(clips).toHaveLength(16);
    for (const clip of clips) {
      expect(clip).toMatchObject({ corpus: 'metaset', sampleRate: 16000, channels: 1, format: 'wav', codec: 'pcm_s16le' });
      expect(clip.duration).toBeGreaterThanOrEqual(1.5);
      expect(clip.duration).toBeLessThanOrEqual(3);
      expect(clipPeaks(env.db, clip.id)!.data.length).toBe(2 * Math.ceil(clip.duration * 100));
      expect(clipFile(env.db, clip.id)!.absPath).toBe(join(demoDir, 'audio', clip.path));
    }
    const systems = env.db.prepare('SELECT system, COUNT(*) AS n FROM captions GROUP BY system ORDER BY system').all();
    expect(systems).toEqual(['lyra', 'oracle', 'parrot-7b', 'sonnet-cap', 'whisper-style'].map((system) => ({ system, n: 16 })));
    // 5 systems × 2 judges × 2 runs × 16 clips, less the one unparsable answer.
    expect(count(env.db, "SELECT COUNT(*) AS n FROM judge_scores WHERE judge <> 'mos-pred'")).toBe(319);
    expect(report.counts['missing scores']).toBe(1);
    const mean = (system: string): number =>
      (env.db.prepare('SELECT AVG(score) AS m FROM judge_scores WHERE system = ?').get(system) as { m: number }).m;
    expect(mean('oracle')).toBeGreaterThan(mean('parrot-7b'));
    expect(mean('lyra')).toBeGreaterThan(mean('whisper-style') + 2);

    const again = await importDemo(env.db, demoDir);
    expect([again.imported, again.updated]).toEqual([0, 0]);
    expect(count(env.db, 'SELECT COUNT(*) AS n FROM clips')).toBe(64 + 48 + 96);
    expect(count(env.db, "SELECT COUNT(*) AS n FROM judge_scores WHERE judge <> 'mos-pred'")).toBe(319);
  });
});

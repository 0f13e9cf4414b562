import { mkdirSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clipFile, clipPeaks, listClips } from '../clips';
import { importRavdess, parseRavdessName } from '../ravdess';
import { writeTone, writeWav, sine } from './audio';
import { count, tempManifest } from './db';

// Root reads any directory whatever its mode (and CI runs as root), so a permission failure is
// injected: directories named here fail to list as the kernel would refuse them.
const unreadable = vi.hoisted(() => new Set<string>());
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const readdirSync = ((path: Parameters<typeof fs.readdirSync>[0], options?: unknown) => {
    if (unreadable.has(String(path))) throw Object.assign(new Error(`EACCES: permission denied, scandir '${String(path)}'`), { code: 'EACCES' });
    return (fs.readdirSync as (p: unknown, o?: unknown) => unknown)(path, options);
  }) as typeof fs.readdirSync;
  return { ...fs, default: { ...fs, readdirSync }, readdirSync };
});

describe('parseRavdessName', () => {
  it('reads every field of a speech file name', () => {
    expect(parseRavdessName('03-01-06-02-01-02-12')).toEqual({
      modality: 'audio-only', vocalChannel: 'speech', emotion: 'fearful', intensity: 'strong',
      statement: 'Kids are talking by the door.', statementCode: '01', repetition: 2, actor: 12, sex: 'female',
    });
    expect(parseRavdessName('01-02-05-01-02-01-07')).toMatchObject({ modality: 'audio-video', vocalChannel: 'song', emotion: 'angry', actor: 7, sex: 'male' });
  });

  it.each([
    ['03-01-06-02-01', /seven two-digit fields/],
    ['03-01-6-02-01-02-12', /seven two-digit fields/],
    ['04-01-01-01-01-01-01', /unknown modality code 04/],
    ['03-03-01-01-01-01-01', /unknown vocal channel code 03/],
    ['03-01-09-01-01-01-01', /unknown emotion code 09/],
    ['03-01-03-03-01-01-01', /unknown intensity code 03/],
    ['03-01-03-01-03-01-01', /unknown statement code 03/],
    ['03-01-03-01-01-03-01', /unknown repetition code 03/],
    ['03-01-03-01-01-01-25', /unknown actor code 25/],
    ['03-01-01-02-01-01-01', /neutral has no strong intensity/],
    ['03-02-08-01-01-01-01', /song recordings have no surprised/],
  ])('refuses %s', (stem, reason) => {
    expect(() => parseRavdessName(stem)).toThrow(reason);
  });
});

describe('importRavdess', () => {
  let env: ReturnType<typeof tempManifest>;
  let root: string;
  const lines: string[] = [];
  beforeEach(() => {
    env = tempManifest();
    root = join(env.dir, 'RAVDESS');
    lines.length = 0;
    writeWav(join(root, 'Actor_01/03-01-05-02-01-01-01.wav'), { sampleRate: 48000, extraChunks: true, channels: [sine(0.4, 48000, 200, 0.7)] });
    writeWav(join(root, 'Actor_01/03-01-08-01-02-02-01.wav'), { sampleRate: 48000, channels: [sine(0.3, 48000, 200, 0.2), sine(0.3, 48000, 300, 0.2)] });
    writeTone(join(root, 'Actor_02/03-01-02-01-02-01-02.wav'), 0.3, 48000);
  });
  afterEach(() => env.cleanup());

  it('imports clips with labels, utterances and opaque ids', async () => {
    const report = await importRavdess(env.db, root, { onFailure: (l) => lines.push(l) });
    expect(report.failures).toEqual([]);
    expect(report.imported).toBe(3);
    const clips = listClips(env.db, 'ravdess');
    expect(clips.map((c) => c.path)).toEqual([
      'Actor_01/03-01-05-02-01-01-01.wav', 'Actor_01/03-01-08-01-02-02-01.wav', 'Actor_02/03-01-02-01-02-01-02.wav',
    ]);
    const stereo = clips[1];
    expect(stereo).toMatchObject({ sampleRate: 48000, channels: 2, labels: { emotion: 'surprised', sex: 'male', statementCode: '02' } });
    expect(stereo.duration).toBeCloseTo(0.3, 6);
    for (const clip of clips) {
      expect(clip.id).toMatch(/^c[0-9a-f]{20}$/);
      const file = clipFile(env.db, clip.id)!;
      expect(file.absPath).toBe(join(root, clip.path));
      // The id must not be derivable from the content (or the name) by someone holding the corpus.
      expect(file.sha256.startsWith(clip.id.slice(1))).toBe(false);
      expect(clip.id).not.toContain('03-01');
      const peaks = clipPeaks(env.db, clip.id)!;
      expect(peaks.data.every((v) => v >= -1 && v <= 1)).toBe(true);
    }
    const utterance = env.db.prepare("SELECT * FROM utterances WHERE id = 'ravdess:03-01-02-01-02-01-02'").get() as { clip_id: string; transcript: string };
    expect(utterance.transcript).toBe('Dogs are sitting by the door.');
    expect(utterance.clip_id).toBe(clips[2].id);
  });

  it('is idempotent and incremental: unchanged files skipped, touched files rehashed, edited files redecoded', async () => {
    await importRavdess(env.db, root);
    const before = listClips(env.db);
    const again = await importRavdess(env.db, root);
    expect([again.imported, again.updated, again.unchanged]).toEqual([0, 0, 3]);
    expect(count(env.db, 'SELECT COUNT(*) AS n FROM clips')).toBe(3);
    expect(count(env.db, 'SELECT COUNT(*) AS n FROM utterances')).toBe(3);

    const touched = join(root, 'Actor_02/03-01-02-01-02-01-02.wav');
    utimesSync(touched, new Date(), new Date(Date.now() + 5000));
    const edited = join(root, 'Actor_01/03-01-05-02-01-01-01.wav');
    writeTone(edited, 0.9, 48000);
    const third = await importRavdess(env.db, root);
    expect([third.imported, third.updated, third.unchanged]).toEqual([0, 1, 2]);
    const after = listClips(env.db);
    expect(after.map((c) => c.id)).toEqual(before.map((c) => c.id));
    expect(after[0].duration).toBeCloseTo(0.9, 6);
    expect(clipFile(env.db, after[2].id)!.mtimeMs).toBeGreaterThan(Date.now());
  });

  it('reports each bad file on one line naming it and imports the rest', async () => {
    const bad = {
      'Actor_03/03-01-01-02-01-01-03.wav': 'neutral has no strong intensity',
      'Actor_03/03-01-09-01-01-01-03.wav': 'unknown emotion code 09',
      'Actor_03/kids-talking.wav': 'seven two-digit fields',
      'Actor_03/03-01-03-01-01-01-05.wav': 'is in Actor_03 but its name says actor 05',
      'Actor_03/03-01-03-01-01-02-03.wav': 'not a WAV or FLAC file',
      'Actor_03/03-01-04-01-01-02-03.wav': 'truncated',
    };
    writeTone(join(root, 'Actor_03/03-01-01-02-01-01-03.wav'));
    writeTone(join(root, 'Actor_03/03-01-09-01-01-01-03.wav'));
    writeTone(join(root, 'Actor_03/kids-talking.wav'));
    writeTone(join(root, 'Actor_03/03-01-03-01-01-01-05.wav'));
    writeFileSync(join(root, 'Actor_03/03-01-03-01-01-02-03.wav'), '<html>not audio</html>');
    writeTone(join(root, 'Actor_03/03-01-04-01-01-02-03.wav'));
    truncateSync(join(root, 'Actor_03/03-01-04-01-01-02-03.wav'), 3000);
    writeFileSync(join(root, 'Actor_03/notes.txt'), 'ignored: not a .wav');

    const report = await importRavdess(env.db, root, { onFailure: (l) => lines.push(l) });
    expect(report.imported).toBe(3);
    expect(report.failures).toHaveLength(6);
    for (const [file, reason] of Object.entries(bad)) {
      const line = lines.filter((l) => l.startsWith(join(root, file) + ':'));
      expect(line, file).toHaveLength(1);
      expect(line[0]).toContain(reason);
    }
    expect(count(env.db, "SELECT COUNT(*) AS n FROM clips WHERE path LIKE 'Actor_03/%'")).toBe(0);
  });

  it('reports a missing or unreadable directory and continues', async () => {
    const report = await importRavdess(env.db, join(env.dir, 'nowhere'), { onFailure: (l) => lines.push(l) });
    expect(report.failures[0].reason).toMatch(/cannot read directory \(not found\)/);
    expect(lines).toHaveLength(1);
  });

  it('skips an unreadable Actor folder with a clear line', async () => {
    const locked = join(root, 'Actor_04');
    mkdirSync(locked);
    unreadable.add(locked);
    try {
      const report = await importRavdess(env.db, root, { onFailure: (l) => lines.push(l) });
      expect(report.imported).toBe(3);
      expect(lines).toEqual([`${locked}: cannot read directory (permission denied)`]);
    } finally {
      unreadable.delete(locked);
    }
  });
});

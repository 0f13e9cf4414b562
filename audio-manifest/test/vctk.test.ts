import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listClips } from '../clips';
import { ImportReport } from '../report';
import { importVctk, parseSpeakerInfo } from '../vctk';
import { writeTone } from './audio';
import { tempManifest } from './db';

// The real file's quirks: 0.80 header and IDs without 'p', REGION with spaces or missing, two-word
// accents, trailing whitespace; the 0.92 release adds the 'p' and a parenthesised comment.
const SPEAKER_INFO_080 = `ID  AGE  GENDER  ACCENTS  REGION  
225  23  F    English    Southern  England
226  22  M    English    Surrey
248  23  F    Indian  
326  26  M    Australian  English  Sydney
335  25  F    NewZealand  English    
376  22  M    Indian
x9  abc  F  English  Bad
`;
const SPEAKER_INFO_092 = `ID  AGE  GENDER  ACCENTS  REGION  COMMENTS 
p225  23  F    English    Southern  England
p280  25  F    Unknown    France  (mic2 files unavailable)
s5  22  F    English    Unknown
`;

describe('parseSpeakerInfo', () => {
  it('tolerates missing and multi-word regions, both ID spellings and comments', () => {
    const lines: string[] = [];
    const speakers = parseSpeakerInfo(SPEAKER_INFO_080, 'speaker-info.txt', new ImportReport((l) => lines.push(l)));
    expect(speakers.get('p225')).toEqual({ speaker: 'p225', age: 23, gender: 'female', accent: 'English', region: 'Southern England', comment: null });
    expect(speakers.get('p248')).toMatchObject({ accent: 'Indian', region: null });
    expect(speakers.get('p326')).toMatchObject({ accent: 'Australian English', region: 'Sydney', gender: 'male' });
    expect(speakers.get('p335')).toMatchObject({ accent: 'NewZealand English', region: null });
    expect(speakers.get('p376')).toMatchObject({ accent: 'Indian', region: null });
    expect(lines).toEqual(['speaker-info.txt:8: age: Invalid input: expected number, received NaN']);
    const v092 = parseSpeakerInfo(SPEAKER_INFO_092, 'speaker-info.txt', new ImportReport());
    expect(v092.get('p225')).toMatchObject({ region: 'Southern England' });
    expect(v092.get('p280')).toMatchObject({ accent: 'Unknown', region: 'France', comment: '(mic2 files unavailable)' });
    expect(v092.get('s5')).toMatchObject({ gender: 'female' });
  });
});

describe('importVctk', () => {
  let env: ReturnType<typeof tempManifest>;
  const lines: string[] = [];
  beforeEach(() => {
    env = tempManifest();
    lines.length = 0;
  });
  afterEach(() => env.cleanup());

  it('imports the 0.80 layout with speaker info and transcripts (p315-style speakers have none)', async () => {
    const root = join(env.dir, 'VCTK-Corpus');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'speaker-info.txt'), SPEAKER_INFO_080);
    writeTone(join(root, 'wav48/p225/p225_001.wav'));
    writeTone(join(root, 'wav48/p326/p326_010.wav'));
    writeTone(join(root, 'wav48/p226/notes.wav.bak'));
    writeTone(join(root, 'wav48/p226/p226-001.wav'));
    mkdirSync(join(root, 'txt/p225'), { recursive: true });
    writeFileSync(join(root, 'txt/p225/p225_001.txt'), 'Please call Stella.\n');
    const report = await importVctk(env.db, root, { onFailure: (l) => lines.push(l) });
    expect(report.imported).toBe(2);
    expect(lines.filter((l) => !l.includes('speaker-info.txt:'))).toEqual([`${join(root, 'wav48/p226/p226-001.wav')}: file name is not pNNN_NNN.wav`]);
    const clips = listClips(env.db, 'vctk');
    expect(clips.map((c) => [c.path, c.labels.accent, c.labels.region])).toEqual([
      ['wav48/p225/p225_001.wav', 'English', 'Southern England'],
      ['wav48/p326/p326_010.wav', 'Australian English', 'Sydney'],
    ]);
    const transcripts = env.db.prepare('SELECT id, transcript FROM utterances ORDER BY id').all();
    expect(transcripts).toEqual([
      { id: 'vctk:p225_001', transcript: 'Please call Stella.' },
      { id: 'vctk:p326_010', transcript: null },
    ]);
    expect(report.counts['clips without transcript']).toBe(1);
  });

  it('imports the 0.92 FLAC layout, one microphone chosen by flag', async () => {
    const root = join(env.dir, 'VCTK-0.92');
    mkdirSync(join(root, 'wav48_silence_trimmed/p225'), { recursive: true });
    writeFileSync(join(root, 'speaker-info.txt'), SPEAKER_INFO_092);
    const flac = new URL('./fixtures/tone-16.flac', import.meta.url);
    const flac24 = new URL('./fixtures/tone-24-stereo.flac', import.meta.url);
    copyFileSync(flac, join(root, 'wav48_silence_trimmed/p225/p225_001_mic1.flac'));
    copyFileSync(flac24, join(root, 'wav48_silence_trimmed/p225/p225_001_mic2.flac'));
    copyFileSync(flac, join(root, 'wav48_silence_trimmed/p225/p225_002_mic1.flac'));
    const mic1 = await importVctk(env.db, root, { onFailure: (l) => lines.push(l) });
    expect(mic1.imported).toBe(2);
    expect(lines).toEqual([]);
    const clips = listClips(env.db, 'vctk');
    expect(clips[0]).toMatchObject({ path: 'wav48_silence_trimmed/p225/p225_001_mic1.flac', sampleRate: 16000, labels: { speaker: 'p225', mic: 1 } });
    expect(clips[0].codec).toBe('flac_s16');

    const other = tempManifest();
    try {
      const mic2 = await importVctk(other.db, root, { mic: 2 });
      expect(mic2.imported).toBe(1);
      expect(listClips(other.db)[0]).toMatchObject({ channels: 2, sampleRate: 48000, labels: { mic: 2 } });
    } finally {
      other.cleanup();
    }
  });

  it('says so when the folder has neither layout', async () => {
    const report = await importVctk(env.db, env.dir, { onFailure: (l) => lines.push(l) });
    expect(report.failures).toHaveLength(1);
    expect(lines[0]).toContain('no wav48 folder');
  });
});

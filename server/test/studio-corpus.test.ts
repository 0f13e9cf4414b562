/**
 * The studio takes in a corpus: an audio folder (a zip or the files of a folder) decoded and checked
 * at upload with file-by-file errors, VoxReason .jsonl plans recognised, and sources written from
 * them; the study list names the corpus roots in force. Audio is made here (no corpus needed).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sine, wavBytes } from '../../audio-manifest/test/audio';
import { startTestServer, type TestServer } from '../testing/server';
import { call } from '../testing/client';

let server: TestServer;
let researcher: string;
const api = (path: string, init: Parameters<typeof call>[1] = {}) => call(`${server.url}${path}`, { token: researcher, ...init });

beforeAll(async () => {
  server = await startTestServer({ studies: [] });
  researcher = (await server.app.store.accessTokens.create('researcher')).token;
});
afterAll(() => server.close());

const STEMS = ['03-01-01-01-01-01-01', '03-01-05-02-01-01-01', '03-01-03-01-01-02-01', '03-01-01-01-01-01-02', '03-01-05-02-02-02-02', '03-01-04-01-01-01-02'];
const wav = (n: number) => Buffer.from(wavBytes({ sampleRate: 16000, channels: [sine(0.3, 16000, 160 + 15 * n, 0.3)] })).toString('base64');
/** A RAVDESS subset as the browser sends a chosen folder: paths inside the folder, under its own name. */
const ravdessFiles = () => STEMS.map((stem, n) => ({ path: `RAVDESS/Actor_${stem.slice(-2)}/${stem}.wav`, content: wav(n) }));

const plan = (stem: string) =>
  JSON.stringify({
    case_id: `ravdess_${stem.replaceAll('-', '_')}`,
    gold_plan: { emotion: 'angry', intent: 'confront', pitch: 'raised', energy: 'high', rate: 'fast', pause: 'short', stance: 'forceful', emphasis: [] },
    counterfactuals: [{ edit_id: `ravdess_${stem.replaceAll('-', '_')}_emotion_to_neutral`, expected_plan_delta: { emotion: 'neutral', energy: 'medium', stance: 'neutral' } }],
    metadata: { source_record_id: stem },
  });

const MOS = `title: How natural is the voice?
consent: I agree.
instructions: Rate each clip.
question: How natural is it?
trial: { kind: rating, scale: { points: 5 }, caption: false }
items:
  mode: sample
  count: 5
  systems: [placeholder]
  maxPerUtterance: 1
practice:
  - { utterance: ravdess:03-01-01-01-01-01-01, score: 5 }
design: { kind: crossed }
targetListeners: 2
completion: { code: NAT-7Q2X }
`;

describe('the studio takes in a corpus', () => {
  it('refuses an audio folder file by file (nothing kept), takes a good one, writes its source and builds an audio-only MOS', async () => {
    expect((await api('/api/studio/studies', { body: { name: 'nat', yaml: MOS } })).status).toBe(201);
    const folder = join(server.dataDir, 'studies', 'nat', 'audio');

    const bad = await api('/api/studio/studies/nat/audio', {
      body: {
        folder: 'ravdess',
        files: [...ravdessFiles(), { path: 'RAVDESS/Actor_01/03-01-02-01-01-01-01.wav', content: Buffer.from('not audio').toString('base64') }, { path: 'RAVDESS/notes.docx', content: 'AAAA' }],
      },
    });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.problems.map((p: { file: string; message: string }) => `${p.file}: ${p.message}`)).toEqual(['notes.docx: is not WAV, FLAC or .txt (speaker-info.txt, transcripts); leave it out of the folder']);
    const corrupt = await api('/api/studio/studies/nat/audio', { body: { folder: 'ravdess', files: [...ravdessFiles(), { path: 'RAVDESS/Actor_01/03-01-02-01-01-01-01.wav', content: Buffer.from('not audio').toString('base64') }] } });
    expect(corrupt.status).toBe(400);
    expect(corrupt.body.problems).toEqual([expect.objectContaining({ file: 'Actor_01/03-01-02-01-01-01-01.wav', message: 'not a WAV or FLAC file (no RIFF/WAVE or fLaC header)' })]);
    expect(corrupt.body.message).toMatch(/^1 file of audio\/ravdess refused; nothing was kept/);
    const escape = await api('/api/studio/studies/nat/audio', { body: { folder: 'ravdess', files: [{ path: '../../escape.wav', content: wav(0) }, { path: 'a/b.wav', content: wav(1) }] } });
    expect(escape.status).toBe(400);
    expect(escape.body.problems[0].message).toMatch(/the name "\.\." is not allowed/);
    // Alone, its leading .. is not taken for the folder's own name.
    const alone = await api('/api/studio/studies/nat/audio', { body: { folder: 'ravdess', files: [{ path: '../escape.wav', content: wav(0) }] } });
    expect(alone.status).toBe(400);
    expect(alone.body.problems[0].message).toMatch(/the name "\.\." is not allowed/);
    expect(existsSync(folder) ? readdirSync(folder) : []).toEqual([]);

    const good = await api('/api/studio/studies/nat/audio', { body: { folder: 'ravdess', files: ravdessFiles() } });
    expect(good.status, good.text).toBe(201);
    expect(good.body.audio).toEqual([{ name: 'ravdess', clips: 6, corpus: 'ravdess' }]);
    expect(readdirSync(join(folder, 'ravdess')).sort()).toEqual(['Actor_01', 'Actor_02']);
    expect((await api('/api/studio/studies/nat/audio', { body: { folder: 'ravdess', files: ravdessFiles() } })).status).toBe(409);

    const sources = await api('/api/studio/studies/nat/sources', { body: {} });
    expect(sources.status, sources.text).toBe(200);
    expect(sources.body.yaml).toContain('{ kind: ravdess, dir: audio/ravdess }');
    expect(sources.body.yaml).toContain('systems: [ ravdess ]');
    const validated = await api('/api/studio/studies/nat/validate', { method: 'POST' });
    expect(validated.status, validated.text).toBe(200);
    expect(validated.body.items).toMatchObject({ rating: 5, practice: 1 });
    expect((await api('/api/studio/studies/nat/build', { method: 'POST' })).status).toBe(200);
    const opened = await api('/api/studio/studies/nat/open', { method: 'POST' });
    expect(opened.status, opened.text).toBe(200);
    expect(opened.body.status).toBe('open');
  });

  it('takes a zip (a VCTK folder recognised by its layout) and VoxReason .jsonl plans, with a pointer to the format when wrong', async () => {
    expect((await api('/api/studio/studies', { body: { name: 'plans', yaml: MOS } })).status).toBe(201);
    const vctk = zipSync({
      'VCTK/speaker-info.txt': Buffer.from('ID  AGE  GENDER  ACCENTS  REGION\n225  23  F    English    Southern  England\n'),
      'VCTK/wav48/p225/p225_001.wav': Buffer.from(wav(1), 'base64'),
      'VCTK/wav48/p225/p225_002.wav': Buffer.from(wav(2), 'base64'),
      '__MACOSX/VCTK/._speaker-info.txt': Buffer.from('junk'),
    });
    const zipped = await api('/api/studio/studies/plans/audio', { body: { folder: 'vctk', zip: Buffer.from(vctk).toString('base64') } });
    expect(zipped.status, zipped.text).toBe(201);
    expect(zipped.body.audio).toEqual([{ name: 'vctk', clips: 2, corpus: 'vctk' }]);
    const notZip = await api('/api/studio/studies/plans/audio', { body: { folder: 'other', zip: Buffer.from('PK nope').toString('base64') } });
    expect(notZip.status).toBe(400);
    expect(notZip.body.problems[0].message).toMatch(/^cannot be unpacked: .*; upload a \.zip of the folder/);

    const cases = STEMS.map(plan).join('\n');
    const ok = await api('/api/studio/studies/plans/files', { body: { kind: 'plans', name: 'cases.jsonl', content: `${cases}\n` } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.plans).toEqual(['cases.jsonl']);
    // Today's failure: a .jsonl renamed .json read as one JSON value ("… position 3399").
    const renamed = await api('/api/studio/studies/plans/files', { body: { kind: 'captions', name: 'cases.json', content: cases } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.message).toBe('captions/cases.json is not JSON: it holds JSON Lines (one object per line), as VoxReason plans do; upload it as plans, named .jsonl (expected JSON Lines: one VoxReason case object per line; see studies/README.md#voxreason-plans)');
    const wrong = await api('/api/studio/studies/plans/files', { body: { kind: 'plans', name: 'bad.jsonl', content: `${plan(STEMS[0])}\n{"case_id": 3}\n` } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/^plans\/bad\.jsonl:2: .*\(expected JSON Lines: one VoxReason case object per line; see studies\/README\.md#voxreason-plans\)$/);
    const asCaptions = await api('/api/studio/studies/plans/files', { body: { kind: 'captions', name: 'cases.jsonl', content: cases } });
    expect(asCaptions.body.message).toBe('captions/cases.jsonl is not a MetaSet caption file (.json): it holds JSON Lines, as VoxReason plans do; upload it as plans (.jsonl)');

    const sources = await api('/api/studio/studies/plans/sources', { body: {} });
    expect(sources.status, sources.text).toBe(200);
    expect(sources.body.yaml).toContain('{ kind: vctk, dir: audio/vctk }');
    expect(sources.body.yaml).toContain('{ kind: voxreason, file: plans/cases.jsonl }');
  });

  it('lists the corpus roots in force with the studies', async () => {
    const list = await api('/api/studio/studies');
    expect(list.status).toBe(200);
    expect(list.body.roots).toEqual([expect.stringMatching(/studies\/?$/), join(server.dataDir, 'studies')]);
  });
});

/**
 * What a study's listeners receive instead of the corpus file (docs/blinding.md): a copy made
 * at build, decoded and re-encoded as 16-bit PCM WAV at the clip's own sample rate and channel
 * count, with a fresh 44-byte header and nothing else (LIST/INFO, id3, bext, cue… are gone), and
 * the study's loudness gain applied: the clip's level by the study's measure (loudness/: P.56 active
 * speech level in dBov, BS.1770 integrated loudness in LUFS, or whole-clip RMS in dBFS) taken to the
 * target, then re-quantised with seeded TPDF dither (dither.ts). Copies are content-addressed files under
 * `<data>/served-audio/`, shared by studies that make the same copy, written once and reused.
 * A clip a trial plays twice (ABX's X) also gets a replay: its copy again with a keyed ±1 LSB
 * TPDF dither, so its bytes, id and validators are its own (docs/blinding.md).
 */
import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Db } from '../db/open';
import type { Loudness } from '../contract/study-definition';
import { AudioError, decode, peaks, type Peaks } from './decode';
import { onPcm16Grid, toPcm16 } from './dither';
import { installationSecret } from './ids';
import { describeTarget, measureLevel, unitOf } from './loudness';
import { manifestStore } from './store';
import { wavFile } from './wav';

/** How loud clips play (the study's `loudness:`, as parsed). */
export type LoudnessSettings = Loudness;

/** No sample of a copy goes above this: a gain that would push the peak higher is lowered to fit. */
export const PEAK_CEILING_DBFS = -1;
const FORMAT = 'wav-pcm16';
const PCM_SCALE = 32768;

export interface ServedCopy {
  wav: Uint8Array;
  /** Gain applied, dB; 0 when loudness is off or the clip is digital silence. */
  gainDb: number;
  /** The gain was lowered below what the target asked for, so the peak stays at the ceiling. */
  peakLimited: boolean;
  /** The copy's own level by the study's measure (in its unit: dBov, LUFS or dBFS RMS); with loudness off, RMS dBFS. */
  loudnessDbfs: number | null;
  /** The copy was re-quantised with TPDF dither (it was not on the 16-bit grid at its gain). */
  dithered: boolean;
  duration: number;
  /** Waveform of the copy: drawn at the applied gain. */
  peaks: Peaks;
}

const dbToGain = (db: number): number => 10 ** (db / 20);

/** The gain (dB) that takes a clip's `level` (in the measure's unit) to the target without a sample above the ceiling. */
export function loudnessGain(level: number | null, peak: number, loudness: LoudnessSettings): { gainDb: number; peakLimited: boolean } {
  if (!loudness.normalize || level === null || peak === 0) return { gainDb: 0, peakLimited: false };
  const wanted = loudness.target - level;
  const ceiling = PEAK_CEILING_DBFS - 20 * Math.log10(peak);
  return wanted > ceiling ? { gainDb: ceiling, peakLimited: true } : { gainDb: wanted, peakLimited: false };
}

/** The copy's level as the summary states it: by the study's measure, or RMS when loudness is off. */
const measureOf = (loudness: LoudnessSettings) => (loudness.normalize ? loudness.measure : 'rms');

/**
 * The dither's seed: 32 bits of the sha256 of the decoded samples, so the same audio gives the same
 * copy in any installation and study whatever metadata its file carries, and builds are reproducible.
 */
function ditherSeed(channels: Float32Array[]): number {
  const hash = createHash('sha256');
  for (const channel of channels) hash.update(new Uint8Array(channel.buffer, channel.byteOffset, channel.byteLength));
  return hash.digest().readUInt32LE(0);
}

/**
 * A clip's replay, made from its copy: every sample requantised once more with TPDF dither from
 * `seed` (keyed by the installation secret, so nobody holding the copy can compute the replay),
 * so each sample is the copy's or one LSB off it. A clip too short for the dither to move any
 * sample gets its first sample moved by one LSB, so the replay is never byte-identical to the copy.
 */
export async function renderReplay(copy: Uint8Array, seed: number): Promise<{ wav: Uint8Array; peaks: Peaks }> {
  const decoded = await decode(copy);
  const pcm = toPcm16(decoded.channels, 1, seed);
  const original = toPcm16(decoded.channels, 1, null);
  if (pcm.every((v, i) => v === original[i])) pcm[0] = original[0] === PCM_SCALE - 1 ? original[0] - 1 : original[0] + 1;
  const count = decoded.channels.length;
  const frames = decoded.channels[0].length;
  const played = decoded.channels.map(() => new Float32Array(frames));
  for (let i = 0; i < frames; i++) for (let c = 0; c < count; c++) played[c][i] = pcm[i * count + c] / PCM_SCALE;
  return { wav: wavFile(pcm, count, decoded.sampleRate), peaks: peaks(played, decoded.sampleRate) };
}

/** Decodes a WAV or FLAC file's bytes and renders the copy listeners get. */
export async function renderServedCopy(source: Uint8Array, loudness: LoudnessSettings): Promise<ServedCopy> {
  const decoded = await decode(source);
  const frames = decoded.channels[0]?.length ?? 0;
  if (frames === 0) throw new AudioError('contains no audio samples');
  let peak = 0;
  for (const channel of decoded.channels) for (const v of channel) peak = Math.max(peak, Math.abs(v));
  const measure = measureOf(loudness);
  const level = (gainDb: number) => {
    const g = dbToGain(gainDb);
    return measureLevel(measure, g === 1 ? decoded.channels : decoded.channels.map((ch) => ch.map((v) => v * g)), decoded.sampleRate);
  };
  let { gainDb, peakLimited } = loudnessGain(level(0), peak, loudness);
  // P.56's thresholds are fixed steps of full scale, so its reading of a scaled clip is not exactly the
  // reading plus the gain (up to ~0.1 dB on short clips): correct the gain on the scaled clip, as
  // sv56-based normalisers do. RMS and BS.1770 scale exactly and need no second look.
  for (let i = 0; i < 3 && measure === 'speech-level' && !peakLimited && gainDb !== 0; i++) {
    const error = loudness.target - (level(gainDb) ?? loudness.target);
    if (Math.abs(error) < 0.005) break;
    // The level that asks for the corrected gain, so the peak ceiling still applies to it.
    ({ gainDb, peakLimited } = loudnessGain(loudness.target - gainDb - error, peak, loudness));
  }
  const gain = dbToGain(gainDb);
  const dithered = loudness.dither && !onPcm16Grid(decoded.channels, gain);
  // Clamped only for float sources above full scale played at unity gain; a normalised copy stays below the ceiling.
  const pcm = toPcm16(decoded.channels, gain, dithered ? ditherSeed(decoded.channels) : null);
  const count = decoded.channels.length;
  // The copy's samples as they will play, for its own level and waveform.
  const played = decoded.channels.map(() => new Float32Array(frames));
  for (let i = 0; i < frames; i++) for (let c = 0; c < count; c++) played[c][i] = pcm[i * count + c] / PCM_SCALE;
  return {
    wav: wavFile(pcm, count, decoded.sampleRate),
    gainDb: Math.round(gainDb * 100) / 100,
    peakLimited,
    loudnessDbfs: measureLevel(measure, played, decoded.sampleRate),
    dithered,
    duration: frames / decoded.sampleRate,
    peaks: peaks(played, decoded.sampleRate),
  };
}

/** Where copies live: beside the database file, in the data dir. */
export function servedAudioDir(db: Db): string {
  if (db.memory) throw new Error('served audio copies need a database file: its folder is the data dir they are kept in');
  return join(dirname(db.name), 'served-audio');
}

/** Which of a clip's copies a row is: the copy every trial plays, or the replay a trial plays it again from. */
export type ServedVariant = '' | 'replay';

/** One row of served_clips: a clip as one study's listeners receive it. */
export interface ServedClipRow {
  clipId: string;
  variant: ServedVariant;
  id: string;
  file: string;
  settings: string;
  sourceSha256: string;
  sourceBytes: number;
  sourceMtimeMs: number;
  gainDb: number;
  peakLimited: number;
  /** The copy's level in the unit of `settings`' measure (the column's name is from when only RMS dBFS existed). */
  loudnessDbfs: number | null;
  duration: number;
  bytes: number;
  tag: string;
  peaks: string;
  madeAt: string;
}

export interface StudyAudio {
  studyId: string;
  settings: LoudnessSettings;
  rows: ServedClipRow[];
  /** Copies written by this build; the others were reused as they were. */
  made: number;
  /** Each clip's name for the researcher (`corpus:path`), by clip id. */
  names: Map<string, string>;
}

/** Thrown when clip files cannot be turned into copies; lists every one with its reason. */
export class ServedAudioError extends Error {
  constructor(readonly problems: { clipId: string; file: string; reason: string }[]) {
    super(`${problems.length} clip${problems.length === 1 ? '' : 's'} could not be prepared for listeners:\n${problems.map((p) => `  ${p.file}: ${p.reason}`).join('\n')}`);
    this.name = 'ServedAudioError';
  }
  /** The researcher's files are at fault, not the server. */
  readonly statusCode = 422;
}

const keyed = (secret: string, ...parts: string[]) => createHmac('sha256', secret).update(parts.join('\0')).digest('hex');

/**
 * Makes (or finds) the copy of every clip for a study, and the replay of each clip in `replayed`,
 * without touching the study's rows: the build records them with `recordStudyAudio` in the same
 * step that writes its items. A copy is reused without reading the corpus file when a copy with the
 * same settings was made from the same file (same sha256, size and mtime) and is still on disk; a
 * replay likewise, made from its copy.
 */
export async function prepareStudyAudio(db: Db, studyId: string, settings: LoudnessSettings, clipIds: Iterable<string>, replayed: Iterable<string> = []): Promise<StudyAudio> {
  const secret = installationSecret(db);
  const dir = servedAudioDir(db);
  mkdirSync(dir, { recursive: true });
  const settingsJson = settingsKey(settings);
  const store = manifestStore(db);
  const replays = new Set(replayed);
  const rows: ServedClipRow[] = [];
  const names = new Map<string, string>();
  const problems: ServedAudioError['problems'] = [];
  let written = 0;
  const onDisk = async (row: ServedClipRow | undefined) =>
    row && (await stat(join(dir, row.file)).catch(() => null))?.size === row.bytes ? row.file.replace(/\.wav$/, '') : null;
  const keep = async (wav: Uint8Array): Promise<string> => {
    const copySha = createHash('sha256').update(wav).digest('hex');
    if (await writeCopy(dir, `${copySha}.wav`, wav)) written++;
    return copySha;
  };
  for (const clipId of new Set([...clipIds, ...replays])) {
    const source = store.clipSource(clipId);
    if (!source) {
      problems.push({ clipId, file: clipId, reason: 'not in the manifest' });
      continue;
    }
    names.set(clipId, source.name);
    try {
      const file = await stat(source.absPath);
      if (!file.isFile()) throw new AudioError('not a regular file');
      const key = [settingsJson, source.sha256, file.size, file.mtimeMs] as const;
      const facts = { settings: settingsJson, sourceSha256: source.sha256, sourceBytes: file.size, sourceMtimeMs: file.mtimeMs };
      // A file's bytes as served: the row's id, file and validators follow from their sha256.
      const named = (sha: string, bytes: number) => ({
        id: servedId(secret, studyId, clipId, sha), file: `${sha}.wav`, bytes, tag: keyed(secret, 'served-audio-tag', sha).slice(0, 32),
      });
      const previous = store.servedCopy(clipId, '', ...key);
      const sha = await onDisk(previous);
      let copy: ServedClipRow;
      let wav: Uint8Array | null = null;
      if (previous && sha) {
        copy = { ...previous, id: servedId(secret, studyId, clipId, sha) };
      } else {
        const made = await renderServedCopy(await readFile(source.absPath), settings);
        wav = made.wav;
        copy = {
          clipId, variant: '', ...named(await keep(made.wav), made.wav.length), ...facts,
          gainDb: made.gainDb, peakLimited: made.peakLimited ? 1 : 0, loudnessDbfs: made.loudnessDbfs,
          duration: made.duration, peaks: JSON.stringify(made.peaks), madeAt: new Date().toISOString(),
        };
      }
      rows.push(copy);
      if (!replays.has(clipId)) continue;
      // The same key gives the same copy, and the same copy the same replay.
      const previousReplay = store.servedCopy(clipId, 'replay', ...key);
      const replaySha = await onDisk(previousReplay);
      if (previousReplay && replaySha) {
        rows.push({ ...previousReplay, id: servedId(secret, studyId, clipId, replaySha) });
        continue;
      }
      const replay = await renderReplay(wav ?? (await readFile(join(dir, copy.file))), replaySeed(secret, copy.file.replace(/\.wav$/, '')));
      rows.push({ ...copy, variant: 'replay', ...named(await keep(replay.wav), replay.wav.length), peaks: JSON.stringify(replay.peaks), madeAt: new Date().toISOString() });
    } catch (error) {
      const reason = error instanceof AudioError ? error.message : (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found (moved or deleted since import?)' : (error as Error).message;
      problems.push({ clipId, file: source.absPath, reason });
    }
  }
  if (problems.length > 0) throw new ServedAudioError(problems);
  return { studyId, settings, rows, made: written, names };
}

/** Writes a content-addressed copy unless it is there already; true when it wrote it. */
async function writeCopy(dir: string, name: string, wav: Uint8Array): Promise<boolean> {
  if (existsSync(join(dir, name))) return false;
  const temp = join(dir, `.${name}.${process.pid}.tmp`);
  await writeFile(temp, wav);
  await rename(temp, join(dir, name));
  return true;
}

/** The replay's dither seed: keyed by the installation secret and the copy's content, so the same copy gives the same replay here and only here. */
const replaySeed = (secret: string, copySha: string): number => parseInt(keyed(secret, 'served-replay-seed', copySha).slice(0, 8), 16);

/**
 * What shaped a copy, as served_clips.settings records it; a copy is reused only under the same key.
 * A whole-clip RMS target without dither keeps the key it had before measures and dither existed,
 * so studies built then keep their copies.
 */
function settingsKey(settings: LoudnessSettings): string {
  if (!settings.normalize) return JSON.stringify({ format: FORMAT, loudness: 'off', ...(settings.dither ? { dither: 'tpdf' } : {}) });
  if (settings.measure === 'rms' && !settings.dither) return JSON.stringify({ format: FORMAT, loudness: { targetDbfs: settings.target, peakCeilingDbfs: PEAK_CEILING_DBFS } });
  return JSON.stringify({ format: FORMAT, loudness: { measure: settings.measure, target: settings.target, unit: unitOf(settings.measure), peakCeilingDbfs: PEAK_CEILING_DBFS }, dither: settings.dither ? 'tpdf' : 'none' });
}

/** The id listeners see: keyed, per study and clip, and new whenever the copy's content changes. */
function servedId(secret: string, studyId: string, clipId: string, copySha: string): string {
  return 'c' + keyed(secret, 'served-audio-id', studyId, clipId, copySha).slice(0, 20);
}

/** How many of the study's clips would play from a different copy than they do now. */
export function changedCopies(db: Db, audio: StudyAudio): number {
  const store = manifestStore(db);
  return audio.rows.filter((r) => {
    const now = store.currentServedId(audio.studyId, r.clipId, r.variant);
    return now !== undefined && now !== r.id;
  }).length;
}

/**
 * Writes a study's served_clips rows: call it in the transaction that writes the study's items,
 * after checking `changedCopies` against its votes.
 */
export function recordStudyAudio(db: Db, audio: StudyAudio): void {
  const keyOf = (r: { clipId: string; variant: ServedVariant }) => `${r.variant}:${r.clipId}`;
  const keep = new Set(audio.rows.map(keyOf));
  const store = manifestStore(db);
  for (const r of store.servedClipIds(audio.studyId)) if (!keep.has(keyOf(r))) store.removeServed(audio.studyId, r.clipId, r.variant);
  for (const row of audio.rows) store.upsertServed(audio.studyId, row);
}

/** What the build reports about its copies. */
export interface StudyAudioSummary {
  clips: number;
  /** Copies written by this build (the rest were reused). */
  made: number;
  loudness: LoudnessSettings;
  /** The unit every level below is in: the measure's (dBov, LUFS, dBFS), or dBFS (RMS) with loudness off. */
  unit: string;
  /** Clips whose gain the peak ceiling held below the target, by name, with their level as served. */
  peakLimited: { clip: string; level: number | null; gainDb: number }[];
}

export function summariseStudyAudio(audio: StudyAudio): StudyAudioSummary {
  const copies = audio.rows.filter((r) => r.variant === '');
  return {
    clips: copies.length,
    made: audio.made,
    loudness: audio.settings,
    unit: unitOf(measureOf(audio.settings)),
    peakLimited: copies
      .filter((r) => r.peakLimited)
      .map((r) => ({ clip: audio.names.get(r.clipId) ?? r.clipId, level: r.loudnessDbfs, gainDb: r.gainDb }))
      .sort((x, y) => x.clip.localeCompare(y.clip)),
  };
}

/** The level clips are served at, with its unit and measure: "-26 dBov active speech level (ITU-T P.56 method B)". */
export function describeStudyLoudness(loudness: LoudnessSettings): string {
  return loudness.normalize ? describeTarget(loudness.measure, loudness.target) : 'their recorded level (loudness off)';
}

/** One line for the build summary: what was made, and each clip the peak ceiling held below the target, by name. */
export function formatStudyAudio(summary: StudyAudioSummary): string {
  const dither = summary.loudness.dither ? ', TPDF-dithered where re-quantised' : '';
  const limited = summary.peakLimited.length
    ? `; ${summary.peakLimited.length} peak-limited to stay under ${PEAK_CEILING_DBFS} dBFS peak, so quieter than the target: ` +
      summary.peakLimited.map((r) => `${r.clip} at ${r.level ?? '-'} ${summary.unit} (gain ${r.gainDb} dB)`).join(', ')
    : '';
  return `audio: ${summary.clips} clips as 16-bit WAV at ${describeStudyLoudness(summary.loudness)}${dither}, ${summary.made} new cop${summary.made === 1 ? 'y' : 'ies'} written${limited}`;
}

/** The loudness a copy was made with, read back from its served_clips.settings: the inverse of settingsKey. */
function settingsOf(json: string): LoudnessSettings {
  type Stored =
    | { loudness: 'off'; dither?: 'tpdf' }
    | { loudness: { targetDbfs: number } }
    | { loudness: { measure: LoudnessSettings['measure']; target: number }; dither: 'tpdf' | 'none' };
  const stored = JSON.parse(json) as Stored;
  if (stored.loudness === 'off') return { normalize: false, measure: 'rms', target: 0, dither: 'dither' in stored && stored.dither === 'tpdf' };
  if ('targetDbfs' in stored.loudness) return { normalize: true, measure: 'rms', target: stored.loudness.targetDbfs, dither: false };
  return { normalize: true, measure: stored.loudness.measure, target: stored.loudness.target, dither: (stored as { dither: string }).dither === 'tpdf' };
}

/**
 * Writes again every copy a served_clips row names that is not on disk (a database restored from
 * a backup into a fresh data dir, or a lost served-audio folder). A copy is a pure function of the
 * corpus file and its settings, so the copy made again is byte for byte the one the row names and
 * every served id stays valid; a corpus file that is gone or changed since is a problem, and that
 * study must be built again. Returns how many copies were written and what could not be.
 */
export async function restoreMissingCopies(db: Db): Promise<{ restored: number; problems: { studies: string[]; file: string; reason: string }[] }> {
  const dir = servedAudioDir(db);
  const store = manifestStore(db);
  const rows = store.servedFiles().filter((r) => !existsSync(join(dir, r.file)));
  const secret = rows.length > 0 ? installationSecret(db) : '';
  const problems: { studies: string[]; file: string; reason: string }[] = [];
  let restored = 0;
  if (rows.length > 0) mkdirSync(dir, { recursive: true });
  for (const row of rows) {
    const studies = row.studies.split('\0');
    const source = store.clipSource(row.clipId);
    try {
      if (!source) throw new AudioError('its clip is no longer in the manifest');
      const copy = await renderServedCopy(await readFile(source.absPath), settingsOf(row.settings));
      const copySha = createHash('sha256').update(copy.wav).digest('hex');
      if (`${copySha}.wav` !== row.copy) throw new AudioError(`${source.absPath} changed since the study was built`);
      // A replay is made from its copy, with the same keyed seed as at build.
      const wav = row.variant === 'replay' ? (await renderReplay(copy.wav, replaySeed(secret, copySha))).wav : copy.wav;
      const name = `${createHash('sha256').update(wav).digest('hex')}.wav`;
      if (name !== row.file) throw new AudioError(`${source.absPath} changed since the study was built`);
      await writeCopy(dir, name, wav);
      restored++;
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `${source?.absPath} not found` : (error as Error).message;
      problems.push({ studies, file: row.file, reason });
    }
  }
  return { restored, problems };
}

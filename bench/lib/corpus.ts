/**
 * Synthetic corpora for the bench, written with the manifest tests' own WAV writer: a folder
 * shaped like RAVDESS speech (Actor_XX/03-01-EE-II-SS-RR-AA.wav, 48 kHz 16-bit mono, with the
 * extra chunks real RAVDESS files carry) and temp directories that are always removed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sine, wavBytes } from '../../audio-manifest/test/audio';

const temps = new Set<string>();

/** A temp directory removed by removeTemps() (run.ts calls it on exit, on failure too). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `earmark-bench-${prefix}-`));
  temps.add(dir);
  return dir;
}

export function removeTemp(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  temps.delete(dir);
}

export function removeTemps(): void {
  for (const dir of [...temps]) removeTemp(dir);
}

const two = (n: number) => String(n).padStart(2, '0');

/** The 60 speech file names of one RAVDESS actor: neutral has one intensity, the other 7 emotions two. */
export function ravdessNames(actor: number): string[] {
  const names: string[] = [];
  for (let emotion = 1; emotion <= 8; emotion++) {
    for (let intensity = 1; intensity <= (emotion === 1 ? 1 : 2); intensity++) {
      for (let statement = 1; statement <= 2; statement++) {
        for (let repetition = 1; repetition <= 2; repetition++) {
          names.push(`03-01-${two(emotion)}-${two(intensity)}-${two(statement)}-${two(repetition)}-${two(actor)}.wav`);
        }
      }
    }
  }
  return names;
}

export interface RavdessShape {
  actors: number;
  /** Files per actor, at most 60 (the real count). */
  perActor?: number;
  seconds?: number;
  sampleRate?: number;
}

/**
 * Writes a RAVDESS-shaped speech folder and returns the file paths. Each actor gets its own
 * tone; each file differs from its actor's template in a few samples, so every file has its
 * own content hash (as real recordings do) without synthesising 1,440 signals.
 */
export function writeRavdessCorpus(dir: string, shape: RavdessShape): string[] {
  const sampleRate = shape.sampleRate ?? 48_000;
  const seconds = shape.seconds ?? 3.7;
  const files: string[] = [];
  for (let actor = 1; actor <= shape.actors; actor++) {
    // A syllable-rate envelope over a voice-range tone: loudness and peaks have something to measure.
    const tone = sine(seconds, sampleRate, 110 + 7 * actor, 0.5);
    const samples = tone.map((v, i) => v * (0.3 + 0.7 * Math.abs(Math.sin((Math.PI * 4 * i) / sampleRate))));
    const template = wavBytes({ sampleRate, bits: 16, channels: [samples], extraChunks: true });
    const data = template.indexOf('data') + 8;
    const actorDir = join(dir, `Actor_${two(actor)}`);
    mkdirSync(actorDir, { recursive: true });
    ravdessNames(actor)
      .slice(0, shape.perActor ?? 60)
      .forEach((name, k) => {
        const bytes = Buffer.from(template);
        bytes.writeInt16LE(k + 1, data);
        bytes.writeInt16LE(-(k + 1), data + 2);
        const file = join(actorDir, name);
        writeFileSync(file, bytes);
        files.push(file);
      });
  }
  return files;
}

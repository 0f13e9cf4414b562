/**
 * Test data written straight into the schema-v1 tables: real WAV files on disk, clips with
 * opaque ids and peaks, utterances, captions, judge scores, a study and its items. Used by the
 * server tests and the crash test until the manifest and study loaders are merged.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import wavefile from 'wavefile';
import type { Db } from '../../db/open';
import { StudyDefinition, type StudyDefinitionInput } from '../../contract/study-definition';
import type { RatingSettings } from '../../contract/trials';
import type { StudyStatus } from '../store/studies';
import { pairStimuli } from '../../trials/pair/plan';
import { ratedStimuli } from '../../trials/rating/plan';

/**
 * A short mono 16-bit sine tone; returns its samples so peaks can be computed from them. `tags`
 * become a LIST/INFO chunk (e.g. INAM title, IART artist), as corpus files often carry.
 */
export function writeTestWav(file: string, seconds: number, hz: number, sampleRate = 8000, tags: Record<string, string> = {}): number[] {
  const samples = Array.from({ length: Math.round(seconds * sampleRate) }, (_, i) =>
    Math.round(12000 * Math.sin((2 * Math.PI * hz * i) / sampleRate)),
  );
  const wav = new wavefile.WaveFile();
  wav.fromScratch(1, sampleRate, '16', samples);
  for (const [tag, value] of Object.entries(tags)) wav.setTag(tag, value);
  writeFileSync(file, wav.toBuffer());
  return samples;
}

function peaksOf(samples: number[], resolution = 64): string {
  const data: number[] = [];
  const step = Math.ceil(samples.length / resolution);
  for (let i = 0; i < samples.length; i += step) {
    const window = samples.slice(i, i + step);
    data.push(Math.min(...window) / 32768, Math.max(...window) / 32768);
  }
  return JSON.stringify({ resolution, data });
}

export interface SeedOptions {
  study?: string;
  status?: StudyStatus;
  pairs?: number;
  attention?: number;
  practice?: number;
  screeningRequired?: boolean;
  screening?: 'antiphase' | 'huggins' | 'both';
  design?: StudyDefinitionInput['design'];
  linkParameters?: string[];
  /** Offer the end-of-study comments box. */
  comments?: boolean;
  /** Questions before/after the trials (study.yaml questions). */
  questions?: StudyDefinitionInput['questions'];
  /** A comment box on every trial (study.yaml trialComments). */
  trialComments?: boolean;
  /**
   * A rating study instead of caption pairs (`pairs` then counts the rated items), its items as
   * kinds.md "Item rows" says: one rated system each, the caption shown (or none), attention
   * checks requiring the lowest score for a plainly wrong caption, practice the highest.
   */
  rating?: { scale?: { points: RatingSettings['scale']['points'] }; caption?: boolean; minListenerCorrelation?: number };
}

export interface SeededStudy {
  study: string;
  /** Manifest clip ids, item by item; once the server has started, the ids listeners see (served copies). */
  clipIds: string[];
  audioFiles: string[];
  /** Strings a listener must never receive: system ids, file names, labels, judge scores. */
  secrets: string[];
  itemCount: number;
}

export const SEED_SYSTEMS = ['sysalpha-7b', 'sysbeta-audio', 'sysgamma-large'] as const;

/** Seeds one study (default: 6 pairs, 2 attention checks, 1 practice trial) with real audio under `audioDir`. */
export function seedStudy(db: Db, audioDir: string, options: SeedOptions = {}): SeededStudy {
  const study = options.study ?? 'test-study';
  const rating = options.rating && { kind: 'rating' as const, scale: { points: options.rating.scale?.points ?? 5 }, caption: options.rating.caption ?? true };
  const kinds = [
    ...Array<'practice'>(options.practice ?? 1).fill('practice'),
    ...Array<'pair' | 'rating'>(options.pairs ?? 6).fill(rating ? 'rating' : 'pair'),
    ...Array<'attention'>(options.attention ?? 2).fill('attention'),
  ];
  const now = new Date().toISOString();
  const seeded: SeededStudy = { study, clipIds: [], audioFiles: [], secrets: [...SEED_SYSTEMS], itemCount: kinds.length };
  const actorDir = join(audioDir, study, 'Actor_07');
  mkdirSync(actorDir, { recursive: true });

  const pairs: { utterance: string; systemA: string; systemB: string }[] = [];
  const attention: { utterance: string; correct: string; wrong: string }[] = [];
  const practice: { utterance: string; correct: string; wrong: string }[] = [];
  db.transaction(() => {
    // The study row is written last (its definition lists the items), so check references at commit.
    db.pragma('defer_foreign_keys = ON');
    const insertClip = db.prepare(`
      INSERT INTO clips (id, corpus, root, path, abs_path, format, codec, duration, sample_rate, channels, bytes,
                         mtime_ms, sha256, loudness_dbfs, peaks, labels, imported_at)
      VALUES (?, 'ravdess', ?, ?, ?, 'wav', 'pcm_s16le', ?, 8000, 1, ?, ?, ?, -12.5, ?, ?, ?)`);
    const insertUtterance = db.prepare('INSERT INTO utterances (id, corpus, clip_id, transcript, labels) VALUES (?, ?, ?, ?, ?)');
    const insertCaption = db.prepare('INSERT INTO captions (utterance_id, system, text) VALUES (?, ?, ?)');
    const insertScore = db.prepare('INSERT INTO judge_scores (utterance_id, system, judge, run, score) VALUES (?, ?, ?, ?, ?)');
    // The study's own copy, as the build keeps it (the export reads this one).
    const keepScore = db.prepare('INSERT INTO study_judge_scores (study_id, utterance_id, system, judge, run, score) VALUES (?, ?, ?, ?, ?, ?)');
    const insertItem = db.prepare(`
      INSERT INTO items (id, study_id, seq, kind, trial_kind, utterance_id, stimuli, expected) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);

    kinds.forEach((kind, seq) => {
      // A RAVDESS-style name: it encodes emotion and actor, exactly what listeners must not see.
      const name = `03-01-0${(seq % 8) + 1}-02-01-01-07-${study}-${seq}.wav`;
      const file = join(actorDir, name);
      // Embedded metadata repeats what the name says, as RAVDESS-style files may: it must not reach listeners either.
      const samples = writeTestWav(file, 0.4 + 0.05 * seq, 220 + 40 * seq, 8000, { INAM: name, IART: 'actor07-female', ICMT: 'fearful, Actor_07' });
      const size = statSync(file);
      const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
      const clipId = randomBytes(12).toString('base64url');
      const utterance = `ravdess:${name.replace('.wav', '')}`;
      const labels = JSON.stringify({ emotion: 'fearful', actor: 'actor07-female' });
      insertClip.run(
        clipId, audioDir, `${study}/Actor_07/${name}`, file, samples.length / 8000, size.size, size.mtimeMs,
        sha256, peaksOf(samples), labels, now,
      );
      insertUtterance.run(utterance, 'ravdess', clipId, 'Kids are talking by the door', labels);
      const [a, b] = [SEED_SYSTEMS[seq % 3], SEED_SYSTEMS[(seq + 1) % 3]];
      const captionA = `Caption ${seq}A: a calm, slow voice with low pitch.`;
      const captionB = `Caption ${seq}B: an excited, fast voice with rising pitch.`;
      insertCaption.run(utterance, a, captionA);
      insertCaption.run(utterance, b, captionB);
      for (const [system, score] of [[a, 7.25 + seq], [b, 3.125 + seq]] as const) {
        insertScore.run(utterance, system, 'judge-one', 'run1', score);
        if (kind !== 'practice') keepScore.run(study, utterance, system, 'judge-one', 'run1', score);
      }
      const id = `item-${randomBytes(8).toString('hex')}`;
      if (rating) {
        // Attention checks show a plainly wrong caption (the lowest score is right); practice a fitting one (the highest).
        const caption = rating.caption ? (kind === 'attention' ? captionB : captionA) : null;
        const expected = kind === 'attention' ? '1' : kind === 'practice' ? String(rating.scale.points) : null;
        insertItem.run(id, study, seq, kind, 'rating', utterance, JSON.stringify(ratedStimuli(clipId, a, caption)), expected);
      } else {
        insertItem.run(id, study, seq, kind, 'pair', utterance, JSON.stringify(pairStimuli(clipId, a, b, captionA, captionB)), kind === 'pair' ? null : 'a');
      }
      seeded.clipIds.push(clipId);
      seeded.audioFiles.push(file);
      // The corpus file's content hash would let anyone holding the corpus look the clip up.
      seeded.secrets.push(name, name.replace('.wav', ''), utterance, actorDir, 'fearful', 'actor07', `${7.25 + seq}`, sha256.slice(0, 16));
      if (kind === 'pair' || kind === 'rating') pairs.push({ utterance, systemA: a, systemB: b });
      else (kind === 'attention' ? attention : practice).push({ utterance, correct: captionA, wrong: captionB });
    });
    // A definition in the studies schema, as `npm run study -- build` stores it.
    const definition = StudyDefinition.parse({
      title: `Seeded study ${study}`,
      consent: 'You agree to listen.',
      instructions: 'Pick the caption that fits the delivery.',
      question: 'Which caption better describes how it is said?',
      // A rating study names its systems only (a sample config reads the same to the pair and rating schemas); its rows are above.
      ...(rating
        ? { trial: rating, items: { mode: 'sample', count: pairs.length, systems: [...SEED_SYSTEMS] } }
        : { items: { mode: 'explicit', list: pairs }, ...(attention.length ? { attentionChecks: { mode: 'explicit', list: attention } } : {}), practice }),
      design: options.design ?? { kind: 'crossed' },
      screening: { kind: options.screening ?? 'antiphase', required: options.screeningRequired ?? false },
      targetListeners: 15,
      completion: { code: 'C0MPL3TE', redirectUrl: 'https://example.org/complete?cc=C0MPL3TE' },
      linkParameters: options.linkParameters ?? ['PROLIFIC_PID', 'STUDY_ID'],
      comments: options.comments ?? false,
      questions: options.questions ?? [],
      trialComments: options.trialComments ?? false,
      ...(options.rating?.minListenerCorrelation !== undefined && { exclusion: { minAttention: 0.75, minListenerCorrelation: options.rating.minListenerCorrelation } }),
    } satisfies StudyDefinitionInput);
    db.prepare('INSERT INTO studies (id, title, status, definition, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      study, definition.title, options.status ?? 'open', JSON.stringify(definition), now, now,
    );
  })();
  return seeded;
}

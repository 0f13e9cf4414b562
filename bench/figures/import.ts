/**
 * Import: 1,440 RAVDESS-shaped speech files (48 kHz 16-bit mono, 3.7 s, RAVDESS's extra chunks)
 * through the audio manifest's importer — decode, peaks, loudness, sha256 — into a fresh
 * database per run, then the same import again with nothing changed. Baseline in the same run:
 * sha256 of every file (the read cost no import can avoid).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importRavdess } from '../../audio-manifest';
import { openDatabase } from '../../db/open';
import { removeTemp, tempDir, writeRavdessCorpus } from '../lib/corpus';
import { judge, type Figure } from '../lib/figure';
import type { BenchOptions } from './options';

const FILES = 1440;

async function timed<T>(work: () => Promise<T> | T): Promise<{ seconds: number; value: T }> {
  const t0 = performance.now();
  const value = await work();
  return { seconds: (performance.now() - t0) / 1000, value };
}

export async function benchImport(options: BenchOptions): Promise<Figure[]> {
  const dir = tempDir('import');
  try {
    const corpus = join(dir, 'corpus');
    const files = writeRavdessCorpus(corpus, { actors: 24 });
    if (files.length !== FILES) throw new Error(`import bench: wrote ${files.length} files`);
    const hash = () => files.forEach((f) => createHash('sha256').update(readFileSync(f)).digest());
    hash(); // page cache warm for every measurement alike
    const baseline: number[] = [];
    const first: number[] = [];
    const again: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      baseline.push((await timed(hash)).seconds);
      const data = join(dir, `data-${run}`);
      // As the manifest CLI opens it.
      const db = openDatabase(join(data, 'earmark.db'), { synchronous: 'NORMAL' });
      try {
        const full = await timed(() => importRavdess(db, corpus));
        if (full.value.imported !== FILES) throw new Error(`import bench: ${full.value.summary()}`);
        const unchanged = await timed(() => importRavdess(db, corpus));
        if (unchanged.value.unchanged !== FILES) throw new Error(`import bench, re-run: ${unchanged.value.summary()}`);
        first.push(full.seconds);
        again.push(unchanged.seconds);
      } finally {
        db.close();
        removeTemp(data);
      }
    }
    const sha = { label: 'sha256 of all files', unit: 's', runs: baseline };
    return [
      judge({
        id: 'import.full',
        subject: { label: `import ${FILES} RAVDESS-shaped files`, unit: 's', runs: first },
        baseline: sha,
        budget: { on: 'value', op: '<=', limit: 60 },
        details: { filesPerSecond: first.map((s) => FILES / s) },
      }),
      judge({
        id: 'import.unchanged',
        subject: { label: 're-run, nothing changed', unit: 's', runs: again },
        baseline: sha,
        budget: { on: 'value', op: '<=', limit: 3 },
      }),
    ];
  } finally {
    removeTemp(dir);
  }
}

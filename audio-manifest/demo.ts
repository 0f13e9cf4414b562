import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Db } from '../db/open';
import { importJudgeFile } from './judge';
import { importMetasetFile } from './metaset';
import { importRenditions } from './renditions';
import { ImportReport } from './report';

/**
 * Imports the bundled demo study content (studies/demo): captions/<system>.json in MetaSet format
 * with audio/ as audio root, then judges/<system>__<judge>__<run>.json and any judges/*.csv, then the
 * renditions (importDemoRenditions).
 */
export async function importDemo(db: Db, demoDir: string, options: { onFailure?: (line: string) => void } = {}): Promise<ImportReport> {
  const report = new ImportReport(options.onFailure);
  const dir = resolve(demoDir);
  const jsonIn = (folder: string, ext: string): string[] =>
    readdirSync(join(dir, folder)).filter((name) => name.endsWith(ext)).sort().map((name) => join(dir, folder, name));
  for (const file of jsonIn('captions', '.json')) {
    const system = file.slice(file.lastIndexOf('/') + 1, -'.json'.length);
    await importMetasetFile(db, file, { system, audioRoot: join(dir, 'audio'), report });
  }
  for (const file of [...jsonIn('judges', '.json'), ...jsonIn('judges', '.csv')]) importJudgeFile(db, file, { report });
  return importDemoRenditions(db, dir, { report });
}

/**
 * The demo's renditions (renditions/<system>/demo-NN.flac: three made-up espeak-ng "TTS systems" reading
 * the demo's sentences) and their made-up MOS predictor's scores (renditions/mos-pred.csv), matched to the
 * demo's utterances: import those first. `npm start` runs this after building the demo study, so an A/B
 * study of these systems has their audio in the manifest; unchanged files are not read again.
 */
export async function importDemoRenditions(db: Db, demoDir: string, options: { report?: ImportReport; onFailure?: (line: string) => void } = {}): Promise<ImportReport> {
  const report = options.report ?? new ImportReport(options.onFailure);
  const dir = resolve(demoDir, 'renditions');
  await importRenditions(db, [dir], { report });
  importJudgeFile(db, join(dir, 'mos-pred.csv'), { report });
  return report;
}

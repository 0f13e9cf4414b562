import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Db } from '../db/open';
import { importJudgeFile } from './judge';
import { importMetasetFile } from './metaset';
import { importRenditions } from './renditions';
import { ImportReport } from './report';

/**
 * Imports the bundled demo study content (studies/demo): captions/<system>.json in MetaSet format
 * with audio/ as audio root, the made-up TTS systems' renditions/<system>/demo-NN.flac, then
 * judges/<system>__<judge>__<run>.json and any judges/*.csv (renditions-mos.csv scores the renditions).
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
  await importRenditions(db, [join(dir, 'renditions')], { report });
  for (const file of [...jsonIn('judges', '.json'), ...jsonIn('judges', '.csv')]) importJudgeFile(db, file, { report });
  return report;
}

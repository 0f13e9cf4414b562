/**
 * The audio manifest's importers, in the shape the study build calls them (see sources.ts). The
 * build has confined every path (roots.ts); files are read here asynchronously, within the cap,
 * so an import never blocks the server's event loop on a large caption file.
 */
import { dirname } from 'node:path';
import type { ImportReport } from '../audio-manifest';
import { importJudgeFile, importMetasetFile, importRavdess, importRenditions, importVctk, importVoxreasonFile } from '../audio-manifest';
import { readSourceText } from './roots';
import type { SourceImporters } from './sources';

function summarise(report: ImportReport): string {
  return [report.summary(), ...report.failures.map((f) => `  ${f.file}: ${f.reason}`)].join('\n');
}

const read = (file: string) => readSourceText([dirname(file)], file);

export const manifestImporters: SourceImporters = {
  metaset: async (db, s) => summarise(await importMetasetFile(db, s.file, { system: s.system, audioRoot: s.audioRoot, text: await read(s.file) })),
  judge: async (db, s) =>
    summarise(importJudgeFile(db, s.file, { system: s.system, judge: s.judge, run: s.run === undefined ? undefined : String(s.run), text: await read(s.file) })),
  ravdess: async (db, s) => summarise(await importRavdess(db, s.dir)),
  vctk: async (db, s) => summarise(await importVctk(db, s.dir, { mic: s.mic === 'mic2' ? 2 : 1 })),
  voxreason: async (db, s) => summarise(importVoxreasonFile(db, s.file, { text: await read(s.file) })),
  renditions: async (db, s) =>
    summarise(
      s.file !== undefined
        ? await importRenditions(db, [s.file], { texts: new Map([[s.file, await read(s.file)]]) })
        : await importRenditions(db, [s.dir!], { system: s.system }),
    ),
};

/** The audio manifest's importers, in the shape the study build calls them (see sources.ts). */
import type { ImportReport } from '../audio-manifest';
import { importJudgeFile, importMetasetFile, importRavdess, importVctk, importVoxreasonFile } from '../audio-manifest';
import type { SourceImporters } from './sources';

function summarise(report: ImportReport): string {
  return [report.summary(), ...report.failures.map((f) => `  ${f.file}: ${f.reason}`)].join('\n');
}

export const manifestImporters: SourceImporters = {
  metaset: async (db, s) => summarise(await importMetasetFile(db, s.file, { system: s.system, audioRoot: s.audioRoot })),
  judge: (db, s) =>
    summarise(importJudgeFile(db, s.file, { system: s.system, judge: s.judge, run: s.run === undefined ? undefined : String(s.run) })),
  ravdess: async (db, s) => summarise(await importRavdess(db, s.dir)),
  vctk: async (db, s) => summarise(await importVctk(db, s.dir, { mic: s.mic === 'mic2' ? 2 : 1 })),
  voxreason: (db, s) => summarise(importVoxreasonFile(db, s.file)),
};

import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import type { StudyFileKind } from '../contract';
import { conflict, notFound } from '../errors';

const TEMPLATES_DIR = fileURLToPath(new URL('../../studies/templates/', import.meta.url));

/** Written beside the target and renamed over it, so a crash never leaves half a file. */
function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

const listFiles = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir).filter((f) => /\.(json|csv)$/.test(f)).sort() : [];

/**
 * Study folders the studio manages: `<dataDir>/studies/<name>/` with `study.yaml`, `captions/`
 * and `judges/` — the layout `npm run study` reads, so a study made in the browser builds the
 * same way from the shell. Names are checked by the API (StudyId, StudyFileName) before they
 * get here, so no path can leave the folder.
 */
export function studyFolders(dataDir: string) {
  const root = join(dataDir, 'studies');
  const dir = (name: string) => join(root, name);
  const yamlFile = (name: string) => join(dir(name), 'study.yaml');
  const exists = (name: string) => existsSync(yamlFile(name));
  const assertExists = (name: string) => {
    if (!exists(name)) throw notFound('no_study_folder', `study ${name} has no folder under the data directory; the studio can only edit studies it created (clone this one to edit it)`);
  };

  return {
    dir,
    exists,
    assertExists,
    readYaml(name: string): string {
      assertExists(name);
      return readFileSync(yamlFile(name), 'utf8');
    },
    create(name: string, yaml: string): void {
      mkdirSync(root, { recursive: true });
      try {
        mkdirSync(dir(name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw conflict('study_exists', `a study folder named ${name} already exists`, 'name');
        throw error;
      }
      writeAtomically(yamlFile(name), yaml);
    },
    writeYaml(name: string, yaml: string): void {
      assertExists(name);
      writeAtomically(yamlFile(name), yaml);
    },
    files(name: string): Record<StudyFileKind, string[]> {
      return { captions: listFiles(join(dir(name), 'captions')), judges: listFiles(join(dir(name), 'judges')) };
    },
    writeFile(name: string, kind: StudyFileKind, fileName: string, content: string): void {
      assertExists(name);
      const folder = join(dir(name), kind);
      mkdirSync(folder, { recursive: true });
      writeAtomically(join(folder, basename(fileName)), content);
    },
    clone(from: string, to: string): void {
      assertExists(from);
      if (existsSync(dir(to))) throw conflict('study_exists', `a study folder named ${to} already exists`, 'name');
      cpSync(dir(from), dir(to), { recursive: true, errorOnExist: true });
    },
  };
}
export type StudyFolders = ReturnType<typeof studyFolders>;

/** The studies/templates/*.yaml files, with their titles. */
export function studyTemplates(): { id: string; title: string; yaml: string }[] {
  return readdirSync(TEMPLATES_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const yaml = readFileSync(join(TEMPLATES_DIR, f), 'utf8');
      const title = parseDocument(yaml).get('title');
      return { id: f.replace(/\.yaml$/, ''), title: typeof title === 'string' ? title : f, yaml };
    });
}

/**
 * The definition with `sources:` made from the uploaded files: one metaset source per caption
 * file (the system is the file name), the judge files by pattern, and — for a sampled study —
 * `items.systems` set to those systems (plus oracle when it was listed). Comments elsewhere stay.
 */
export function sourcesFromUploads(yaml: string, files: Record<StudyFileKind, string[]>, audioRoot: string): string {
  const doc = parseDocument(yaml);
  const systems = files.captions.filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
  const sources: Record<string, string>[] = systems.map((system) => ({ kind: 'metaset', file: `captions/${system}.json`, system, audioRoot }));
  for (const ext of ['json', 'csv']) {
    if (files.judges.some((f) => f.endsWith(`.${ext}`))) sources.push({ kind: 'judge', file: `judges/*.${ext}` });
  }
  const node = doc.createNode(sources);
  for (const entry of node.items) (entry as { flow?: boolean }).flow = true;
  doc.set('sources', node);
  if (doc.getIn(['items', 'mode']) === 'sample' && systems.length > 0) {
    const listed = doc.getIn(['items', 'systems']) as { toJSON(): unknown } | undefined;
    const hadOracle = Array.isArray(listed?.toJSON()) && (listed!.toJSON() as unknown[]).includes('oracle');
    const list = doc.createNode([...(hadOracle ? ['oracle'] : []), ...systems]);
    list.flow = true;
    doc.setIn(['items', 'systems'], list);
  }
  return doc.toString({ lineWidth: 0 });
}

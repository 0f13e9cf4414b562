/**
 * npm run study -- list | validate|build|open|pause|close|export <name> [--data <dir>] [--corpora <dirs>]
 * <name> is a study folder: `<data dir>/studies/<name>` (where the studio keeps the studies it
 * creates — the same kind of folder, so either side can edit it), else `studies/<name>` here, or a
 * path; validate also takes a template (`templates/<name>` or a path to a .yaml). `export <name> <dir>`
 * runs the server's exporter (npm run export). Sources are read only inside the corpus roots
 * (studies/roots.ts). Exit 1 on a refused definition or source file, with one
 * `file:line:column field: problem` line per problem.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseFile, openDatabase, type Db } from '../../db/open';
import { setStudyStatus } from '../../studies/build';
import { describeError, describeMaterial, formatBuildSummary, formatItemCounts, loadStudyDir, studyIdOf, validateStudyDir } from '../../studies/load';
import { formatSamplerSummary } from '../../studies/sampler';
import { configFromEnv, SERVER_OPTIONS, type Config } from '../config';
import { commandLine, HelpRequested, UsageError } from './args';
import { studyRepository } from '../store/studies';
import { listenerLinks, serverOrigin } from '../listener-links';
import { readStudyDefinition } from '../../studies/settings';
import { readAnalysisPlan } from '../../studies/analysis-plan';

const USAGE = 'usage: npm run study -- list | validate|build|open|pause|close|export <name> [--data <data dir>] [--corpora <dir>:<dir>] [--host <address> --port <n>: the links open prints] [--reason <text>: build, why the analysis plan changes after the first vote]';
const STUDIES_DIR = fileURLToPath(new URL('../../studies/', import.meta.url));

function folderOf(name: string, dataDir: string): string {
  const home = join(dataDir, 'studies', name);
  if (!name.includes('/') && existsSync(join(home, 'study.yaml'))) return home;
  const direct = resolve(name);
  if (name.startsWith('templates/') && !name.endsWith('.yaml') && existsSync(resolve(STUDIES_DIR, `${name}.yaml`))) return resolve(STUDIES_DIR, `${name}.yaml`);
  if (name.startsWith('templates/') && !existsSync(direct)) return resolve(STUDIES_DIR, name);
  return name.includes('/') || (existsSync(direct) && !existsSync(resolve(STUDIES_DIR, name))) ? direct : resolve(STUDIES_DIR, name);
}

/** Study folders (data directory first, then this repository's) and built studies, one line each. */
function listStudies(db: Db, dataDir: string): void {
  const folders = (root: string) =>
    existsSync(root) ? readdirSync(root).filter((n) => existsSync(join(root, n, 'study.yaml'))) : [];
  const built = new Map(studyRepository(db).list().map((s) => [s.id, s]));
  const names = [...new Set([...folders(join(dataDir, 'studies')), ...folders(STUDIES_DIR), ...built.keys()])].sort();
  for (const name of names) {
    const s = built.get(name);
    const dir = folderOf(name, dataDir);
    const where = existsSync(join(dir, 'study.yaml')) ? dir : '(no folder: built from elsewhere)';
    console.log([name, s ? s.status : 'not built', s ? `${s.items} items, ${s.listeners} listeners, ${s.votes} votes` : '', where].join('\t'));
  }
}

/** The bundle is written by the server's exporter (server/cli/export.ts); this runs that same command, compiled. */
function exportBundle(studyId: string, dir: string | undefined, config: Config): number {
  if (!dir) {
    console.error(USAGE.replace('<name>', '<name> <dir>'));
    return 2;
  }
  const earmark = fileURLToPath(new URL('../../bin/earmark.mjs', import.meta.url));
  return spawnSync(process.execPath, [earmark, 'export', studyId, dir, '--data', config.dataDir], { stdio: 'inherit' }).status ?? 1;
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = commandLine(argv, { data: SERVER_OPTIONS.data, corpora: SERVER_OPTIONS.corpora, host: SERVER_OPTIONS.host, port: SERVER_OPTIONS.port, reason: { type: 'string' } });
  } catch (error) {
    if (error instanceof HelpRequested) {
      console.log(USAGE);
      return 0;
    }
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n${USAGE}`);
    return 2;
  }
  const [command, name, ...rest] = parsed.positionals;
  if (!command || (!name && command !== 'list')) {
    console.error(USAGE);
    return 2;
  }
  const config = configFromEnv(parsed.values);
  const studyDir = (n: string) => folderOf(n, config.dataDir);
  if (command === 'export') return exportBundle(studyIdOf(studyDir(name)), rest[0], config);
  const roots = { dataDir: config.dataDir, corpora: config.corpora };
  // Validate is a dry run: it must not even create the data dir or its database.
  const db = command !== 'validate' ? openDatabase(databaseFile(config)) : existsSync(databaseFile(config)) ? openDatabase(databaseFile(config), { readonly: true }) : openDatabase(':memory:');
  try {
    switch (command) {
      case 'list':
        listStudies(db, config.dataDir);
        return 0;
      case 'validate': {
        const { studyId, plan, material, items, notes } = await validateStudyDir(db, studyDir(name), roots);
        if (material) console.log(`sources: ${describeMaterial(material)}`);
        for (const note of notes) console.log(`warning: ${note}`);
        if (!plan) {
          console.log(`${studyId}: definition valid (a template: items are planned once its files are there)`);
          return 0;
        }
        console.log(`${studyId}: valid — ${formatItemCounts(items)}`);
        if (plan.sampler) console.log(formatSamplerSummary(plan.sampler));
        return 0;
      }
      case 'build': {
        const { summary } = await loadStudyDir(db, studyDir(name), { ...roots, planChangeReason: parsed.values.reason as string | undefined });
        console.log(formatBuildSummary(summary));
        return 0;
      }
      case 'open':
      case 'pause':
      case 'close': {
        const to = ({ open: 'open', pause: 'paused', close: 'closed' } as const)[command];
        const studyId = studyIdOf(studyDir(name));
        const { from } = setStudyStatus(db, studyId, to);
        console.log(`${studyId}: ${from} → ${to}`);
        if (to === 'open') {
          // The address `npm start` serves with these --host/--port (or EARMARK_HOST/PORT); behind a proxy, its public name.
          const links = listenerLinks(serverOrigin(config.host, config.port), studyId, readStudyDefinition(db, studyId).linkParameters);
          console.log(`Listener link:  ${links.plain}`);
          if (links.prolific !== links.plain) console.log(`Prolific link:  ${links.prolific}`);
          console.log(`MTurk link:     ${links.mturk}`);
          const plan = readAnalysisPlan(db, studyId)!;
          console.log(`Analysis plan:  ${plan.hash} (frozen ${plan.frozenAt}; written to the export's study.json)`);
        }
        return 0;
      }
      default:
        console.error(USAGE);
        return 2;
    }
  } catch (error) {
    console.error(describeError(error));
    return 1;
  } finally {
    db.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}

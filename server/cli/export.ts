/** npm run export -- <study> <dir>: writes items.csv, votes.csv, judge_scores.csv, listeners.csv, study.json (analysis-spec §1). */
import { resolve } from 'node:path';
import { writeStudyBundle } from '../bundle';
import { configFromEnv, SERVER_OPTIONS } from '../config';
import { commandLine, runCommand } from './args';
import { StudyId } from '../../contract/common';
import { databaseFile, openDatabase } from '../../db/open';
import { exportRepository } from '../store/export';
import { studyRepository } from '../store/studies';

const USAGE = 'usage: npm run export -- <study> <dir> [--data <data dir>]';

await runCommand(USAGE, async () => {
  const { values, positionals } = commandLine(process.argv.slice(2), { data: SERVER_OPTIONS.data });
  const [study, dir] = positionals;
  if (positionals.length !== 2 || !StudyId.safeParse(study).success) {
    console.error(USAGE);
    return 2;
  }
  const db = openDatabase(databaseFile(configFromEnv(values)));
  try {
    if (!studyRepository(db).get(study)) {
      console.error(`no study named ${study}`);
      return 1;
    }
    const rows = exportRepository(db).rows(study);
    await writeStudyBundle(resolve(dir), rows);
    console.log(`Wrote ${rows.items.length} items, ${rows.votes.length} votes, ${rows.judgeScores.length} judge scores, ${rows.listeners.length} listeners and study.json to ${resolve(dir)}`);
    return 0;
  } finally {
    db.close();
  }
});

/** npm run export -- <study> <dir>: writes items.csv, votes.csv, judge_scores.csv, listeners.csv, study.json and, for a rating study, ratings.csv (analysis-spec §1, §4). */
import { resolve } from 'node:path';
import { writeStudyBundle } from '../bundle';
import { configFromEnv } from '../config';
import { StudyId } from '../../contract/common';
import { databaseFile, openDatabase } from '../../db/open';
import { exportRepository } from '../store/export';
import { studyRepository } from '../store/studies';

const args = process.argv.slice(2);
const positional = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
const [study, dir] = positional;
if (!study || !dir || !StudyId.safeParse(study).success) {
  console.error('usage: npm run export -- <study> <dir> [--data <data dir>]');
  process.exit(2);
}
const db = openDatabase(databaseFile(configFromEnv(args)));
try {
  if (!studyRepository(db).get(study)) {
    console.error(`no study named ${study}`);
    process.exitCode = 1;
  } else {
    const rows = exportRepository(db).rows(study);
    await writeStudyBundle(resolve(dir), rows);
    console.log(`Wrote ${rows.items.length} items, ${rows.votes.length} votes, ${rows.judgeScores.length} judge scores, ${rows.listeners.length} listeners and study.json to ${resolve(dir)}`);
  }
} finally {
  db.close();
}

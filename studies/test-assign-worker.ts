/** Child process for the concurrency test: starts `count` listener sessions against a shared database file. */
import { openDatabase } from '../db/open';
import { assignTrials } from './design';

const [file, studyId, prefix, count] = process.argv.slice(2);
const db = openDatabase(file, { synchronous: 'OFF' });
let total = 0;
for (let i = 0; i < Number(count); i++) total += assignTrials(db, studyId, `${prefix}${i}`);
db.close();
process.stdout.write(`${total}\n`);

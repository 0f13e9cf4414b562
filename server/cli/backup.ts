/** npm run backup -- <file | folder/> [--data <dir>]: an online, consistent copy of the study database. */
import { resolve } from 'node:path';
import { backupDatabase, backupTarget } from '../backup';
import { databaseFile } from '../../db/open';
import { configFromEnv, SERVER_OPTIONS } from '../config';
import { commandLine, runCommand } from './args';

const USAGE = 'usage: npm run backup -- <file | folder/> [--data <data dir>]   (a folder gets earmark-<UTC time>.db)';

await runCommand(USAGE, async () => {
  const { values, positionals } = commandLine(process.argv.slice(2), { data: SERVER_OPTIONS.data });
  if (positionals.length !== 1) {
    console.error(USAGE);
    return 2;
  }
  try {
    const source = databaseFile(configFromEnv(values));
    const file = resolve(backupTarget(positionals[0]));
    const { pages } = await backupDatabase(source, file);
    console.log(`Backed up ${source} to ${file} (${pages} pages).`);
    return 0;
  } catch (error) {
    console.error(`backup failed: ${(error as Error).message}`);
    return 1;
  }
});

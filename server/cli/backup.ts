/** npm run backup -- <file | folder/> [--data <dir>]: an online, consistent copy of the study database. */
import { resolve } from 'node:path';
import { backupDatabase, backupTarget } from '../backup';
import { databaseFile } from '../../db/open';
import { configFromEnv } from '../config';

const args = process.argv.slice(2);
const target = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!target) {
  console.error('usage: npm run backup -- <file | folder/> [--data <data dir>]   (a folder gets earmark-<UTC time>.db)');
  process.exit(2);
}
try {
  const source = databaseFile(configFromEnv(args));
  const file = resolve(backupTarget(target));
  const { pages } = await backupDatabase(source, file);
  console.log(`Backed up ${source} to ${file} (${pages} pages).`);
} catch (error) {
  console.error(`backup failed: ${(error as Error).message}`);
  process.exitCode = 1;
}

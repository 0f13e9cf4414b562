/** npm run backup -- <file> [--data <dir>]: an online, consistent copy of the study database. */
import { resolve } from 'node:path';
import { backupDatabase } from '../backup';
import { configFromEnv, databaseFile } from '../config';

const args = process.argv.slice(2);
const target = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!target) {
  console.error('usage: npm run backup -- <file> [--data <data dir>]');
  process.exit(2);
}
try {
  const source = databaseFile(configFromEnv(args));
  const { pages } = await backupDatabase(source, resolve(target));
  console.log(`Backed up ${source} to ${resolve(target)} (${pages} pages).`);
} catch (error) {
  console.error(`backup failed: ${(error as Error).message}`);
  process.exitCode = 1;
}

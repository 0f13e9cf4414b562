/**
 * One argument style for every command (`npm start`, `npm run study|export|admin|backup`, like
 * `npm run analyze|manifest|simulate`): node:util parseArgs, strict, so a misspelt option is refused
 * with its name and the usage line instead of being ignored.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export class UsageError extends Error {}

/** Parses `argv` against `options` (positionals allowed); throws a UsageError naming the bad option. */
export function commandLine<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Runs a command's main; a UsageError prints its message and the usage line and exits with 2. */
export async function runCommand(usage: string, main: () => Promise<number> | number): Promise<void> {
  try {
    process.exitCode = await main();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n${usage}`);
    process.exitCode = 2;
  }
}

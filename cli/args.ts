/**
 * One argument style for every command (`npm start`, `earmark analyze|simulate|manifest|study|export|admin|backup`):
 * node:util parseArgs, strict, so a misspelt option is refused with its name and the usage line instead of
 * being ignored; `--help`/`-h` prints the usage and exits 0; a value may start with a minus sign
 * (`--min-listener-correlation -0.2`). Node only: every layer's commands share it (analysis included).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export class UsageError extends Error {}
/** `--help` or `-h` was given: the command prints its usage on stdout and exits 0. */
export class HelpRequested extends Error {}

/** A negative number (-0.2, -3, -.5, -1e-3), as opposed to an option. */
const NEGATIVE_NUMBER = /^-(?:\d|\.\d)/;

/**
 * parseArgs refuses `--x -0.2` as ambiguous (the value looks like an option); for a string option
 * followed by a negative number the pair is joined into `--x=-0.2`, which it takes.
 */
function joinNegativeValues(argv: string[], options: Options): string[] {
  const byShort = new Map(Object.entries(options).flatMap(([name, o]) => (o.short ? [[o.short, name] as const] : [])));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const name = arg.startsWith('--') ? arg.slice(2) : /^-[^-]$/.test(arg) ? byShort.get(arg[1]) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && NEGATIVE_NUMBER.test(argv[i + 1] ?? '')) out.push(`--${name}=${argv[++i]}`);
    else out.push(arg);
  }
  return out;
}

/** Parses `argv` against `options` (positionals allowed); throws HelpRequested, or a UsageError naming the bad option. */
export function commandLine<O extends Options>(argv: string[], options: O) {
  const end = argv.indexOf('--');
  if ((end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h')) throw new HelpRequested();
  try {
    return parseArgs({ args: joinNegativeValues(argv, options), options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Runs a command's main: HelpRequested prints the usage (exit 0); a UsageError its message and the usage (exit 2). */
export async function runCommand(usage: string, main: () => Promise<number> | number): Promise<void> {
  try {
    process.exitCode = await main();
  } catch (error) {
    if (error instanceof HelpRequested) {
      console.log(usage);
      process.exitCode = 0;
      return;
    }
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n${usage}`);
    process.exitCode = 2;
  }
}
